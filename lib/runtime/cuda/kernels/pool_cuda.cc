// MaxPool, AveragePool, GlobalMaxPool and GlobalAveragePool through cuDNN pooling (fp32, 1-D to
// 3-D windows). auto_pad, asymmetric pads and ceil_mode become cuDNN's symmetric padding and,
// where that gives a larger output, a crop copied out of workspace (cudnn_descriptors.h, which
// also lists what is refused). X and Y may be strided views (plan/tensor_views.h): their
// descriptors then carry the batch stride, which cuDNN takes for the 4-D tensors it pools.
#include <memory>
#include <string>

#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"
#include "runtime/cuda/kernels/library_kernel_factories.h"

namespace ios {
namespace {

class PoolCudaKernel : public CudaKernel {
 public:
  PoolCudaKernel(std::string label, PoolDescriptors descriptors)
      : label_(std::move(label)), d_(std::move(descriptors)) {}

  size_t WorkspaceBytes() const override {
    return CropWorkspaceBytes(d_.geometry.full_output, d_.geometry.cropped());
  }

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    if (inputs.empty() || inputs[0] == nullptr || outputs.empty() || outputs[0] == nullptr) {
      return Internal(label_ + "missing input or output buffer");
    }
    IOS_RETURN_IF_ERROR(CheckStreamWorkspace(label_, stream, WorkspaceBytes()));
    const float one = 1.f;
    const float zero = 0.f;
    float* y = static_cast<float*>(outputs[0]);
    float* pool_out = d_.geometry.cropped() ? static_cast<float*>(stream.workspace) : y;
    IOS_CUDNN_RETURN_IF_ERROR(cudnnPoolingForward(stream.cudnn, d_.pool.get(), &one, d_.x.get(),
                                                  inputs[0], &zero, d_.y_full.get(), pool_out));
    if (d_.geometry.cropped()) {
      IOS_CUDNN_RETURN_IF_ERROR(cudnnTransformTensor(stream.cudnn, &one, d_.y_crop_view.get(),
                                                     pool_out + d_.geometry.CropOffset(), &zero,
                                                     d_.y.get(), y));
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  PoolDescriptors d_;
};

}  // namespace

StatusOr<std::unique_ptr<CudaKernel>> CreatePoolCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  const std::string label = CudnnNodeLabel(node);
  if (context.input_types.empty() || context.output_types.empty()) {
    return Internal(label + "missing input or output types");
  }
  if (node.outputs.size() > 1 && node.outputs[1] != kNoValue) {
    return Unsupported(label + "MaxPool's Indices output is not supported");
  }
  if (context.input_types[0].dtype != DType::kFloat32 ||
      context.output_types[0].dtype != DType::kFloat32) {
    return Unsupported(label + "the CUDA backend runs " + node.op_type + " in float32 only");
  }
  WindowBatchStrides batch_strides;
  if (!context.batch_strides.inputs.empty()) batch_strides.x = context.batch_strides.inputs[0];
  if (!context.batch_strides.outputs.empty()) batch_strides.y = context.batch_strides.outputs[0];
  IOS_ASSIGN_OR_RETURN(PoolDescriptors descriptors,
                       BuildPoolDescriptors(node, context.input_types[0].dims,
                                            context.output_types[0].dims, batch_strides));
  return std::unique_ptr<CudaKernel>(
      std::make_unique<PoolCudaKernel>(label, std::move(descriptors)));
}

}  // namespace ios
