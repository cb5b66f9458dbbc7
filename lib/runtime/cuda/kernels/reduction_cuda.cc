// Float32 Softmax and LogSoftmax (both the opset >= 13 axis form and the older coerced-2D form),
// the reductions over axes (ReduceMean, ReduceSum, ReduceMax, ... ReduceLogSumExp; axes from the
// attribute or a constant input, read by ParseReduce) and ArgMax/ArgMin (float32 in, int64
// out). The group, offset and accumulation math is kernels/math/reduction_math.h.
#include <string>
#include <vector>

#include "ops/reduce_params.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"
#include "runtime/cuda/kernels/reduction_impl.h"

namespace ios {
namespace {

class SoftmaxCudaKernel : public CudaKernel {
 public:
  SoftmaxCudaKernel(SoftmaxShape shape, bool log_softmax)
      : shape_(shape), log_softmax_(log_softmax) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchSoftmax(shape_, log_softmax_,
                                           static_cast<const float*>(inputs[0]),
                                           static_cast<float*>(outputs[0]), stream.stream));
    return Status::Ok();
  }

 private:
  SoftmaxShape shape_;
  bool log_softmax_;
};

class ReduceCudaKernel : public CudaKernel {
 public:
  ReduceCudaKernel(ReduceKind kind, ReducePlan plan, int64_t out_count)
      : kind_(kind), plan_(plan), out_count_(out_count) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchReduce(kind_, plan_, static_cast<const float*>(inputs[0]),
                                          static_cast<float*>(outputs[0]), out_count_,
                                          stream.stream));
    return Status::Ok();
  }

 private:
  ReduceKind kind_;
  ReducePlan plan_;
  int64_t out_count_;
};

class ArgReduceCudaKernel : public CudaKernel {
 public:
  ArgReduceCudaKernel(SoftmaxShape shape, bool is_max, bool select_last)
      : shape_(shape), is_max_(is_max), select_last_(select_last) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchArgReduce(shape_, is_max_, select_last_,
                                             static_cast<const float*>(inputs[0]),
                                             static_cast<int64_t*>(outputs[0]), stream.stream));
    return Status::Ok();
  }

 private:
  SoftmaxShape shape_;
  bool is_max_;
  bool select_last_;
};

// A reduction with no axes and noop_with_empty_axes=1: the identity.
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
  return CudaKernelOr(std::make_unique<SoftmaxCudaKernel>(
      MakeSoftmaxShape(dims, axis->axis, axis->coerce_2d), node.op_type == "LogSoftmax"));
}

CudaKernelOr CreateReduceCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMainDType(context, DType::kFloat32));
  const Dims& x = context.input_types[0].dims;
  StatusOr<ReduceParams> params =
      ParseReduce(node, x, CudaInputPresent(context, 1), CudaConstantInput(context, 1));
  if (!params.ok()) return ParamsErrorOnCuda(node, params.status());
  IOS_RETURN_IF_ERROR(
      ParamsErrorOnCuda(node, CheckPlannedOutput(params->out_dims, context.output_types[0].dims)));
  if (params->identity)
    return CudaKernelOr(std::make_unique<IdentityCopyCudaKernel>(
        static_cast<size_t>(NumElements(x)) * sizeof(float)));
  ReducePlan plan;
  if (!BuildReducePlan(x, params->reduced, &plan))
    return RefuseOnCuda(
        node, "more than " + std::to_string(kMaxIndexRank) + " kept or reduced dimensions");
  return CudaKernelOr(
      std::make_unique<ReduceCudaKernel>(params->kind, plan, NumElements(params->out_dims)));
}

CudaKernelOr CreateArgReduceCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  if (context.input_types.empty() || context.output_types.empty())
    return InvalidOnCuda(node, "needs an input and an output");
  if (context.input_types[0].dtype != DType::kFloat32)
    return RefuseOnCuda(
        node, "input type " + DTypeName(context.input_types[0].dtype) + " (only float32)");
  if (context.output_types[0].dtype != DType::kInt64)
    return InvalidOnCuda(node, "output type " + DTypeName(context.output_types[0].dtype) +
                                   "; ArgMax and ArgMin give int64");
  const Dims& x = context.input_types[0].dims;
  StatusOr<ArgReduceParams> params = ParseArgReduce(node, x);
  if (!params.ok()) return ParamsErrorOnCuda(node, params.status());
  IOS_RETURN_IF_ERROR(
      ParamsErrorOnCuda(node, CheckPlannedOutput(params->out_dims, context.output_types[0].dims)));
  return CudaKernelOr(std::make_unique<ArgReduceCudaKernel>(
      MakeSoftmaxShape(x, params->axis, false), params->is_max, params->select_last_index));
}

}  // namespace ios
