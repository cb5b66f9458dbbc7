// The CPU kernels of the ops that ran on the reference kernel until issue 50: Pow, Mod, Mean,
// the unary math ops, comparisons, Not, Where, Cast, Expand, Tile, ScatterND and Dropout. Each
// case runs through the one-node harness (cpu_kernel_case.h): the fast kernel (not the reference
// fallback) on one and two threads against the reference kernel, in the layouts plans give them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cpu_kernel_case.h"
#include "layout_shorthands.h"
#include "random_tensor.h"

namespace ios {
namespace {

using namespace cpu_testing;  // NOLINT: the harness of cpu_kernel_case.h
using testing::kCL;
using testing::kRM;
using testing::RandomFloats;

// The broadcasting pairs of the binary ops (as CpuKernelTest.BinaryBroadcasting).
const std::vector<std::pair<Dims, Dims>>& BroadcastShapes() {
  static const std::vector<std::pair<Dims, Dims>> shapes = {
      {{2, 6, 5, 7}, {2, 6, 5, 7}}, {{2, 6, 5, 7}, {1, 6, 1, 1}}, {{2, 6, 5, 7}, {}},
      {{}, {2, 6, 5, 7}},           {{2, 1, 5, 1}, {1, 6, 1, 7}}, {{1, 100000}, {1, 100000}},
      {{64, 3000}, {64, 1}},
  };
  return shapes;
}

TEST(CpuMoreOpsTest, Pow) {
  std::mt19937 rng(1101);
  for (const auto& [a, b] : BroadcastShapes()) {
    OneNodeCase c("Pow", 15);
    // Positive bases: a negative base to a fractional power is NaN on both sides.
    c.Input(RandomFloats(rng, a, 0.1f, 3.f)).Input(RandomFloats(rng, b, -3.f, 3.f));
    c.Check(Tolerance{1e-6, 1e-5});
  }
  for (float exponent : {2.f, 3.f, 0.5f}) {  // a constant scalar exponent; 2 runs as x * x
    OneNodeCase c("Pow", 15);
    const float lo = exponent == 0.5f ? 0.f : -3.f;  // a square root of a negative is NaN
    c.Input(RandomFloats(rng, {2, 6, 5, 7}, lo, 3.f)).Constant(Tensor::FromFloat({exponent}, {}));
    c.Check(exponent == 2.f ? kExact : Tolerance{1e-6, 1e-5});
  }
}

TEST(CpuMoreOpsTest, ModOnFloats) {
  std::mt19937 rng(1102);
  for (int64_t fmod : {0, 1}) {
    for (const auto& [a, b] : BroadcastShapes()) {
      OneNodeCase c("Mod", 13);
      c.Input(RandomFloats(rng, a, -10.f, 10.f)).Input(RandomFloats(rng, b, -3.f, 3.f));
      c.Attr("fmod", fmod);
      c.Check(kExact);
    }
  }
  // Signs, zeros, infinities and NaN, as numpy's mod (fmod 0) and C's fmod (fmod 1).
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {5.f, -5.f, 5.f, -5.f, 0.f, -0.f, 3.f, 3.f, -3.f, inf, nan, 4.f};
  const std::vector<float> y = {3.f, 3.f, -3.f, -3.f, 2.f, -2.f, 0.f, inf, inf, 2.f, 2.f, -2.f};
  for (int64_t fmod : {0, 1}) {
    OneNodeCase c("Mod", 13);
    c.Input(Tensor::FromFloat(x, {12})).Input(Tensor::FromFloat(y, {12})).Attr("fmod", fmod);
    c.Check(kExact);
  }
}

TEST(CpuMoreOpsTest, Mean) {
  std::mt19937 rng(1103);
  const std::vector<std::vector<Dims>> shapes = {
      {{2, 3, 4}},
      {{2, 3, 4}, {2, 3, 4}},
      {{2, 3, 4}, {3, 1}, {4}},
      {{1, 8, 1, 1}, {2, 8, 6, 6}, {2, 8, 6, 6}},
      {{1, 64, 30, 30}, {1, 64, 30, 30}, {1, 64, 30, 30}},  // two threads
  };
  for (const std::vector<Dims>& inputs : shapes) {
    OneNodeCase c("Mean", 13);
    for (const Dims& dims : inputs) c.Input(RandomFloats(rng, dims));
    c.Check(kElementwise);
  }
  // Channels-last, as after convs.
  OneNodeCase c("Mean", 13);
  c.Input(RandomFloats(rng, {1, 8, 5, 6})).Input(RandomFloats(rng, {1, 8, 5, 6}));
  c.Layouts({kCL, kCL}, {kCL});
  c.Check(kElementwise);
}

TEST(CpuMoreOpsTest, UnaryMath) {
  std::mt19937 rng(1104);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Special values: zeros of both signs, halves (Floor/Ceil), infinities, NaN.
  const Tensor special = Tensor::FromFloat(
      {0.f, -0.f, 0.5f, -0.5f, 1.5f, -1.5f, 2.f, 1e-30f, -1e30f, inf, -inf, nan}, {12});
  for (const char* op : {"Abs", "Neg", "Sqrt", "Exp", "Log", "Reciprocal", "Floor", "Ceil", "Erf"}) {
    const std::string name = op;
    // Sqrt and Log of negatives are NaN on both sides; Exp stays finite below 88.
    const bool positive = name == "Sqrt" || name == "Log";
    const float lo = positive ? 0.01f : -20.f;
    const Tolerance tolerance = name == "Exp" || name == "Log" || name == "Erf"
                                    ? Tolerance{1e-6, 1e-5}
                                    : kExact;
    for (const Dims& dims : {Dims{2, 6, 5, 7}, Dims{1, 100000}, Dims{}}) {
      OneNodeCase c(op, 13);
      c.Input(RandomFloats(rng, dims, lo, 20.f));
      c.Check(tolerance);
    }
    {  // channels-last, as after a conv
      OneNodeCase c(op, 13);
      c.Input(RandomFloats(rng, {1, 8, 5, 6}, lo, 20.f));
      c.Layouts({kCL}, {kCL});
      c.Check(tolerance);
    }
    {
      OneNodeCase c(op, 13);
      c.Input(special);
      c.Check(tolerance);
    }
  }
}

TEST(CpuMoreOpsTest, Not) {
  std::mt19937 rng(1105);
  for (const Dims& dims : {Dims{2, 6, 5, 7}, Dims{1, 100000}}) {
    Tensor x(DType::kBool, dims);
    for (int64_t i = 0; i < x.num_elements(); ++i) x.data<uint8_t>()[i] = rng() % 2;
    OneNodeCase c("Not", 13);
    c.Input(x);
    c.Check(kExact);
  }
}

}  // namespace
}  // namespace ios
