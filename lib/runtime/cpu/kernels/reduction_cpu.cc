// The reductions over axes (ReduceMean, ReduceSum, ReduceMax, ...) and ArgMax/ArgMin on float32,
// with the shared ReduceInit / ReduceTerm / ReduceCombine / ReduceFinish steps
// (kernels/math/reduction_math.h): sums and products accumulate in double, Max and Min in float.
//
// The input's dims, in the order its layout stores them (row-major or channels-last), merged
// where neighbours reduce or keep alike and lie contiguously, mostly come to one of two shapes,
// which run as loops along the contiguous dim, cloned per vector width:
//   - rows: the reduced dims are one contiguous run at the inner end (H and W of NCHW, the last
//     axis of [N, T, C]): each output reduces a row, in 16 interleaved partial results;
//   - columns: one reduced run between kept dims, the innermost kept (H and W of a channels-last
//     tensor after a conv: squeeze-excite's pooling as the dynamo exporter writes it): each
//     outer index reduces rows of its channels into a row of results.
// Every other reduction (and LogSumExp) walks the ReducePlan per output element. Walking every
// reduction so, the earlier kernel took 113 us for ReduceMean over H and W of 64x56x56 against
// onnxruntime's 9, and 350 us over the last axis of 8x196x384 against 19; and a channels-last
// input went through a layout adapter first. ArgMax/ArgMin compare in float (ArgBetter), as the
// CUDA kernel does. Axes computed at run time, other dtypes and plans past kMaxIndexRank run the
// reference kernel.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/math/reduction_math.h"
#include "ops/op_params.h"
#include "ops/reduce_params.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"

namespace ios {
namespace {

class ReduceCpuKernel : public CpuKernel {
 public:
  ReduceCpuKernel(ReduceKind kind, ReducePlan plan, int64_t out_count)
      : kind_(kind), plan_(plan), out_count_(out_count) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    const int64_t count = plan_.reduced_count;
    const int team = ThreadsForWork(threads, out_count_ * count);
    ParallelFor(out_count_, team, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) y[o] = ReduceOne(x, o);
    });
    return Status::Ok();
  }

 private:
  // The input offset of element r of output o's group (one stride when the reduced dims
  // collapse to one, the general map otherwise).
  int64_t Offset(int64_t base, int64_t r) const {
    if (plan_.reduced.rank == 1) return base + r * plan_.reduced.strides[0];
    return base + MapOffset(plan_.reduced, r);
  }

  float ReduceOne(const float* x, int64_t o) const {
    const int64_t base = MapOffset(plan_.kept, o);
    const int64_t count = plan_.reduced_count;
    double shift = 0.0;
    if (ReduceNeedsShift(kind_)) {
      shift = ReduceInit<double>(ReduceKind::kMax);
      for (int64_t r = 0; r < count; ++r)
        shift = ReduceCombine<double>(ReduceKind::kMax, shift, x[Offset(base, r)]);
    }
    double acc = ReduceInit<double>(kind_);
    for (int64_t r = 0; r < count; ++r)
      acc = ReduceCombine(kind_, acc, ReduceTerm<double>(kind_, x[Offset(base, r)], shift));
    return static_cast<float>(ReduceFinish(kind_, acc, count, shift));
  }

  ReduceKind kind_;
  ReducePlan plan_;
  int64_t out_count_;
};

// ---- Rows and columns along the contiguous dim -----------------------------------------------

// One merged dim of the input as stored: its size, its input stride and, for a kept dim, its
// output stride (elements).
struct StoredDim {
  int64_t size = 1;
  int64_t in_stride = 0;
  int64_t out_stride = 0;
  bool reduced = false;
};

// The kept dims outside the reduced run (outermost first) and the run itself.
struct StridedReduce {
  enum class Shape { kRows, kColumns } shape = Shape::kRows;
  std::vector<StoredDim> outer;  // kept, outside the run
  int64_t run = 1;               // elements reduced per output
  int64_t run_stride = 1;        // between them (1 for rows)
  int64_t inner = 1;             // columns: the kept innermost dim's size (stride 1 both sides)
};

template <typename Acc, ReduceKind kKind>
IOS_ALWAYS_INLINE float ReduceRow(const float* __restrict x, int64_t count) {
  constexpr int kLanes = 16;
  Acc lanes[kLanes];
  for (int l = 0; l < kLanes; ++l) lanes[l] = ReduceInit<Acc>(kKind);
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes)
    for (int l = 0; l < kLanes; ++l)
      lanes[l] = ReduceCombine<Acc>(kKind, lanes[l], ReduceTerm<Acc>(kKind, x[i + l], Acc(0)));
  Acc acc = ReduceInit<Acc>(kKind);
  for (int l = 0; l < kLanes; ++l) acc = ReduceCombine<Acc>(kKind, acc, lanes[l]);
  for (; i < count; ++i) acc = ReduceCombine<Acc>(kKind, acc, ReduceTerm<Acc>(kKind, x[i], Acc(0)));
  return static_cast<float>(ReduceFinish<Acc>(kKind, acc, count, Acc(0)));
}

// Columns: y[k] = reduce over r of x[r * stride + k], k < count. `acc` holds count values.
template <typename Acc, ReduceKind kKind>
IOS_ALWAYS_INLINE void ReduceColumns(const float* __restrict x, int64_t run, int64_t stride,
                                     int64_t count, Acc* __restrict acc, float* __restrict y) {
  for (int64_t k = 0; k < count; ++k) acc[k] = ReduceInit<Acc>(kKind);
  for (int64_t r = 0; r < run; ++r) {
    const float* row = x + r * stride;
    for (int64_t k = 0; k < count; ++k)
      acc[k] = ReduceCombine<Acc>(kKind, acc[k], ReduceTerm<Acc>(kKind, row[k], Acc(0)));
  }
  for (int64_t k = 0; k < count; ++k)
    y[k] = static_cast<float>(ReduceFinish<Acc>(kKind, acc[k], run, Acc(0)));
}

// The input and output offsets of outer index `o` (the kept dims outside the run).
IOS_ALWAYS_INLINE void OuterOffsets(const std::vector<StoredDim>& outer, int64_t o,
                                    int64_t* in_offset, int64_t* out_offset) {
  int64_t in = 0, out = 0;
  for (size_t d = outer.size(); d-- > 0;) {
    const int64_t index = o % outer[d].size;
    o /= outer[d].size;
    in += index * outer[d].in_stride;
    out += index * outer[d].out_stride;
  }
  *in_offset = in;
  *out_offset = out;
}

// Columns are reduced in blocks of this many, their partial results on the stack.
constexpr int64_t kColumnBlock = 256;

template <typename Acc, ReduceKind kKind>
IOS_ALWAYS_INLINE void StridedReduceUnits(const StridedReduce& plan, const float* x, float* y,
                                          int64_t begin, int64_t end) {
  if (plan.shape == StridedReduce::Shape::kRows) {
    for (int64_t o = begin; o < end; ++o) {
      int64_t in = 0, out = 0;
      OuterOffsets(plan.outer, o, &in, &out);
      y[out] = ReduceRow<Acc, kKind>(x + in, plan.run);
    }
    return;
  }
  Acc acc[kColumnBlock];
  const int64_t blocks = (plan.inner + kColumnBlock - 1) / kColumnBlock;
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t o = unit / blocks;
    const int64_t first = (unit % blocks) * kColumnBlock;
    int64_t in = 0, out = 0;
    OuterOffsets(plan.outer, o, &in, &out);
    ReduceColumns<Acc, kKind>(x + in + first, plan.run, plan.run_stride,
                              std::min(kColumnBlock, plan.inner - first), acc, y + out + first);
  }
}

// One thread's share, cloned per vector width.
IOS_VECTOR_CLONES void StridedReduceUnitsOf(ReduceKind kind, const StridedReduce& plan,
                                            const float* x, float* y, int64_t begin, int64_t end) {
  switch (kind) {
    case ReduceKind::kSum:
      return StridedReduceUnits<double, ReduceKind::kSum>(plan, x, y, begin, end);
    case ReduceKind::kMean:
      return StridedReduceUnits<double, ReduceKind::kMean>(plan, x, y, begin, end);
    case ReduceKind::kMax:
      return StridedReduceUnits<float, ReduceKind::kMax>(plan, x, y, begin, end);
    case ReduceKind::kMin:
      return StridedReduceUnits<float, ReduceKind::kMin>(plan, x, y, begin, end);
    case ReduceKind::kProd:
      return StridedReduceUnits<double, ReduceKind::kProd>(plan, x, y, begin, end);
    case ReduceKind::kL1:
      return StridedReduceUnits<double, ReduceKind::kL1>(plan, x, y, begin, end);
    case ReduceKind::kL2:
      return StridedReduceUnits<double, ReduceKind::kL2>(plan, x, y, begin, end);
    case ReduceKind::kSumSquare:
      return StridedReduceUnits<double, ReduceKind::kSumSquare>(plan, x, y, begin, end);
    case ReduceKind::kLogSumExp:
      return;  // never planned here (it needs the maximum first)
  }
}

class StridedReduceCpuKernel : public CpuKernel {
 public:
  StridedReduceCpuKernel(ReduceKind kind, StridedReduce plan, int64_t in_count)
      : kind_(kind), plan_(std::move(plan)), in_count_(in_count) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    int64_t outer = 1;
    for (const StoredDim& d : plan_.outer) outer *= d.size;
    const int64_t units = plan_.shape == StridedReduce::Shape::kRows
                              ? outer
                              : outer * ((plan_.inner + kColumnBlock - 1) / kColumnBlock);
    ParallelFor(units, ThreadsForWork(threads, in_count_), [&](int64_t begin, int64_t end) {
      StridedReduceUnitsOf(kind_, plan_, x, y, begin, end);
    });
    return Status::Ok();
  }

 private:
  ReduceKind kind_;
  StridedReduce plan_;
  int64_t in_count_;
};

// The rows or columns shape of a reduction of `x` stored in `layout`, or false when it is
// neither. `out` is the output's dims, row-major.
bool PlanStridedReduce(const Dims& x, Layout layout, const std::vector<bool>& reduced,
                       const Dims& out, StridedReduce* plan) {
  const Dims in_strides = LayoutStrides(x, layout);
  const Dims out_strides = RowMajorStrides(out);
  // Each kept input dim's output stride: with keepdims the output has the input's rank, else
  // the kept dims alone, in order.
  const bool keepdims = out.size() == x.size();
  std::vector<StoredDim> dims;
  size_t out_dim = 0;
  for (size_t d = 0; d < x.size(); ++d) {
    StoredDim dim{x[d], in_strides[d], 0, reduced[d]};
    if (!reduced[d]) dim.out_stride = out_strides[keepdims ? d : out_dim++];
    if (dim.size != 1) dims.push_back(dim);
  }
  std::stable_sort(dims.begin(), dims.end(), [](const StoredDim& a, const StoredDim& b) {
    return a.in_stride > b.in_stride;
  });
  std::vector<StoredDim> merged;
  for (const StoredDim& dim : dims) {
    if (!merged.empty()) {
      StoredDim& last = merged.back();
      if (last.reduced == dim.reduced && last.in_stride == dim.in_stride * dim.size &&
          (dim.reduced || last.out_stride == dim.out_stride * dim.size)) {
        last.size *= dim.size;
        last.in_stride = dim.in_stride;
        last.out_stride = dim.out_stride;
        continue;
      }
    }
    merged.push_back(dim);
  }
  int reduced_runs = 0;
  for (const StoredDim& dim : merged) reduced_runs += dim.reduced;
  if (reduced_runs != 1) return false;  // every element its own output, or several runs
  if (merged.back().reduced && merged.back().in_stride == 1) {
    plan->shape = StridedReduce::Shape::kRows;
    plan->run = merged.back().size;
    merged.pop_back();
    plan->outer = merged;
    return true;
  }
  if (merged.size() >= 2 && !merged.back().reduced && merged.back().in_stride == 1 &&
      merged.back().out_stride == 1 && merged[merged.size() - 2].reduced) {
    plan->shape = StridedReduce::Shape::kColumns;
    plan->inner = merged.back().size;
    plan->run = merged[merged.size() - 2].size;
    plan->run_stride = merged[merged.size() - 2].in_stride;
    merged.resize(merged.size() - 2);
    plan->outer = merged;
    return true;
  }
  return false;
}

// A reduction with no axes and noop_with_empty_axes=1.
class ReduceIdentityCpuKernel : public CpuKernel {
 public:
  explicit ReduceIdentityCpuKernel(size_t bytes) : bytes_(bytes) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    if (bytes_ > 0 && inputs[0] != outputs[0]) std::memcpy(outputs[0], inputs[0], bytes_);
    return Status::Ok();
  }

 private:
  size_t bytes_;
};

class ArgReduceCpuKernel : public CpuKernel {
 public:
  ArgReduceCpuKernel(SoftmaxShape shape, bool is_max, bool select_last)
      : shape_(shape), is_max_(is_max), select_last_(select_last) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    int64_t* y = static_cast<int64_t*>(outputs[0]);
    const int64_t groups = shape_.outer * shape_.inner;
    const int team = ThreadsForWork(threads, groups * shape_.length);
    ParallelFor(groups, team, [&](int64_t begin, int64_t end) {
      for (int64_t g = begin; g < end; ++g) {
        const float* xs = x + SoftmaxGroupBase(shape_, g);
        int64_t best = 0;
        float best_value = xs[0];
        for (int64_t j = 1; j < shape_.length; ++j) {
          const float v = xs[j * shape_.inner];
          if (ArgBetter(is_max_, select_last_, v, best_value)) {
            best = j;
            best_value = v;
          }
        }
        y[g] = best;
      }
    });
    return Status::Ok();
  }

 private:
  SoftmaxShape shape_;
  bool is_max_;
  bool select_last_;
};

bool Float32In(const CpuKernelContext& context) {
  return !context.input_types.empty() && !context.output_types.empty() &&
         context.input_types[0].dtype == DType::kFloat32;
}

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateReduceCpuKernel(const CpuKernelContext& context) {
  if (!Float32In(context) || context.output_types[0].dtype != DType::kFloat32)
    return std::unique_ptr<CpuKernel>();  // the reference
  const Node& node = *context.node;
  const Dims& x = context.input_types[0].dims;
  const bool axes_present =
      context.input_types.size() > 1 && node.inputs.size() > 1 && node.inputs[1] != kNoValue;
  const Tensor* axes = context.constants.size() > 1 ? context.constants[1] : nullptr;
  StatusOr<ReduceParams> params = ParseReduce(node, x, axes_present, axes);
  if (!params.ok()) {
    if (params.status().code() == StatusCode::kUnsupported) return std::unique_ptr<CpuKernel>();
    return params.status();
  }
  IOS_RETURN_IF_ERROR(CheckPlannedOutput(params->out_dims, context.output_types[0].dims));
  if (params->identity)
    return std::unique_ptr<CpuKernel>(
        new ReduceIdentityCpuKernel(static_cast<size_t>(NumElements(x)) * sizeof(float)));
  if (context.any_channels_blocked() || context.batch_strides.any())
    return Internal("a reduction takes no blocked tensors or strided views");
  StridedReduce strided;
  if (params->kind != ReduceKind::kLogSumExp && NumElements(x) > 0 &&
      PlanStridedReduce(x, context.input_layout(0), params->reduced, params->out_dims, &strided))
    return std::unique_ptr<CpuKernel>(
        new StridedReduceCpuKernel(params->kind, std::move(strided), NumElements(x)));
  // The walk per output element reads the input row-major.
  if (context.input_layout(0) != Layout::kRowMajor && !ChannelsLastIsRowMajor(x))
    return Internal("a reduction of a channels-last tensor must be rows or columns");
  ReducePlan plan;
  if (!BuildReducePlan(x, params->reduced, &plan)) return std::unique_ptr<CpuKernel>();
  return std::unique_ptr<CpuKernel>(
      new ReduceCpuKernel(params->kind, plan, NumElements(params->out_dims)));
}

bool ReduceTakesLayouts(const CpuKernelContext& context) {
  if (context.any_channels_blocked() || context.input_types.empty() ||
      context.output_types.empty())
    return false;
  // The output row-major (or the same bytes), and a channels-last input only where the rows or
  // columns shape takes it (the per-element walk reads row-major).
  const Dims& out = context.output_types[0].dims;
  if (context.output_layout(0) != Layout::kRowMajor && !ChannelsLastIsRowMajor(out)) return false;
  const Dims& x = context.input_types[0].dims;
  if (context.input_layout(0) == Layout::kRowMajor || ChannelsLastIsRowMajor(x)) return true;
  const Node& node = *context.node;
  const bool axes_present =
      context.input_types.size() > 1 && node.inputs.size() > 1 && node.inputs[1] != kNoValue;
  const Tensor* axes = context.constants.size() > 1 ? context.constants[1] : nullptr;
  StatusOr<ReduceParams> params = ParseReduce(node, x, axes_present, axes);
  StridedReduce strided;
  return params.ok() && !params->identity && params->kind != ReduceKind::kLogSumExp &&
         PlanStridedReduce(x, context.input_layout(0), params->reduced, params->out_dims,
                           &strided);
}

StatusOr<std::unique_ptr<CpuKernel>> CreateArgReduceCpuKernel(const CpuKernelContext& context) {
  if (!Float32In(context)) return std::unique_ptr<CpuKernel>();  // the reference
  const Dims& x = context.input_types[0].dims;
  IOS_ASSIGN_OR_RETURN(ArgReduceParams params, ParseArgReduce(*context.node, x));
  IOS_RETURN_IF_ERROR(CheckPlannedOutput(params.out_dims, context.output_types[0].dims));
  if (context.output_types[0].dtype != DType::kInt64)
    return InvalidInput("output type " + DTypeName(context.output_types[0].dtype) +
                        "; ArgMax and ArgMin give int64");
  return std::unique_ptr<CpuKernel>(new ArgReduceCpuKernel(
      MakeSoftmaxShape(x, params.axis, false), params.is_max, params.select_last_index));
}

}  // namespace ios
