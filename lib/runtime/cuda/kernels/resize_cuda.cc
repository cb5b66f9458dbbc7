// Float32 Resize and Upsample: the node's parameters (ops/resize_params.h) planned into a
// ResizeGather, whose kernel (resize_impl.cu) evaluates ResizeGatherElement, the shared math of
// kernels/math/resize_math.h, per output element (the CPU kernel tabulates the same taps).
#include <string>

#include "ops/resize_params.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"
#include "runtime/cuda/kernels/resize_impl.h"

namespace ios {
namespace {

class ResizeCudaKernel : public CudaKernel {
 public:
  explicit ResizeCudaKernel(const ResizeGather& gather) : gather_(gather) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchResize(gather_, static_cast<const float*>(inputs[0]),
                                          static_cast<float*>(outputs[0]), stream.stream));
    return Status::Ok();
  }

 private:
  ResizeGather gather_;
};

}  // namespace

CudaKernelOr CreateResizeCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMainDType(context, DType::kFloat32));
  StatusOr<ResizeParams> params = ParseResize(CudaNodeInputs(context));
  if (!params.ok()) return ParamsErrorOnCuda(node, params.status());
  if (context.output_types[0].dims != params->out_dims)
    return InvalidOnCuda(node, "computed output " + DimsToString(params->out_dims) +
                                   " but the plan has " +
                                   DimsToString(context.output_types[0].dims));
  ResizeGather gather;
  if (!PlanResizeGather(params->interpolation, params->axes, &gather))
    return RefuseOnCuda(node, "resizing more than " + std::to_string(kMaxResizeGatherAxes) +
                                  " axes, or " + DimsToString(params->out_dims) +
                                  " with more than " + std::to_string(kMaxResizeGatherRank) +
                                  " runs of dims");
  return CudaKernelOr(std::make_unique<ResizeCudaKernel>(gather));
}

}  // namespace ios
