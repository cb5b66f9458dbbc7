// Float32 elementwise ops. Unary ops (Gelu and Erf among them) are one pass of ApplyUnary
// (kernels/math/elementwise_math.h). Binary ops broadcast as numpy does; each operand's read
// pattern is planned once at creation (kernels/math/broadcast_math.h), so the same-shape and
// per-channel cases cost no general index math. The variadic Sum, Max and Min fold left to right in
// the output, out = op(out, input i), like the reference.
//
// Strided views (plan/tensor_views.h): with same-shape operands, any of them and the output may
// be a channel slice of a wider tensor at batch > 1; each launch then walks every tensor with its
// own batch stride (LaunchBatchSlicedBinary).
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
  int64_t a_batch_stride = 0;  // with strided views: every tensor's batch stride in elements
  int64_t b_batch_stride = 0;
};

// Set when some tensor is a strided view: the output's batch layout.
struct BatchSlices {
  int64_t items = 0;  // 0: every tensor is dense
  int64_t item_elements = 0;
  int64_t out_stride = 0;
};

class BinaryCudaKernel : public CudaKernel {
 public:
  BinaryCudaKernel(BinaryOpKind op, std::vector<BinaryStep> steps, int64_t count,
                   BatchSlices slices)
      : op_(op), steps_(std::move(steps)), count_(count), slices_(slices) {}

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
      if (slices_.items > 0) {
        IOS_CUDA_RETURN_IF_ERROR(LaunchBatchSlicedBinary(
            op_, a, step.a_batch_stride, b, step.b_batch_stride, out, slices_.out_stride,
            slices_.items, slices_.item_elements, stream.stream));
      } else {
        IOS_CUDA_RETURN_IF_ERROR(
            LaunchBinary(op_, step.a_map, a, step.b_map, b, out, count_, stream.stream));
      }
    }
    return Status::Ok();
  }

 private:
  BinaryOpKind op_;
  std::vector<BinaryStep> steps_;
  int64_t count_;
  BatchSlices slices_;
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

// A float32 unary kernel computing `op` over the node's input.
CudaKernelOr MakeUnaryCudaKernel(const CudaKernelContext& context, UnaryOpKind op) {
  IOS_ASSIGN_OR_RETURN(const int64_t count, ElementwiseCount(context, DType::kFloat32));
  return CudaKernelOr(std::make_unique<UnaryCudaKernel>(op, count));
}

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
  // Strided views come only with same-shape operands (plan/tensor_views.h).
  const NodeBatchStrides& batch = context.batch_strides;
  BatchSlices slices;
  std::vector<int64_t> input_strides(count, 0);
  if (batch.any()) {
    if (count < 2 || out.empty() || out[0] <= 0)
      return InvalidOnCuda(node, "a strided view needs two or more inputs with a batch");
    slices.items = out[0];
    slices.item_elements = NumElements(out) / out[0];
    auto stride_of = [&](const std::vector<int64_t>& strides, size_t i) {
      return i < strides.size() && strides[i] != 0 ? strides[i] : slices.item_elements;
    };
    slices.out_stride = stride_of(batch.outputs, 0);
    for (size_t i = 0; i < count; ++i) {
      if (context.input_types[i].dims != out)
        return InvalidOnCuda(node, "a strided view with broadcasting");
      input_strides[i] = stride_of(batch.inputs, i);
    }
  }
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
    step.a_batch_stride = i == 1 ? input_strides[0] : slices.out_stride;
    step.b_batch_stride = input_strides[i];
    steps.push_back(step);
  }
  return CudaKernelOr(
      std::make_unique<BinaryCudaKernel>(op.op, std::move(steps), NumElements(out), slices));
}

CudaKernelOr CreateUnaryCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  for (const UnaryOpName& entry : kUnaryOpNames)
    if (node.op_type == entry.op_type) return MakeUnaryCudaKernel(context, entry.kind);
  return Internal("not a unary elementwise op: " + node.op_type);
}

CudaKernelOr CreateGeluCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  StatusOr<GeluApproximation> approximation = ParseGeluApproximation(node);
  if (!approximation.ok()) return ParamsErrorOnCuda(node, approximation.status());
  return MakeUnaryCudaKernel(context, approximation.value() == GeluApproximation::kTanh
                                          ? UnaryOpKind::kGeluTanh
                                          : UnaryOpKind::kGelu);
}

}  // namespace ios
