// Float32 Softmax (both the opset >= 13 axis form and the older coerced-2D form) and
// ReduceMean (axes from the attribute or a constant input). The group and offset math is
// kernels/math/reduction_math.h.
#include <string>
#include <vector>

#include "kernels/reference/reference_util.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"
#include "runtime/cuda/kernels/reduction_impl.h"

namespace ios {
namespace {

class SoftmaxCudaKernel : public CudaKernel {
 public:
  explicit SoftmaxCudaKernel(SoftmaxShape shape) : shape_(shape) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchSoftmax(shape_, static_cast<const float*>(inputs[0]),
                                           static_cast<float*>(outputs[0]), stream.stream));
    return Status::Ok();
  }

 private:
  SoftmaxShape shape_;
};

class ReduceMeanCudaKernel : public CudaKernel {
 public:
  ReduceMeanCudaKernel(ReducePlan plan, int64_t out_count) : plan_(plan), out_count_(out_count) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchReduceMean(plan_, static_cast<const float*>(inputs[0]),
                                              static_cast<float*>(outputs[0]), out_count_,
                                              stream.stream));
    return Status::Ok();
  }

 private:
  ReducePlan plan_;
  int64_t out_count_;
};

// ReduceMean with no axes and noop_with_empty_axes=1: the identity.
class IdentityCopyCudaKernel : public CudaKernel {
 public:
  explicit IdentityCopyCudaKernel(size_t bytes) : bytes_(bytes) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    if (bytes_ > 0 && inputs[0] != outputs[0]) {
      IOS_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(outputs[0], inputs[0], bytes_, cudaMemcpyDeviceToDevice, stream.stream));
    }
    return Status::Ok();
  }

 private:
  size_t bytes_;
};

}  // namespace

CudaKernelOr CreateSoftmaxCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMainDType(context, DType::kFloat32));
  const Dims& dims = context.input_types[0].dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (rank < 1) return InvalidOnCuda(node, "input must have rank >= 1");
  if (context.output_types[0].dims != dims)
    return InvalidOnCuda(node, "output " + DimsToString(context.output_types[0].dims) +
                                   " does not match input " + DimsToString(dims));
  StatusOr<SoftmaxAxis> axis = ParseSoftmaxAxis(node, rank);
  if (!axis.ok()) return ParamsErrorOnCuda(node, axis.status());
  return CudaKernelOr(
      std::make_unique<SoftmaxCudaKernel>(MakeSoftmaxShape(dims, axis->axis, axis->coerce_2d)));
}

CudaKernelOr CreateReduceMeanCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMainDType(context, DType::kFloat32));
  const Dims& x = context.input_types[0].dims;
  const int64_t rank = static_cast<int64_t>(x.size());
  IOS_ASSIGN_OR_RETURN(int64_t noop_with_empty_axes, node.attrs.GetInt("noop_with_empty_axes", 0));
  std::vector<int64_t> axes;
  if (OpsetBefore(node, 18)) {
    IOS_ASSIGN_OR_RETURN(axes, node.attrs.GetInts("axes", {}));
  } else if (CudaInputPresent(context, 1)) {
    const Tensor* value = CudaConstantInput(context, 1);
    if (value == nullptr) return RefuseOnCuda(node, "runtime axes");
    IOS_ASSIGN_OR_RETURN(axes, ReadIntsInput(node, *value, "axes"));
  }
  if (axes.empty() && noop_with_empty_axes != 0)
    return CudaKernelOr(std::make_unique<IdentityCopyCudaKernel>(
        static_cast<size_t>(NumElements(x)) * sizeof(float)));
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) {
    IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, a, rank));
    reduced[axis] = true;
  }
  int64_t out_count = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d]) out_count *= x[d];
  if (NumElements(context.output_types[0].dims) != out_count)
    return InvalidOnCuda(node, "output " + DimsToString(context.output_types[0].dims) +
                                   " does not match the reduction of " + DimsToString(x));
  ReducePlan plan;
  if (!BuildReducePlan(x, reduced, &plan))
    return RefuseOnCuda(
        node, "more than " + std::to_string(kMaxIndexRank) + " kept or reduced dimensions");
  return CudaKernelOr(std::make_unique<ReduceMeanCudaKernel>(plan, out_count));
}

}  // namespace ios
