// Float32 BatchNormalization in inference form, for the ones the canonicaliser could not fold
// into a conv: y = scale * (x - mean) / sqrt(var + epsilon) + bias per channel (dimension 1).
// The per-channel vectors are read from the device buffers of inputs 1..4.
#include <string>

#include "kernels/reference/reference_util.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/normalization_impl.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"

namespace ios {
namespace {

class BatchNormCudaKernel : public CudaKernel {
 public:
  BatchNormCudaKernel(float epsilon, int64_t inner, int64_t channels, int64_t count)
      : epsilon_(epsilon), inner_(inner), channels_(channels), count_(count) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    auto in = [&](size_t i) { return static_cast<const float*>(inputs[i]); };
    IOS_CUDA_RETURN_IF_ERROR(LaunchBatchNorm(in(0), in(1), in(2), in(3), in(4), epsilon_, inner_,
                                             channels_, static_cast<float*>(outputs[0]), count_,
                                             stream.stream));
    return Status::Ok();
  }

 private:
  float epsilon_;
  int64_t inner_;
  int64_t channels_;
  int64_t count_;
};

}  // namespace

CudaKernelOr CreateBatchNormCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMainDType(context, DType::kFloat32));
  IOS_ASSIGN_OR_RETURN(int64_t training_mode, node.attrs.GetInt("training_mode", 0));
  if (training_mode != 0) return RefuseOnCuda(node, "training_mode=1");
  IOS_ASSIGN_OR_RETURN(int64_t spatial, node.attrs.GetInt("spatial", 1));
  if (spatial != 1) return RefuseOnCuda(node, "spatial=0");
  IOS_ASSIGN_OR_RETURN(float epsilon, node.attrs.GetFloat("epsilon", 1e-5f));
  const Dims& x = context.input_types[0].dims;
  if (x.size() < 2) return InvalidOnCuda(node, "input must have rank >= 2");
  const int64_t channels = x[1];
  for (size_t i = 1; i < 5; ++i) {
    if (!CudaInputPresent(context, i)) return InvalidOnCuda(node, "needs 5 inputs");
    const TensorType& type = context.input_types[i];
    if (type.dtype != DType::kFloat32)
      return RefuseOnCuda(node, "input " + std::to_string(i) + " of type " + DTypeName(type.dtype));
    if (NumElements(type.dims) != channels)
      return InvalidOnCuda(node, "input " + std::to_string(i) + " " + DimsToString(type.dims) +
                                     " must have " + std::to_string(channels) + " elements");
  }
  if (context.output_types[0].dims != x)
    return InvalidOnCuda(node, "output " + DimsToString(context.output_types[0].dims) +
                                   " does not match input " + DimsToString(x));
  const int64_t inner = NumElements(Dims(x.begin() + 2, x.end()));
  return CudaKernelOr(
      std::make_unique<BatchNormCudaKernel>(epsilon, inner, channels, NumElements(x)));
}

}  // namespace ios
