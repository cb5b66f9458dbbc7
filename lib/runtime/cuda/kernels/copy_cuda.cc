// Reshape, Flatten, Squeeze, Unsqueeze, Identity and inference Dropout: the bytes do not change,
// so the kernel is one device-to-device cudaMemcpyAsync on the stream (capturable into a CUDA
// Graph), skipped when the memory plan gave input and output the same address. Dropout's
// optional mask is all true: a cudaMemsetAsync of ones when it is bool.
#include <string>

#include "kernels/reference/reference_util.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"

namespace ios {
namespace {

class CopyCudaKernel : public CudaKernel {
 public:
  CopyCudaKernel(size_t bytes, size_t mask_bytes) : bytes_(bytes), mask_bytes_(mask_bytes) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    if (bytes_ > 0 && inputs[0] != outputs[0]) {
      IOS_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(outputs[0], inputs[0], bytes_, cudaMemcpyDeviceToDevice, stream.stream));
    }
    if (mask_bytes_ > 0 && outputs.size() > 1 && outputs[1] != nullptr) {
      IOS_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(outputs[1], 1, mask_bytes_, stream.stream));
    }
    return Status::Ok();
  }

 private:
  size_t bytes_;
  size_t mask_bytes_;  // Dropout's bool mask, else 0
};

// Inference Dropout only: a training_mode input must be a constant false (or the ratio 0).
Status CheckDropoutInference(const CudaKernelContext& context) {
  const Node& node = *context.node;
  if (!CudaInputPresent(context, 2)) return Status::Ok();
  const Tensor* training = CudaConstantInput(context, 2);
  if (training == nullptr) return RefuseOnCuda(node, "a runtime training_mode");
  if (training->num_elements() != 1) return InvalidOnCuda(node, "training_mode must be a scalar");
  double ratio = 0.5;
  if (CudaInputPresent(context, 1)) {
    const Tensor* r = CudaConstantInput(context, 1);
    if (r == nullptr) return RefuseOnCuda(node, "a runtime ratio with training_mode");
    IOS_ASSIGN_OR_RETURN(ratio, ReadScalarInput(node, *r, "ratio"));
  }
  if (training->IntAt(0) != 0 && ratio != 0.0)
    return RefuseOnCuda(node, "training mode (random dropout)");
  return Status::Ok();
}

}  // namespace

CudaKernelOr CreateCopyCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  if (!CudaInputPresent(context, 0) || context.output_types.empty())
    return InvalidOnCuda(node, "needs an input and an output");
  const TensorType& x = context.input_types[0];
  const TensorType& y = context.output_types[0];
  if (!IsCopyableDType(x.dtype)) return RefuseOnCuda(node, "element type " + DTypeName(x.dtype));
  if (y.dtype != x.dtype || NumElements(y.dims) != NumElements(x.dims))
    return InvalidOnCuda(node, "cannot copy " + DimsToString(x.dims) + " " + DTypeName(x.dtype) +
                                   " into " + DimsToString(y.dims) + " " + DTypeName(y.dtype));
  size_t mask_bytes = 0;
  if (node.op_type == "Dropout") {
    IOS_RETURN_IF_ERROR(CheckDropoutInference(context));
    const bool has_mask =
        node.outputs.size() > 1 && node.outputs[1] != kNoValue && context.output_types.size() > 1;
    if (has_mask) {
      const TensorType& mask = context.output_types[1];
      if (mask.dtype != DType::kBool)
        return RefuseOnCuda(node, "a " + DTypeName(mask.dtype) + " mask (only bool)");
      mask_bytes = static_cast<size_t>(NumElements(mask.dims));
    }
  }
  return CudaKernelOr(std::make_unique<CopyCudaKernel>(
      static_cast<size_t>(NumElements(x.dims)) * DTypeSize(x.dtype), mask_bytes));
}

}  // namespace ios
