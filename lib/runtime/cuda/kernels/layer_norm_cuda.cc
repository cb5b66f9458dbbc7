// Float32 LayerNormalization (opset 17): one block per normalised row (layer_norm_impl.cu). Scale
// and B may broadcast to the row; they are read from their device buffers through OperandMaps
// planned here. The optional Mean and InvStdDev outputs are written when the node has them.
#include <string>

#include "ops/layer_norm_params.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/layer_norm_impl.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"

namespace ios {
namespace {

class LayerNormCudaKernel : public CudaKernel {
 public:
  LayerNormCudaKernel(LayerNormLaunch launch, bool has_bias)
      : launch_(launch), has_bias_(has_bias) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    auto in = [&](size_t i) {
      return i < inputs.size() ? static_cast<const float*>(inputs[i]) : nullptr;
    };
    auto out = [&](size_t i) {
      return i < outputs.size() ? static_cast<float*>(outputs[i]) : nullptr;
    };
    IOS_CUDA_RETURN_IF_ERROR(LaunchLayerNorm(launch_, in(0), in(1), has_bias_ ? in(2) : nullptr,
                                             out(0), out(1), out(2), stream.stream));
    return Status::Ok();
  }

 private:
  LayerNormLaunch launch_;
  bool has_bias_;
};

}  // namespace

CudaKernelOr CreateLayerNormCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMainDType(context, DType::kFloat32));
  if (!CudaInputPresent(context, 1)) return InvalidOnCuda(node, "needs input Scale");
  const bool has_bias = CudaInputPresent(context, 2);
  for (size_t i = 1; i < (has_bias ? 3u : 2u); ++i) {
    if (context.input_types[i].dtype != DType::kFloat32)
      return RefuseOnCuda(node, "input " + std::to_string(i) + " of type " +
                                    DTypeName(context.input_types[i].dtype));
  }
  const Dims& x = context.input_types[0].dims;
  StatusOr<LayerNormParams> params = ParseLayerNorm(
      node, x, context.input_types[1].dims, has_bias ? &context.input_types[2].dims : nullptr);
  if (!params.ok()) return ParamsErrorOnCuda(node, params.status());
  if (context.output_types[0].dims != x)
    return InvalidOnCuda(node, "output " + DimsToString(context.output_types[0].dims) +
                                   " does not match input " + DimsToString(x));
  for (size_t i = 1; i < context.output_types.size() && i < 3; ++i) {
    const TensorType& stats = context.output_types[i];
    if (stats.dtype == DType::kUndefined) continue;  // omitted
    if (stats.dtype != DType::kFloat32 || stats.dims != params->stats_dims)
      return InvalidOnCuda(node, "output " + std::to_string(i) + " is " + DTypeName(stats.dtype) +
                                     " " + DimsToString(stats.dims) + ", expected float32 " +
                                     DimsToString(params->stats_dims));
  }
  LayerNormLaunch launch;
  launch.shape = params->shape;
  launch.scale_map = params->scale_map;
  launch.bias_map = params->bias_map;
  launch.epsilon = params->epsilon;
  return CudaKernelOr(std::make_unique<LayerNormCudaKernel>(launch, has_bias));
}

}  // namespace ios
