// Add, Sub, Mul, Div, PRelu and the variadic Sum, Max, Min on float32 with numpy broadcasting
// (PRelu's slope broadcasts to its input's shape, one direction only).
//
// Each pairwise step is planned once at creation: dims of size 1 in the output are dropped and
// neighbouring dims that every operand walks contiguously (or not at all) are merged. What is
// left is rows of one inner loop in which each operand has stride 1 or 0, so the same-shape case
// is one flat loop and the per-channel [1,C,1,1] case is N*C rows of "x op scalar". Variadic
// ops fold left to right, out = op(out, input i), like the reference (which matters for the NaN
// behaviour of Max/Min).
//
// Strided views (plan/tensor_views.h): an operand or the output may be a channel slice of a
// wider tensor at batch > 1. The plan then walks each tensor with its own strides (the batch
// dim's is the view's), which keeps it from merging the batch dim into the rest.
//
// Layouts (ir/layout.h): each tensor is walked with its layout's strides, the dims taken in the
// order the output is stored, so that tensors stored alike channels-last are one flat loop too
// and a [N,C,1,1] operand of a channels-last output is rows of "x[c] op s[c]" over the pixels.
// Channels-blocked-8 tensors take part only all of one shape (AllBlockedSameShape).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/math/elementwise_math.h"
#include "ops/op_params.h"
#include "runtime/cpu/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"
#include "runtime/cpu/cpu_vector_clones.h"

namespace ios {
namespace {

template <BinaryOpKind kOp>
IOS_ALWAYS_INLINE float Apply(float x, float y) {
  if constexpr (kOp == BinaryOpKind::kAdd) return x + y;
  if constexpr (kOp == BinaryOpKind::kSub) return x - y;
  if constexpr (kOp == BinaryOpKind::kMul) return x * y;
  if constexpr (kOp == BinaryOpKind::kDiv) return x / y;
  if constexpr (kOp == BinaryOpKind::kMax) return y > x ? y : x;
  if constexpr (kOp == BinaryOpKind::kMin) return y < x ? y : x;
  if constexpr (kOp == BinaryOpKind::kPRelu) return x < 0.f ? y * x : x;
}

// out[i] = op(a[i * a_step], b[i * b_step]) for i < count. Steps are 0 or 1 but for operands
// stored in another layout than the output, which take the last, general loop.
template <BinaryOpKind kOp>
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

// One step out = op(a, b): collapsed output dims and each tensor's strides over them.
struct BroadcastPlan {
  Dims dims;       // at least one dim; the last is the inner loop
  Dims a_strides;  // elements; 0 where the operand is broadcast
  Dims b_strides;
  Dims out_strides;  // the inner loop's is 1
};

// A tensor's dims and the element strides it is stored with.
struct StridedDims {
  Dims dims;
  Dims strides;
};

// In `layout`, except for dim 0 of a strided view (`batch_stride` not 0).
StridedDims Stored(const Dims& dims, Layout layout, int64_t batch_stride) {
  StridedDims t{dims, LayoutStrides(dims, layout)};
  if (batch_stride != 0 && !dims.empty()) t.strides[0] = batch_stride;
  return t;
}

// Strides of `in` read along `out` (aligned from the right, 0 for broadcast dims).
Dims AlignedStrides(const StridedDims& in, const Dims& out) {
  Dims strides(out.size(), 0);
  const size_t shift = out.size() - in.dims.size();
  for (size_t i = 0; i < in.dims.size(); ++i)
    strides[shift + i] = in.dims[i] == 1 ? 0 : in.strides[i];
  return strides;
}

BroadcastPlan PlanBroadcast(const StridedDims& out, const StridedDims& a, const StridedDims& b) {
  const Dims a_full = AlignedStrides(a, out.dims);
  const Dims b_full = AlignedStrides(b, out.dims);
  const Dims& o_full = out.strides;
  // The output's dims from its outermost to its innermost (row-major: in order).
  std::vector<size_t> order(out.dims.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return o_full[x] > o_full[y]; });
  BroadcastPlan plan;
  for (size_t i : order) {
    const int64_t n = out.dims[i];
    if (n == 1) continue;
    if (!plan.dims.empty()) {
      // Merge into the previous dim when every tensor continues contiguously (or stays put).
      const int64_t last = static_cast<int64_t>(plan.dims.size()) - 1;
      if (plan.a_strides[last] == a_full[i] * n && plan.b_strides[last] == b_full[i] * n &&
          plan.out_strides[last] == o_full[i] * n) {
        plan.dims[last] *= n;
        plan.a_strides[last] = a_full[i];
        plan.b_strides[last] = b_full[i];
        plan.out_strides[last] = o_full[i];
        continue;
      }
    }
    plan.dims.push_back(n);
    plan.a_strides.push_back(a_full[i]);
    plan.b_strides.push_back(b_full[i]);
    plan.out_strides.push_back(o_full[i]);
  }
  if (plan.dims.empty()) {  // a single element
    plan.dims = {1};
    plan.a_strides = {0};
    plan.b_strides = {0};
    plan.out_strides = {1};
  }
  return plan;
}

// The units [begin, end) of one step: rows of the plan, each in `parts` parts of `part_size`.
struct PlanUnits {
  const BroadcastPlan* plan;
  int64_t parts;
  int64_t part_size;
};

template <BinaryOpKind kOp>
IOS_ALWAYS_INLINE void RunUnits(const PlanUnits& units, const float* a, const float* b, float* out,
                                int64_t begin, int64_t end) {
  const BroadcastPlan& plan = *units.plan;
  const int64_t parts = units.parts;
  const int64_t part_size = units.part_size;
  const size_t rank = plan.dims.size();
  const int64_t inner = plan.dims[rank - 1];
  const int64_t a_step = plan.a_strides[rank - 1];
  const int64_t b_step = plan.b_strides[rank - 1];
  // The first unit's row index over the outer dims, then advanced like an odometer: a division
  // per row cost more than the row itself where rows are short (a [N,C,1,1] scale of a
  // channels-last tensor is N*H*W rows of C elements).
  Dims index(rank, 0);
  int64_t a_offset = 0;
  int64_t b_offset = 0;
  int64_t out_offset = 0;
  int64_t rest = begin / parts;
  for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
    index[d] = rest % plan.dims[d];
    rest /= plan.dims[d];
    a_offset += index[d] * plan.a_strides[d];
    b_offset += index[d] * plan.b_strides[d];
    out_offset += index[d] * plan.out_strides[d];
  }
  int64_t part = begin % parts;
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t from = part * part_size;
    const int64_t count = std::min(inner, from + part_size) - from;
    if (count > 0)
      InnerLoop<kOp>(a + a_offset + from * a_step, a_step, b + b_offset + from * b_step, b_step,
                     out + out_offset + from, count);
    if (++part < parts) continue;
    part = 0;
    for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
      a_offset += plan.a_strides[d];
      b_offset += plan.b_strides[d];
      out_offset += plan.out_strides[d];
      if (++index[d] < plan.dims[d]) break;
      a_offset -= plan.a_strides[d] * plan.dims[d];
      b_offset -= plan.b_strides[d] * plan.dims[d];
      out_offset -= plan.out_strides[d] * plan.dims[d];
      index[d] = 0;
    }
  }
}

// One thread's share of a step, cloned per vector width (cpu_vector_clones.h).
IOS_VECTOR_CLONES void RunUnitsOf(BinaryOpKind op, const PlanUnits& units, const float* a,
                                  const float* b, float* out, int64_t begin, int64_t end) {
  switch (op) {
    case BinaryOpKind::kAdd:
      return RunUnits<BinaryOpKind::kAdd>(units, a, b, out, begin, end);
    case BinaryOpKind::kSub:
      return RunUnits<BinaryOpKind::kSub>(units, a, b, out, begin, end);
    case BinaryOpKind::kMul:
      return RunUnits<BinaryOpKind::kMul>(units, a, b, out, begin, end);
    case BinaryOpKind::kDiv:
      return RunUnits<BinaryOpKind::kDiv>(units, a, b, out, begin, end);
    case BinaryOpKind::kMax:
      return RunUnits<BinaryOpKind::kMax>(units, a, b, out, begin, end);
    case BinaryOpKind::kMin:
      return RunUnits<BinaryOpKind::kMin>(units, a, b, out, begin, end);
    case BinaryOpKind::kPRelu:
      return RunUnits<BinaryOpKind::kPRelu>(units, a, b, out, begin, end);
    case BinaryOpKind::kPow:
      break;  // never planned: the reference runs Pow
  }
}

void RunStep(BinaryOpKind op, const BroadcastPlan& plan, const float* a, const float* b, float* out,
             int threads) {
  const size_t rank = plan.dims.size();
  const int64_t inner = plan.dims[rank - 1];
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= plan.dims[d];
  const int team = ThreadsForWork(threads, rows * inner);
  // Work units are (row, part of the row): whole rows when there are enough of them.
  const int64_t parts = rows >= team ? 1 : (team + rows - 1) / rows;
  const PlanUnits units{&plan, parts, (inner + parts - 1) / parts};
  ParallelFor(rows * parts, team, [&](int64_t begin, int64_t end) {
    RunUnitsOf(op, units, a, b, out, begin, end);
  });
}

class ElementwiseCpuKernel : public CpuKernel {
 public:
  ElementwiseCpuKernel(BinaryOpKind op, std::vector<BroadcastPlan> plans, int64_t out_count)
      : op_(op), plans_(std::move(plans)), out_count_(out_count) {}

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
    return Status::Ok();
  }

 private:
  BinaryOpKind op_;
  std::vector<BroadcastPlan> plans_;
  int64_t out_count_;
};

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
  IOS_ASSIGN_OR_RETURN(BinaryElementwise op, BinaryElementwiseOf(node.op_type));
  IOS_RETURN_IF_ERROR(CheckBinaryElementwise(op, context.input_types, context.output_types));
  if (op.op == BinaryOpKind::kPow) return std::unique_ptr<CpuKernel>();  // the reference
  for (const TensorType& type : context.input_types)
    if (type.dtype != DType::kFloat32) return std::unique_ptr<CpuKernel>();  // the reference
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
    return Stored(context.input_types[i].dims, layout(context.input_layout(i)),
                  i < batch.inputs.size() ? batch.inputs[i] : 0);
  };
  const StridedDims stored_out =
      Stored(out, layout(context.output_layout(0)), batch.outputs.empty() ? 0 : batch.outputs[0]);
  if (count == 1 && (batch.any() || !ElementwiseTakesLayouts(context)))
    return Internal("a one-input " + node.op_type + " cannot copy a strided view or a reorder");
  std::vector<BroadcastPlan> plans;
  // An empty output: nothing to compute (no plan, a copy of 0 bytes).
  if (NumElements(out) == 0) return std::unique_ptr<CpuKernel>(new ElementwiseCpuKernel(op.op, {}, 0));
  if (count >= 2) plans.push_back(PlanBroadcast(stored_out, input(0), input(1)));
  for (size_t i = 2; i < count; ++i)
    plans.push_back(PlanBroadcast(stored_out, stored_out, input(i)));
  for (const BroadcastPlan& plan : plans)
    if (plan.out_strides.back() != 1)
      return Internal(node.op_type + " '" + node.name + "': its output's inner dim is strided");
  return std::unique_ptr<CpuKernel>(
      new ElementwiseCpuKernel(op.op, std::move(plans), NumElements(out)));
}

}  // namespace ios
