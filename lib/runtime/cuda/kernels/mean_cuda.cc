// Mean: float32, one or more inputs with numpy broadcasting. As the reference computes it: the
// inputs summed left to right into the output (the binary add kernel of elementwise_impl.h, the
// output accumulating in place from the second step on), then divided by the input count in
// float (MeanFromSum, kernels/math/elementwise_math.h), so the result matches bit for bit.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ops/op_util.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/elementwise_impl.h"
#include "runtime/cuda/kernels/mean_impl.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"

namespace ios {
namespace {

class MeanCudaKernel : public CudaKernel {
 public:
  // maps[i] reads input i along the output; maps[0] is used only for the first step.
  MeanCudaKernel(std::vector<OperandMap> maps, int64_t count)
      : maps_(std::move(maps)), count_(count) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    float* out = static_cast<float*>(outputs[0]);
    if (maps_.size() == 1) {  // the mean of one input is the input
      if (inputs[0] != out && count_ > 0) {
        IOS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out, inputs[0], count_ * sizeof(float),
                                                 cudaMemcpyDeviceToDevice, stream.stream));
      }
      return Status::Ok();
    }
    OperandMap accumulated;  // the output so far: contiguous
    for (size_t i = 1; i < maps_.size(); ++i) {
      const bool first = i == 1;
      const float* a = first ? static_cast<const float*>(inputs[0]) : out;
      IOS_CUDA_RETURN_IF_ERROR(LaunchBinary(BinaryOpKind::kAdd, first ? maps_[0] : accumulated, a,
                                            maps_[i], static_cast<const float*>(inputs[i]), out,
                                            count_, stream.stream));
    }
    IOS_CUDA_RETURN_IF_ERROR(
        LaunchMeanFromSum(out, static_cast<int32_t>(maps_.size()), count_, stream.stream));
    return Status::Ok();
  }

 private:
  std::vector<OperandMap> maps_;
  int64_t count_;
};

}  // namespace

CudaKernelOr CreateMeanCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  const size_t count = context.input_types.size();
  if (count == 0 || context.output_types.empty())
    return InvalidOnCuda(node, "needs an input and an output");
  const Dims& out = context.output_types[0].dims;
  Dims broadcast;
  for (size_t i = 0; i < count; ++i) {
    if (!CudaInputPresent(context, i)) return InvalidOnCuda(node, "an input is omitted");
    const TensorType& input = context.input_types[i];
    if (input.dtype != DType::kFloat32)
      return RefuseOnCuda(node, "input type " + DTypeName(input.dtype) + " (only float32)");
    StatusOr<Dims> next =
        i == 0 ? StatusOr<Dims>(input.dims) : BroadcastDims(broadcast, input.dims);
    if (!next.ok()) return InvalidOnCuda(node, next.status().message());
    broadcast = *next;
  }
  if (context.output_types[0].dtype != DType::kFloat32)
    return RefuseOnCuda(node, "output type " + DTypeName(context.output_types[0].dtype));
  if (broadcast != out)
    return InvalidOnCuda(node, "the inputs broadcast to " + DimsToString(broadcast) +
                                   ", not to the output " + DimsToString(out));
  if (count > static_cast<size_t>(INT32_MAX)) return RefuseOnCuda(node, "so many inputs");
  std::vector<OperandMap> maps(count);
  for (size_t i = 0; i < count; ++i) {
    if (!BuildOperandMap(context.input_types[i].dims, out, &maps[i]))
      return RefuseOnCuda(
          node, "broadcasting over more than " + std::to_string(kMaxIndexRank) + " dimensions");
  }
  return CudaKernelOr(std::make_unique<MeanCudaKernel>(std::move(maps), NumElements(out)));
}

}  // namespace ios
