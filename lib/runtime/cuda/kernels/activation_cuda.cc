// Standalone float32 activations: one pass of ApplyActivation (kernels/math/activation_math.h,
// the math the CPU backend and the reference share). Clip since opset 11 takes its bounds from
// optional scalar inputs: constants are folded in at creation, runtime values are read by the
// kernel from device memory.
#include <limits>
#include <optional>

#include "ir/fused_activation.h"
#include "kernels/reference/reference_util.h"
#include "runtime/cuda/kernels/activation_impl.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/elementwise_impl.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"

namespace ios {
namespace {

class ActivationCudaKernel : public CudaKernel {
 public:
  ActivationCudaKernel(Activation act, int64_t count) : act_(act), count_(count) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchActivation(act_, static_cast<const float*>(inputs[0]),
                                              static_cast<float*>(outputs[0]), count_,
                                              stream.stream));
    return Status::Ok();
  }

 private:
  Activation act_;
  int64_t count_;
};

// Clip with at least one bound computed at run time.
class ClipFromDeviceCudaKernel : public CudaKernel {
 public:
  explicit ClipFromDeviceCudaKernel(int64_t count) : count_(count) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    auto bound = [&](size_t i) {
      return i < inputs.size() ? static_cast<const float*>(inputs[i]) : nullptr;
    };
    IOS_CUDA_RETURN_IF_ERROR(LaunchClipFromDevice(static_cast<const float*>(inputs[0]), bound(1),
                                                  bound(2), static_cast<float*>(outputs[0]), count_,
                                                  stream.stream));
    return Status::Ok();
  }

 private:
  int64_t count_;
};

CudaKernelOr CreateClip(const CudaKernelContext& context, int64_t count) {
  const Node& node = *context.node;
  const Tensor* bounds[2] = {nullptr, nullptr};
  bool runtime_bound = false;
  if (!OpsetBefore(node, 11)) {
    for (size_t i = 1; i <= 2; ++i) {
      if (!CudaInputPresent(context, i)) continue;
      const TensorType& type = context.input_types[i];
      if (type.dtype != DType::kFloat32 || NumElements(type.dims) != 1)
        return InvalidOnCuda(node, "min/max must be float32 scalars like the input");
      bounds[i - 1] = CudaConstantInput(context, i);
      runtime_bound |= bounds[i - 1] == nullptr;
    }
  }
  // A bound computed at run time is read on the device.
  if (runtime_bound) return CudaKernelOr(std::make_unique<ClipFromDeviceCudaKernel>(count));
  IOS_ASSIGN_OR_RETURN(Activation act, ActivationOfNode(node, bounds[0], bounds[1]));
  return CudaKernelOr(std::make_unique<ActivationCudaKernel>(act, count));
}

}  // namespace

CudaKernelOr CreateActivationCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  std::optional<ActivationKind> kind = ActivationKindFromOpType(node.op_type);
  if (!kind) return Internal("not an activation: " + node.op_type);
  IOS_ASSIGN_OR_RETURN(const int64_t count, ElementwiseCount(context, DType::kFloat32));
  if (*kind == ActivationKind::kClip) return CreateClip(context, count);
  IOS_ASSIGN_OR_RETURN(Activation act, ActivationOfNode(node));
  return CudaKernelOr(std::make_unique<ActivationCudaKernel>(act, count));
}

}  // namespace ios
