// Float32 elementwise ops. Binary ops broadcast as numpy does; each operand's read pattern is
// planned once at creation (kernels/math/broadcast_math.h), so the same-shape and per-channel
// cases cost no general index math. The variadic Sum, Max and Min fold left to right in the
// output, out = op(out, input i), like the reference.
#include <cstring>
#include <string>
#include <vector>

#include "ops/op_params.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/elementwise_impl.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"

namespace ios {
namespace {

// One launch: out = op(a, b), where a is input `a_input` or (when -1) the output so far.
struct BinaryStep {
  int a_input = 0;
  int b_input = 1;
  OperandMap a_map;
  OperandMap b_map;
};

class BinaryCudaKernel : public CudaKernel {
 public:
  BinaryCudaKernel(BinaryOpKind op, std::vector<BinaryStep> steps, int64_t count)
      : op_(op), steps_(std::move(steps)), count_(count) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    float* out = static_cast<float*>(outputs[0]);
    if (steps_.empty()) {  // a variadic op with one input: a copy
      if (inputs[0] != out && count_ > 0) {
        IOS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out, inputs[0], count_ * sizeof(float),
                                                 cudaMemcpyDeviceToDevice, stream.stream));
      }
      return Status::Ok();
    }
    for (const BinaryStep& step : steps_) {
      const float* a = step.a_input < 0 ? out : static_cast<const float*>(inputs[step.a_input]);
      const float* b = static_cast<const float*>(inputs[step.b_input]);
      IOS_CUDA_RETURN_IF_ERROR(
          LaunchBinary(op_, step.a_map, a, step.b_map, b, out, count_, stream.stream));
    }
    return Status::Ok();
  }

 private:
  BinaryOpKind op_;
  std::vector<BinaryStep> steps_;
  int64_t count_;
};

class UnaryCudaKernel : public CudaKernel {
 public:
  UnaryCudaKernel(UnaryOpKind op, int64_t count) : op_(op), count_(count) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchUnary(op_, static_cast<const float*>(inputs[0]),
                                         static_cast<float*>(outputs[0]), count_, stream.stream));
    return Status::Ok();
  }

 private:
  UnaryOpKind op_;
  int64_t count_;
};

struct UnaryEntry {
  const char* op_type;
  UnaryOpKind op;
};

constexpr UnaryEntry kUnaryOps[] = {
    {"Neg", UnaryOpKind::kNeg},     {"Abs", UnaryOpKind::kAbs},
    {"Sqrt", UnaryOpKind::kSqrt},   {"Exp", UnaryOpKind::kExp},
    {"Log", UnaryOpKind::kLog},     {"Reciprocal", UnaryOpKind::kReciprocal},
    {"Floor", UnaryOpKind::kFloor}, {"Ceil", UnaryOpKind::kCeil},
};

}  // namespace

CudaKernelOr CreateBinaryCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_ASSIGN_OR_RETURN(BinaryElementwise op, BinaryElementwiseOf(node.op_type));
  IOS_RETURN_IF_ERROR(ParamsErrorOnCuda(
      node, CheckBinaryElementwise(op, context.input_types, context.output_types)));
  const size_t count = context.input_types.size();
  for (size_t i = 0; i < count; ++i) {
    if (!CudaInputPresent(context, i)) return InvalidOnCuda(node, "an input is omitted");
    if (context.input_types[i].dtype != DType::kFloat32)
      return RefuseOnCuda(
          node, "input type " + DTypeName(context.input_types[i].dtype) + " (only float32)");
  }
  if (context.output_types[0].dtype != DType::kFloat32)
    return RefuseOnCuda(node, "output type " + DTypeName(context.output_types[0].dtype));
  const Dims& out = context.output_types[0].dims;
  std::vector<BinaryStep> steps;
  for (size_t i = 1; i < count; ++i) {
    BinaryStep step;
    step.a_input = i == 1 ? 0 : -1;
    step.b_input = static_cast<int>(i);
    const Dims& a_dims = i == 1 ? context.input_types[0].dims : out;
    if (!BuildOperandMap(a_dims, out, &step.a_map) ||
        !BuildOperandMap(context.input_types[i].dims, out, &step.b_map))
      return RefuseOnCuda(
          node, "broadcasting over more than " + std::to_string(kMaxIndexRank) + " dimensions");
    steps.push_back(step);
  }
  return CudaKernelOr(
      std::make_unique<BinaryCudaKernel>(op.op, std::move(steps), NumElements(out)));
}

CudaKernelOr CreateUnaryCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  const UnaryEntry* entry = nullptr;
  for (const UnaryEntry& e : kUnaryOps)
    if (node.op_type == e.op_type) entry = &e;
  if (entry == nullptr) return Internal("not a unary elementwise op: " + node.op_type);
  IOS_RETURN_IF_ERROR(RequireMainDType(context, DType::kFloat32));
  const int64_t count = NumElements(context.input_types[0].dims);
  if (NumElements(context.output_types[0].dims) != count)
    return InvalidOnCuda(node, "output " + DimsToString(context.output_types[0].dims) +
                                   " does not match input " +
                                   DimsToString(context.input_types[0].dims));
  return CudaKernelOr(std::make_unique<UnaryCudaKernel>(entry->op, count));
}

}  // namespace ios
