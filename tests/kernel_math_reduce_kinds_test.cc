// The reduction math the CUDA kernels run (kernels/math/reduction_math.h), executed on the host in
// float as the kernels do and compared with the reference kernels (double): every ReduceKind
// through the thread kernel's loop and through the block kernel's partial sums, LogSoftmax
// through SoftmaxOutput, ArgMax/ArgMin through ArgBetter.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernel_math_test_util.h"
#include "kernels/math/reduction_math.h"
#include "ops/reduce_params.h"

namespace ios {
namespace {

using namespace testing;  // NOLINT: the helpers of kernel_math_test_util.h

constexpr int kBlockThreads = 256;  // the block kernel's kThreadsPerBlock

// One output as ReduceThreadKernel computes it (`partials` 1), or as ReduceBlockKernel does:
// `partials` threads each fold every partials-th element, then their partials combine (the
// shuffle tree's order differs; any order must give the same result within rounding).
float ReduceOutput(ReduceKind kind, const ReducePlan& plan, const float* x, int64_t o,
                   int partials) {
  float shift = 0.f;
  if (ReduceNeedsShift(kind)) {
    shift = ReduceInit<float>(ReduceKind::kMax);
    for (int64_t r = 0; r < plan.reduced_count; ++r)
      shift = ReduceCombine(ReduceKind::kMax, shift, x[ReduceInputOffset(plan, o, r)]);
  }
  std::vector<float> partial(static_cast<size_t>(partials), ReduceInit<float>(kind));
  for (int64_t r = 0; r < plan.reduced_count; ++r) {
    float& acc = partial[static_cast<size_t>(r % partials)];
    acc = ReduceCombine(kind, acc, ReduceTerm(kind, x[ReduceInputOffset(plan, o, r)], shift));
  }
  float acc = ReduceInit<float>(kind);
  for (float p : partial) acc = ReduceCombine(kind, acc, p);
  return ReduceFinish(kind, acc, plan.reduced_count, shift);
}

TEST(KernelMathReduceKindsTest, EveryKindMatchesTheReference) {
  std::mt19937 rng(71);
  const char* const ops[] = {"ReduceMean", "ReduceSum",       "ReduceMax",
                             "ReduceMin",  "ReduceProd",      "ReduceL1",
                             "ReduceL2",   "ReduceSumSquare", "ReduceLogSumExp"};
  for (int trial = 0; trial < 30; ++trial) {
    const Dims dims = RandomDims(rng, 1, 5, 6);
    const int64_t rank = static_cast<int64_t>(dims.size());
    std::vector<int64_t> axes;
    for (int64_t d = 0; d < rank; ++d)
      if (RandomInt(rng, 0, 1) == 1) axes.push_back(RandomInt(rng, 0, 1) ? d : d - rank);
    AttributeMap attrs;
    attrs.Set("keepdims", RandomInt(rng, 0, 1));
    if (!axes.empty()) attrs.Set("axes", axes);
    for (const char* op : ops) {
      const std::string name = op;
      SCOPED_TRACE(name + " " + DimsToString(dims) + " axes " + DimsToString(axes));
      const Node node = MakeNode(op, 11, attrs);  // axes as an attribute for every op
      const bool prod = name == "ReduceProd";
      const Tensor x = RandomFloats(rng, dims, prod ? 0.8f : -3.f, prod ? 1.2f : 3.f);
      const Tensor want = Reference(node, {&x})[0];
      StatusOr<ReduceParams> params = ParseReduce(node, dims, false, nullptr);
      ASSERT_TRUE(params.ok()) << params.status().message();
      ReducePlan plan;
      ASSERT_TRUE(BuildReducePlan(dims, params->reduced, &plan));
      for (int partials : {1, kBlockThreads}) {
        Tensor got(DType::kFloat32, want.dims());
        for (int64_t o = 0; o < got.num_elements(); ++o)
          got.data<float>()[o] = ReduceOutput(params->kind, plan, x.data<float>(), o, partials);
        ExpectTensorsNear(want, got, 2e-6, 2e-5);
      }
    }
  }
}

TEST(KernelMathReduceKindsTest, EmptyReductionsAndNaNs) {
  ReducePlan nothing;
  nothing.reduced_count = 0;
  const float none[1] = {0.f};
  auto empty = [&](ReduceKind kind) { return ReduceOutput(kind, nothing, none, 0, 1); };
  EXPECT_EQ(empty(ReduceKind::kSum), 0.f);
  EXPECT_EQ(empty(ReduceKind::kProd), 1.f);
  EXPECT_EQ(empty(ReduceKind::kMax), -INFINITY);
  EXPECT_EQ(empty(ReduceKind::kMin), INFINITY);
  EXPECT_EQ(empty(ReduceKind::kLogSumExp), -INFINITY);
  EXPECT_EQ(empty(ReduceKind::kL2), 0.f);
  EXPECT_TRUE(std::isnan(empty(ReduceKind::kMean)));
  // A NaN wins Max and Min wherever it sits, as numpy's max; LogSumExp of -inf is -inf.
  EXPECT_TRUE(std::isnan(ReduceCombine(ReduceKind::kMax, 1.f, NAN)));
  EXPECT_TRUE(std::isnan(ReduceCombine(ReduceKind::kMax, NAN, 1.f)));
  EXPECT_TRUE(std::isnan(ReduceCombine(ReduceKind::kMin, NAN, -1.f)));
  EXPECT_EQ(ReduceFinish(ReduceKind::kLogSumExp, 0.f, 3, -INFINITY), -INFINITY);
  EXPECT_EQ(ReduceFinish(ReduceKind::kLogSumExp, 1.f, 3, INFINITY), INFINITY);
  // Large values do not overflow: log(e^100 + e^100) = 100 + log 2.
  EXPECT_NEAR(ReduceFinish(ReduceKind::kLogSumExp,
                           ReduceTerm(ReduceKind::kLogSumExp, 100.f, 100.f) * 2.f, 2, 100.f),
              100.0 + std::log(2.0), 1e-5);
}

TEST(KernelMathReduceKindsTest, LogSoftmaxMatchesTheReferenceInBothAxisForms) {
  std::mt19937 rng(72);
  for (int trial = 0; trial < 30; ++trial) {
    const Dims dims = RandomDims(rng, 1, 5, 6);
    const int64_t rank = static_cast<int64_t>(dims.size());
    const bool coerce_2d = trial % 2 == 1;
    const int64_t axis = RandomInt(rng, 0, rank - 1);
    SCOPED_TRACE(DimsToString(dims) + " axis " + std::to_string(axis));
    const Tensor x = RandomFloats(rng, dims, -20.f, 20.f);
    AttributeMap attrs;
    attrs.Set("axis", axis);
    const Tensor want = Reference(MakeNode("LogSoftmax", coerce_2d ? 11 : 13, attrs), {&x})[0];
    const SoftmaxShape shape = MakeSoftmaxShape(dims, axis, coerce_2d);
    Tensor got(DType::kFloat32, dims);
    const float* xd = x.data<float>();
    for (int64_t g = 0; g < shape.outer * shape.inner; ++g) {
      const int64_t base = SoftmaxGroupBase(shape, g);
      float group_max = -INFINITY, group_sum = 0.f;
      for (int64_t j = 0; j < shape.length; ++j)
        group_max = std::fmax(group_max, xd[base + j * shape.inner]);
      for (int64_t j = 0; j < shape.length; ++j)
        group_sum += expf(xd[base + j * shape.inner] - group_max);
      for (int64_t j = 0; j < shape.length; ++j)
        got.data<float>()[base + j * shape.inner] =
            SoftmaxOutput(true, xd[base + j * shape.inner], group_max, group_sum);
    }
    ExpectTensorsNear(want, got, 1e-5, 1e-6);
  }
}

TEST(KernelMathReduceKindsTest, ArgMaxAndArgMinMatchTheReferenceWithTies) {
  std::mt19937 rng(73);
  for (int trial = 0; trial < 40; ++trial) {
    const Dims dims = RandomDims(rng, 1, 4, 6);
    const int64_t rank = static_cast<int64_t>(dims.size());
    const int64_t axis = RandomInt(rng, -rank, rank - 1);
    const bool is_max = trial % 2 == 0;
    const bool last = (trial / 2) % 2 == 1;
    Tensor x(DType::kFloat32, dims);
    for (int64_t i = 0; i < x.num_elements(); ++i)
      x.data<float>()[i] = static_cast<float>(RandomInt(rng, 0, 3));  // ties
    AttributeMap attrs;
    attrs.Set("axis", axis);
    attrs.Set("select_last_index", int64_t{last ? 1 : 0});
    const Node node = MakeNode(is_max ? "ArgMax" : "ArgMin", 13, attrs);
    SCOPED_TRACE(node.op_type + " " + DimsToString(dims) + " axis " + std::to_string(axis));
    const Tensor want = Reference(node, {&x})[0];
    StatusOr<ArgReduceParams> params = ParseArgReduce(node, dims);
    ASSERT_TRUE(params.ok()) << params.status().message();
    const SoftmaxShape shape = MakeSoftmaxShape(dims, params->axis, false);
    Tensor got(DType::kInt64, want.dims());
    for (int64_t g = 0; g < shape.outer * shape.inner; ++g) {
      const float* xs = x.data<float>() + SoftmaxGroupBase(shape, g);
      int64_t best = 0;
      for (int64_t j = 1; j < shape.length; ++j)
        if (ArgBetter(is_max, last, xs[j * shape.inner], xs[best * shape.inner])) best = j;
      got.data<int64_t>()[g] = best;
    }
    ExpectTensorsNear(want, got, 0, 0);
  }
}

}  // namespace
}  // namespace ios
