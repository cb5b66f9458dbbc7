// Add, Sub, Mul, Div, Pow, Mod (fmod=1 and 0), PRelu and the variadic Sum, Mean, Max, Min on
// float32 with numpy broadcasting (PRelu's slope broadcasts to its input's shape, one direction
// only), walked as broadcast_walk_cpu.h plans it. Variadic ops fold left to right, out = op(out,
// input i), like the reference (which matters for the NaN behaviour of Max/Min); Mean divides the
// sum by the input count at the end, as the reference does.
//
// Pow with a constant scalar exponent of 2 is x * x (the correctly rounded square, as the
// reference's pow in double rounded to float is); any other Pow runs powf per element, through
// glibc's vector powf where GCC builds it (vector_libm_cpu.h).
//
// Strided views (plan/tensor_views.h) and channels-last tensors (ir/layout.h) are walked with
// their own strides; channels-blocked-8 tensors take part only all of one shape
// (AllBlockedSameShape).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/math/elementwise_math.h"
#include "ops/op_params.h"
#include "runtime/cpu/kernels/broadcast_walk_cpu.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"
#include "runtime/cpu/kernels/vector_libm_cpu.h"

namespace ios {
namespace {

// The kernel's ops: ONNX's binary ops and the forms it plans some of them as.
enum class FloatOp { kAdd, kSub, kMul, kDiv, kMax, kMin, kPRelu, kPow, kSquare, kFmod, kMod };

template <FloatOp kOp>
IOS_ALWAYS_INLINE float Apply(float x, float y) {
  if constexpr (kOp == FloatOp::kAdd) return x + y;
  if constexpr (kOp == FloatOp::kSub) return x - y;
  if constexpr (kOp == FloatOp::kMul) return x * y;
  if constexpr (kOp == FloatOp::kDiv) return x / y;
  if constexpr (kOp == FloatOp::kMax) return y > x ? y : x;
  if constexpr (kOp == FloatOp::kMin) return y < x ? y : x;
  if constexpr (kOp == FloatOp::kPRelu) return x < 0.f ? y * x : x;
  if constexpr (kOp == FloatOp::kPow) return ::powf(x, y);  // vectorised: vector_libm_cpu.h
  if constexpr (kOp == FloatOp::kSquare) return x * x;
  if constexpr (kOp == FloatOp::kFmod) return std::fmod(x, y);
  if constexpr (kOp == FloatOp::kMod) {  // the divisor's sign, as the reference's numpy mod
    const float r = std::fmod(x, y);
    if (y == 0.f || std::isnan(r)) return r;
    if (r == 0.f) return std::copysign(0.f, y);
    return (r < 0.f) != (y < 0.f) ? r + y : r;
  }
}

// out[i] = op(a[i * a_step], b[i * b_step]) for i < count. Steps are 0 or 1 but for operands
// stored in another layout than the output, which take the last, general loop.
template <FloatOp kOp>
IOS_ALWAYS_INLINE void InnerLoop(const float* a, int64_t a_step, const float* b, int64_t b_step,
                                 float* out, int64_t count) {
  if ((a_step != 0 && a_step != 1) || (b_step != 0 && b_step != 1)) {
    for (int64_t i = 0; i < count; ++i) out[i] = Apply<kOp>(a[i * a_step], b[i * b_step]);
  } else if (a_step == 1 && b_step == 1) {
    for (int64_t i = 0; i < count; ++i) out[i] = Apply<kOp>(a[i], b[i]);
  } else if (a_step == 1) {
    const float y = b[0];
    for (int64_t i = 0; i < count; ++i) out[i] = Apply<kOp>(a[i], y);
  } else if (b_step == 1) {
    const float x = a[0];
    for (int64_t i = 0; i < count; ++i) out[i] = Apply<kOp>(x, b[i]);
  } else {
    const float v = Apply<kOp>(a[0], b[0]);
    for (int64_t i = 0; i < count; ++i) out[i] = v;
  }
}

using BinaryWalk = BroadcastWalk<2>;

template <FloatOp kOp>
IOS_ALWAYS_INLINE void RunUnits(const BinaryWalk& walk, const WalkSplit& split, const float* a,
                                const float* b, float* out, int64_t begin, int64_t end) {
  const int64_t a_step = walk.strides[0].back();
  const int64_t b_step = walk.strides[1].back();
  WalkUnits(walk, split, begin, end,
            [&](const std::array<int64_t, 2>& at, int64_t out_at, int64_t count)
                __attribute__((always_inline)) {
                  InnerLoop<kOp>(a + at[0], a_step, b + at[1], b_step, out + out_at, count);
                });
}

// One thread's share of a step, cloned per vector width (cpu_vector_clones.h).
IOS_VECTOR_CLONES void RunUnitsOf(FloatOp op, const BinaryWalk& walk, const WalkSplit& split,
                                  const float* a, const float* b, float* out, int64_t begin,
                                  int64_t end) {
  switch (op) {
#define IOS_FLOAT_OP_CASE(kind) \
  case FloatOp::kind:           \
    return RunUnits<FloatOp::kind>(walk, split, a, b, out, begin, end);
    IOS_FLOAT_OP_CASE(kAdd)
    IOS_FLOAT_OP_CASE(kSub)
    IOS_FLOAT_OP_CASE(kMul)
    IOS_FLOAT_OP_CASE(kDiv)
    IOS_FLOAT_OP_CASE(kMax)
    IOS_FLOAT_OP_CASE(kMin)
    IOS_FLOAT_OP_CASE(kPRelu)
    IOS_FLOAT_OP_CASE(kPow)
    IOS_FLOAT_OP_CASE(kSquare)
    IOS_FLOAT_OP_CASE(kFmod)
    IOS_FLOAT_OP_CASE(kMod)
#undef IOS_FLOAT_OP_CASE
  }
}

void RunStep(FloatOp op, const BinaryWalk& walk, const float* a, const float* b, float* out,
             int threads) {
  const WalkSplit split = SplitWalk(walk, threads);
  RunWalk(walk, split, [&](int64_t begin, int64_t end) {
    RunUnitsOf(op, walk, split, a, b, out, begin, end);
  });
}

// out[i] /= count over the output's bytes (Mean).
IOS_VECTOR_CLONES void DivideRange(float* out, float count, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) out[i] = MeanFromSum(out[i], static_cast<int32_t>(count));
}

class ElementwiseCpuKernel : public CpuKernel {
 public:
  // `mean_of`: a Mean of that many inputs (the sum is divided by it), else 0.
  ElementwiseCpuKernel(FloatOp op, std::vector<BinaryWalk> plans, int64_t out_count,
                       int mean_of = 0)
      : op_(op), plans_(std::move(plans)), out_count_(out_count), mean_of_(mean_of) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    float* out = static_cast<float*>(outputs[0]);
    for (const void* input : inputs)
      if (input == nullptr) return Internal("elementwise kernel: missing input");
    if (plans_.empty()) {  // a variadic op with one input: a copy
      if (inputs[0] != out) std::memcpy(out, inputs[0], out_count_ * sizeof(float));
      return Status::Ok();
    }
    // Step 0 reads inputs 0 and 1; step i >= 1 reads the output so far and input i + 1.
    RunStep(op_, plans_[0], static_cast<const float*>(inputs[0]),
            static_cast<const float*>(inputs[1]), out, threads);
    for (size_t i = 1; i < plans_.size(); ++i)
      RunStep(op_, plans_[i], out, static_cast<const float*>(inputs[i + 1]), out, threads);
    if (mean_of_ > 1) {
      // The output is dense here (a Mean takes no strided views): divide its elements in place.
      const float count = static_cast<float>(mean_of_);
      ParallelFor(out_count_, ThreadsForWork(threads, out_count_),
                  [&](int64_t begin, int64_t end) { DivideRange(out, count, begin, end); });
    }
    return Status::Ok();
  }

 private:
  FloatOp op_;
  std::vector<BinaryWalk> plans_;
  int64_t out_count_;
  int mean_of_;
};

// The kernel's op for the node: its binary op, or the form it plans it as.
StatusOr<FloatOp> FloatOpOf(const CpuKernelContext& context, const BinaryElementwise& op) {
  const Node& node = *context.node;
  if (node.op_type == "Mod") {
    IOS_ASSIGN_OR_RETURN(int64_t fmod, node.attrs.GetInt("fmod", 0));
    if (fmod != 0 && fmod != 1) return InvalidInput("fmod must be 0 or 1");
    return fmod == 1 ? FloatOp::kFmod : FloatOp::kMod;
  }
  switch (op.op) {
    case BinaryOpKind::kAdd: return FloatOp::kAdd;
    case BinaryOpKind::kSub: return FloatOp::kSub;
    case BinaryOpKind::kMul: return FloatOp::kMul;
    case BinaryOpKind::kDiv: return FloatOp::kDiv;
    case BinaryOpKind::kMax: return FloatOp::kMax;
    case BinaryOpKind::kMin: return FloatOp::kMin;
    case BinaryOpKind::kPRelu: return FloatOp::kPRelu;
    case BinaryOpKind::kPow: {
      const Tensor* exponent = context.constants.size() > 1 ? context.constants[1] : nullptr;
      if (exponent != nullptr && exponent->num_elements() == 1 &&
          exponent->dtype() == DType::kFloat32 && exponent->data<float>()[0] == 2.f)
        return FloatOp::kSquare;
      return FloatOp::kPow;
    }
  }
  return Internal("no float kernel for " + node.op_type);
}

// nChw8c has no element strides, but tensors of one shape all stored so hold their elements in
// the same order: the op is then the row-major one on the same bytes.
bool AllBlockedSameShape(const CpuKernelContext& context) {
  if (context.output_types.empty()) return false;
  const Dims& out = context.output_types[0].dims;
  for (size_t i = 0; i < context.input_types.size(); ++i)
    if (context.input_types[i].dims != out || context.input_layout(i) != Layout::kChannelsBlocked8)
      return false;
  return context.output_layout(0) == Layout::kChannelsBlocked8;
}

}  // namespace

bool ElementwiseTakesLayouts(const CpuKernelContext& context) {
  if (context.any_channels_blocked()) return AllBlockedSameShape(context);
  if (context.input_types.size() != 1 || context.output_types.empty()) return true;
  const Dims& dims = context.output_types[0].dims;
  return context.input_layout(0) == context.output_layout(0) || ChannelsLastIsRowMajor(dims);
}

StatusOr<std::unique_ptr<CpuKernel>> CreateElementwiseCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  // Mod is a binary op of its own (its fmod attribute picks the remainder's sign).
  BinaryElementwise op;
  if (node.op_type != "Mod") {
    IOS_ASSIGN_OR_RETURN(op, BinaryElementwiseOf(node.op_type));
  }
  IOS_RETURN_IF_ERROR(CheckBinaryElementwise(op, context.input_types, context.output_types));
  for (const TensorType& type : context.input_types)
    if (type.dtype != DType::kFloat32) return std::unique_ptr<CpuKernel>();  // the reference
  IOS_ASSIGN_OR_RETURN(FloatOp float_op, FloatOpOf(context, op));
  const int mean_of = op.mean ? static_cast<int>(context.input_types.size()) : 0;
  const size_t count = context.input_types.size();
  const Dims& out = context.output_types[0].dims;

  // Plan each step (step 0: inputs 0 and 1; step i: the output so far and input i + 1).
  const NodeBatchStrides& batch = context.batch_strides;
  const bool blocked = context.any_channels_blocked();
  if (blocked && (batch.any() || !AllBlockedSameShape(context)))
    return Internal(node.op_type + " '" + node.name +
                    "': blocked tensors must all be dense and of the output's shape");
  // Blocked tensors of one shape: walked as row-major (AllBlockedSameShape).
  auto layout = [&](Layout stored) { return blocked ? Layout::kRowMajor : stored; };
  auto input = [&](size_t i) {
    return StoredDims(context.input_types[i].dims, layout(context.input_layout(i)),
                      i < batch.inputs.size() ? batch.inputs[i] : 0);
  };
  const StridedDims stored_out = StoredDims(out, layout(context.output_layout(0)),
                                            batch.outputs.empty() ? 0 : batch.outputs[0]);
  if (mean_of > 1 && batch.any())
    return Internal("a Mean cannot write a strided view");
  if (count == 1 && (batch.any() || !ElementwiseTakesLayouts(context)))
    return Internal("a one-input " + node.op_type + " cannot copy a strided view or a reorder");
  std::vector<BinaryWalk> plans;
  // An empty output: nothing to compute (no plan, a copy of 0 bytes).
  if (NumElements(out) == 0)
    return std::unique_ptr<CpuKernel>(new ElementwiseCpuKernel(float_op, {}, 0));
  if (count >= 2) plans.push_back(PlanBroadcastWalk<2>(stored_out, {input(0), input(1)}));
  for (size_t i = 2; i < count; ++i)
    plans.push_back(PlanBroadcastWalk<2>(stored_out, {stored_out, input(i)}));
  for (const BinaryWalk& plan : plans)
    if (plan.out_strides.back() != 1)
      return Internal(node.op_type + " '" + node.name + "': its output's inner dim is strided");
  return std::unique_ptr<CpuKernel>(
      new ElementwiseCpuKernel(float_op, std::move(plans), NumElements(out), mean_of));
}

}  // namespace ios
