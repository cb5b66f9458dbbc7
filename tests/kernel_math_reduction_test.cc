// The Softmax, ReduceMean and BatchNormalization math the CUDA kernels run
// (kernels/math/reduction_math.h), executed on the host in float as the kernels do and compared
// with the reference kernels (double) on random shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "kernel_math_test_util.h"
#include "kernels/math/reduction_math.h"

namespace ios {
namespace {

using namespace testing;  // NOLINT: the helpers of kernel_math_test_util.h

// Softmax group by group through SoftmaxGroupBase, as the strided CUDA kernel does.
Tensor SoftmaxThroughShape(const SoftmaxShape& shape, const Tensor& x) {
  Tensor y(DType::kFloat32, x.dims());
  const float* xd = x.data<float>();
  float* yd = y.data<float>();
  for (int64_t g = 0; g < shape.outer * shape.inner; ++g) {
    const int64_t base = SoftmaxGroupBase(shape, g);
    float group_max = -INFINITY;
    for (int64_t j = 0; j < shape.length; ++j)
      group_max = std::fmax(group_max, xd[base + j * shape.inner]);
    float group_sum = 0.f;
    for (int64_t j = 0; j < shape.length; ++j)
      group_sum += expf(xd[base + j * shape.inner] - group_max);
    for (int64_t j = 0; j < shape.length; ++j)
      yd[base + j * shape.inner] = SoftmaxValue(xd[base + j * shape.inner], group_max, group_sum);
  }
  return y;
}

TEST(KernelMathReductionTest, SoftmaxMatchesTheReferenceInBothAxisForms) {
  std::mt19937 rng(41);
  for (int trial = 0; trial < 40; ++trial) {
    const Dims dims = RandomDims(rng, 1, 5, 6);
    const int64_t rank = static_cast<int64_t>(dims.size());
    const bool coerce_2d = trial % 2 == 1;
    const int64_t opset = coerce_2d ? 11 : 13;
    // Opset 11 also accepts axis == rank (every element its own row).
    const int64_t attr_axis = RandomInt(rng, -rank, coerce_2d ? rank : rank - 1);
    SCOPED_TRACE(DimsToString(dims) + " opset " + std::to_string(opset) + " axis " +
                 std::to_string(attr_axis));
    const Tensor x = RandomFloats(rng, dims, -5.f, 5.f);
    AttributeMap attrs;
    attrs.Set("axis", attr_axis);
    const Tensor want = Reference(MakeNode("Softmax", opset, attrs), {&x})[0];
    const int64_t axis = attr_axis < 0 ? attr_axis + rank : attr_axis;
    ExpectTensorsNear(want, SoftmaxThroughShape(MakeSoftmaxShape(dims, axis, coerce_2d), x), 1e-7,
                      1e-5);
  }
  // A classifier head: 1000 classes in one row.
  const Tensor x = RandomFloats(rng, {2, 1000}, -8.f, 8.f);
  const Tensor want = Reference(MakeNode("Softmax", 13), {&x})[0];
  ExpectTensorsNear(want, SoftmaxThroughShape(MakeSoftmaxShape({2, 1000}, 1, false), x), 1e-7,
                    1e-5);
}

TEST(KernelMathReductionTest, ReduceMeanMatchesTheReference) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 50; ++trial) {
    const Dims dims = RandomDims(rng, 1, 5, 6);
    const int64_t rank = static_cast<int64_t>(dims.size());
    std::vector<int64_t> axes;
    std::vector<bool> reduced(rank, false);
    for (int64_t d = 0; d < rank; ++d) {
      if (RandomInt(rng, 0, 1) == 0) continue;
      axes.push_back(RandomInt(rng, 0, 1) ? d : d - rank);
      reduced[d] = true;
    }
    if (axes.empty()) reduced.assign(rank, true);  // no axes: all of them
    const int64_t keepdims = RandomInt(rng, 0, 1);
    SCOPED_TRACE(DimsToString(dims) + " axes " + DimsToString(axes) + " keepdims " +
                 std::to_string(keepdims));
    const Tensor x = RandomFloats(rng, dims);
    AttributeMap attrs;
    attrs.Set("keepdims", keepdims);
    if (!axes.empty()) attrs.Set("axes", axes);
    const Tensor want = Reference(MakeNode("ReduceMean", 13, attrs), {&x})[0];
    ReducePlan plan;
    ASSERT_TRUE(BuildReducePlan(dims, reduced, &plan));
    Tensor got(DType::kFloat32, want.dims());
    for (int64_t o = 0; o < got.num_elements(); ++o) {
      float sum = 0.f;
      for (int64_t r = 0; r < plan.reduced_count; ++r)
        sum += x.data<float>()[ReduceInputOffset(plan, o, r)];
      got.data<float>()[o] = MeanOf(sum, plan.reduced_count);
    }
    ExpectTensorsNear(want, got, 1e-6, 1e-5);
  }
}

TEST(KernelMathReductionTest, MeanOfNothingIsNan) { EXPECT_TRUE(std::isnan(MeanOf(0.f, 0))); }

TEST(KernelMathReductionTest, BatchNormMatchesTheReference) {
  std::mt19937 rng(43);
  for (int trial = 0; trial < 20; ++trial) {
    Dims dims = RandomDims(rng, 2, 5, 6);
    const int64_t channels = dims[1];
    SCOPED_TRACE(DimsToString(dims));
    const Tensor x = RandomFloats(rng, dims, -3.f, 3.f);
    const Tensor scale = RandomFloats(rng, {channels}, 0.5f, 2.f);
    const Tensor bias = RandomFloats(rng, {channels});
    const Tensor mean = RandomFloats(rng, {channels});
    const Tensor var = RandomFloats(rng, {channels}, 0.1f, 2.f);
    AttributeMap attrs;
    attrs.Set("epsilon", 1e-3f);
    const Tensor want =
        Reference(MakeNode("BatchNormalization", 15, attrs), {&x, &scale, &bias, &mean, &var})[0];
    int64_t inner = 1;
    for (size_t d = 2; d < dims.size(); ++d) inner *= dims[d];
    Tensor got(DType::kFloat32, dims);
    for (int64_t i = 0; i < got.num_elements(); ++i) {
      const int64_t c = ChannelOf(i, inner, channels);
      got.data<float>()[i] =
          BatchNormValue(x.data<float>()[i], scale.data<float>()[c], bias.data<float>()[c],
                         mean.data<float>()[c], var.data<float>()[c], 1e-3f);
    }
    ExpectTensorsNear(want, got, 1e-6, 1e-5);
  }
}

}  // namespace
}  // namespace ios
