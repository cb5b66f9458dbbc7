// The reductions over axes (ReduceMean, ReduceSum, ReduceMax, ...) and ArgMax/ArgMin on float32.
// A reduction walks the ReducePlan (kernels/math/reduction_math.h: the kept dims pick the output
// element, the reduced dims the elements it combines) with the shared ReduceInit / ReduceTerm /
// ReduceCombine / ReduceFinish steps, accumulating in double; outputs are split over the
// threads. ArgMax/ArgMin compare in float (ArgBetter), as the CUDA kernel does. Axes computed at
// run time, other dtypes and plans past kMaxIndexRank run the reference kernel.
#include <cstring>
#include <string>
#include <vector>

#include "kernels/math/reduction_math.h"
#include "ops/op_params.h"
#include "ops/reduce_params.h"
#include "runtime/cpu/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"

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
  ReducePlan plan;
  if (!BuildReducePlan(x, params->reduced, &plan)) return std::unique_ptr<CpuKernel>();
  return std::unique_ptr<CpuKernel>(
      new ReduceCpuKernel(params->kind, plan, NumElements(params->out_dims)));
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
