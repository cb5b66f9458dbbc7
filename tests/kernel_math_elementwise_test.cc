// The elementwise math the CUDA kernels run (kernels/math/broadcast_math.h, elementwise_math.h),
// executed on the host and compared with the reference kernels on random broadcast shapes.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernel_math_test_util.h"
#include "kernels/math/broadcast_math.h"
#include "kernels/math/elementwise_math.h"
#include "ops/op_util.h"

namespace ios {
namespace {

using namespace testing;  // NOLINT: the helpers of kernel_math_test_util.h

// out = op(a, b) through the operand maps, as BinaryKernel does per element.
Tensor BinaryThroughMaps(BinaryOpKind op, const Tensor& a, const Tensor& b, const Dims& out) {
  OperandMap a_map, b_map;
  EXPECT_TRUE(BuildOperandMap(a.dims(), out, &a_map));
  EXPECT_TRUE(BuildOperandMap(b.dims(), out, &b_map));
  Tensor y(DType::kFloat32, out);
  for (int64_t i = 0; i < y.num_elements(); ++i)
    y.data<float>()[i] = ApplyBinary(op, a.data<float>()[OperandOffset(a_map, i)],
                                     b.data<float>()[OperandOffset(b_map, i)]);
  return y;
}

TEST(KernelMathElementwiseTest, OperandPatterns) {
  const Dims out = {2, 3, 4, 5};
  struct Case {
    Dims in;
    OperandPattern pattern;
    int64_t inner;
    int64_t channels;
  };
  const std::vector<Case> cases = {
      {out, OperandPattern::kContiguous, 1, 1},
      {{1, 3, 4, 5}, OperandPattern::kChannel, 1, 60},  // repeats over the batch: i % 60
      {{3, 4, 5}, OperandPattern::kChannel, 1, 60},
      {{1, 3, 1, 1}, OperandPattern::kChannel, 20, 3},
      {{3, 1, 1}, OperandPattern::kChannel, 20, 3},
      {{5}, OperandPattern::kChannel, 1, 5},
      {{2, 3, 1, 1}, OperandPattern::kChannel, 20, 6},  // per (n, c)
      {{}, OperandPattern::kScalar, 1, 1},
      {{1, 1, 1, 1}, OperandPattern::kScalar, 1, 1},
      {{2, 1, 4, 1}, OperandPattern::kStrided, 1, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(DimsToString(c.in));
    OperandMap map;
    ASSERT_TRUE(BuildOperandMap(c.in, out, &map));
    EXPECT_EQ(map.pattern, c.pattern);
    if (c.pattern == OperandPattern::kChannel) {
      EXPECT_EQ(map.inner, c.inner);
      EXPECT_EQ(map.channels, c.channels);
    }
  }
  // The same shape up to leading 1s reads element i.
  OperandMap map;
  ASSERT_TRUE(BuildOperandMap({1, 1, 60}, {3, 4, 5}, &map));
  EXPECT_EQ(map.pattern, OperandPattern::kContiguous);
}

TEST(KernelMathElementwiseTest, BinaryOpsMatchTheReferenceOnRandomBroadcasts) {
  std::mt19937 rng(2024);
  const std::vector<std::pair<const char*, BinaryOpKind>> ops = {{"Add", BinaryOpKind::kAdd},
                                                                 {"Sub", BinaryOpKind::kSub},
                                                                 {"Mul", BinaryOpKind::kMul},
                                                                 {"Div", BinaryOpKind::kDiv},
                                                                 {"Pow", BinaryOpKind::kPow}};
  for (int trial = 0; trial < 60; ++trial) {
    const Dims full = RandomDims(rng, 0, 6, 5);
    Dims a_dims = BroadcastableFrom(rng, full);
    Dims b_dims = BroadcastableFrom(rng, full);
    if (trial % 2 == 1) std::swap(a_dims, b_dims);
    StatusOr<Dims> out = BroadcastDims(a_dims, b_dims);
    ASSERT_TRUE(out.ok());
    for (const auto& [name, op] : ops) {
      SCOPED_TRACE(std::string(name) + " " + DimsToString(a_dims) + " " + DimsToString(b_dims));
      const bool pow = op == BinaryOpKind::kPow;
      // Positive bases for Pow; divisors away from 0.
      const Tensor a = RandomFloats(rng, a_dims, pow ? 0.1f : -2.f, 2.f);
      const Tensor b = RandomFloats(rng, b_dims, 0.5f, 2.f);
      const Node node = MakeNode(name, 14);
      std::vector<Tensor> want = Reference(node, {&a, &b});
      // Pow: powf against the reference's double pow rounded to float.
      ExpectTensorsNear(want[0], BinaryThroughMaps(op, a, b, *out), 0.0, pow ? 1e-6 : 0.0);
    }
  }
}

// PRelu through the same maps: X keeps its shape, the slope broadcasts to it.
TEST(KernelMathElementwiseTest, PReluMatchesTheReference) {
  std::mt19937 rng(2025);
  for (int trial = 0; trial < 40; ++trial) {
    const Dims x_dims = RandomDims(rng, 0, 5, 5);
    const Dims slope_dims = BroadcastableFrom(rng, x_dims);
    SCOPED_TRACE(DimsToString(x_dims) + " slope " + DimsToString(slope_dims));
    const Tensor x = RandomFloats(rng, x_dims, -2.f, 2.f);
    const Tensor slope = RandomFloats(rng, slope_dims);
    const Tensor want = Reference(MakeNode("PRelu", 16), {&x, &slope})[0];
    ExpectTensorsNear(want, BinaryThroughMaps(BinaryOpKind::kPRelu, x, slope, x_dims), 0.0, 0.0);
  }
  EXPECT_EQ(ApplyBinary(BinaryOpKind::kPRelu, -2.f, 0.25f), -0.5f);
  EXPECT_EQ(ApplyBinary(BinaryOpKind::kPRelu, 3.f, 0.25f), 3.f);
  EXPECT_EQ(ApplyBinary(BinaryOpKind::kPRelu, 0.f, 5.f), 0.f);
}

// Sum, Max, Min fold left to right into the output (a contiguous operand from step 2 on).
TEST(KernelMathElementwiseTest, VariadicFoldsMatchTheReference) {
  std::mt19937 rng(77);
  const std::vector<std::pair<const char*, BinaryOpKind>> ops = {
      {"Sum", BinaryOpKind::kAdd}, {"Max", BinaryOpKind::kMax}, {"Min", BinaryOpKind::kMin}};
  for (int trial = 0; trial < 20; ++trial) {
    const Dims full = RandomDims(rng, 1, 4, 4);
    std::vector<Tensor> inputs;
    Dims out;
    for (int i = 0, n = static_cast<int>(RandomInt(rng, 2, 4)); i < n; ++i) {
      inputs.push_back(RandomFloats(rng, BroadcastableFrom(rng, full)));
      out = i == 0 ? inputs[0].dims() : BroadcastDims(out, inputs.back().dims()).value();
    }
    std::vector<const Tensor*> pointers;
    for (const Tensor& t : inputs) pointers.push_back(&t);
    for (const auto& [name, op] : ops) {
      SCOPED_TRACE(std::string(name) + " trial " + std::to_string(trial));
      Tensor acc = BinaryThroughMaps(op, inputs[0], inputs[1], out);
      for (size_t i = 2; i < inputs.size(); ++i) acc = BinaryThroughMaps(op, acc, inputs[i], out);
      ExpectTensorsNear(Reference(MakeNode(name, 13), pointers)[0], acc, 0.0, 0.0);
    }
  }
}

TEST(KernelMathElementwiseTest, UnaryOpsMatchTheReference) {
  std::mt19937 rng(5);
  const std::vector<std::pair<const char*, UnaryOpKind>> ops = {
      {"Neg", UnaryOpKind::kNeg},     {"Abs", UnaryOpKind::kAbs},
      {"Sqrt", UnaryOpKind::kSqrt},   {"Exp", UnaryOpKind::kExp},
      {"Log", UnaryOpKind::kLog},     {"Reciprocal", UnaryOpKind::kReciprocal},
      {"Floor", UnaryOpKind::kFloor}, {"Ceil", UnaryOpKind::kCeil}};
  for (const auto& [name, op] : ops) {
    SCOPED_TRACE(name);
    const bool positive = op == UnaryOpKind::kSqrt || op == UnaryOpKind::kLog;
    const Tensor x = RandomFloats(rng, {3, 7, 11}, positive ? 0.01f : -4.f, 4.f);
    Tensor y(DType::kFloat32, x.dims());
    for (int64_t i = 0; i < x.num_elements(); ++i)
      y.data<float>()[i] = ApplyUnary(op, x.data<float>()[i]);
    // libm's float functions against double ones rounded: within an ulp or two.
    ExpectTensorsNear(Reference(MakeNode(name, 13), {&x})[0], y, 1e-7, 1e-6);
  }
}

}  // namespace
}  // namespace ios
