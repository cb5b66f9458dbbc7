// ExpPoly, SigmoidPoly and SiluPoly (kernels/math/exp_math.h) against exp in double over the
// whole float range, at its edges, and through the CPU's vectorised loops (sigmoid_loops_cpu.h),
// whose every ISA clone must give what the scalar math gives.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/math/exp_math.h"
#include "runtime/cpu/kernels/sigmoid_loops_cpu.h"

namespace ios {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kFloatMin = 1.17549435e-38;  // the smallest normal float

float FromBits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof(x));
  return x;
}

TEST(KernelMathExpTest, WithinTwoUlpOfExpOverEveryFloatStride) {
  double worst = 0.0;
  float worst_at = 0.f;
  int64_t checked = 0;
  // Every 997th bit pattern: all exponents and signs, about 4.3 million finite values.
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 997) {
    const float x = FromBits(static_cast<uint32_t>(bits));
    if (!std::isfinite(x)) continue;
    const double want = std::exp(static_cast<double>(x));
    const float got = ExpPoly(x);
    if (want > std::numeric_limits<float>::max()) {
      ASSERT_EQ(got, kInf) << "x = " << x;
    } else if (want < kFloatMin) {  // denormal or zero: absolute error
      ASSERT_NEAR(got, want, 1.5e-38) << "x = " << x;
    } else {
      const double relative = std::fabs(got - want) / want;
      if (relative > worst) {
        worst = relative;
        worst_at = x;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000000);
  // 2 ulp of a float is 2.4e-7 relative at worst.
  EXPECT_LT(worst, 2.4e-7) << "at x = " << worst_at;
}

TEST(KernelMathExpTest, EdgesOfTheRange) {
  EXPECT_EQ(ExpPoly(0.f), 1.f);
  EXPECT_EQ(ExpPoly(kInf), kInf);
  EXPECT_EQ(ExpPoly(-kInf), 0.f);
  EXPECT_TRUE(std::isnan(ExpPoly(std::nanf(""))));
  EXPECT_EQ(ExpPoly(88.8f), kInf);  // past expf's overflow
  const double near_overflow = std::exp(static_cast<double>(88.72f));  // just below it: finite
  EXPECT_NEAR(ExpPoly(88.72f), near_overflow, near_overflow * 2.4e-7);
  EXPECT_NEAR(ExpPoly(-100.f), std::exp(-100.0), 1.5e-44);  // a denormal result
  EXPECT_EQ(ExpPoly(-110.f), 0.f);                          // below the smallest denormal
  EXPECT_NEAR(ExpPoly(1.f), 2.718281828459045, 2.718281828459045 * 2.4e-7);
}

// Below -88.72 exp(-x) overflows float, so that Sigmoid is 0 where the double formula gives a
// denormal (as the float reference, 1 / (1 + expf(-x)), does): an absolute margin covers it.
TEST(KernelMathExpTest, SigmoidAndSiluMatchTheDoubleFormula) {
  for (float x = -120.f; x <= 120.f; x += 0.0137f) {
    const double sigmoid = 1.0 / (1.0 + std::exp(-static_cast<double>(x)));
    EXPECT_NEAR(SigmoidPoly(x), sigmoid, 3e-7 * sigmoid + kFloatMin) << "x = " << x;
    EXPECT_NEAR(SiluPoly(x), x * sigmoid, 3e-7 * std::fabs(x * sigmoid) + 120 * kFloatMin)
        << "x = " << x;
  }
  EXPECT_EQ(SigmoidPoly(kInf), 1.f);
  EXPECT_EQ(SigmoidPoly(-kInf), 0.f);
  EXPECT_EQ(SiluPoly(kInf), kInf);
  EXPECT_TRUE(std::isnan(SiluPoly(-kInf)));  // -inf * 0, as Mul(x, Sigmoid(x)) gives
  EXPECT_TRUE(std::isnan(SigmoidPoly(std::nanf(""))));
}

// The loops run a clone picked by this CPU's features; each element must equal the scalar math
// (the same operations, only wider), in place and out of place, for lengths with vector tails.
TEST(KernelMathExpTest, CpuLoopsEqualTheScalarMath) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> wide(-110.f, 110.f);
  for (int64_t count : {0, 1, 7, 16, 33, 1000}) {
    std::vector<float> x(static_cast<size_t>(count));
    for (float& v : x) v = wide(rng);
    if (count >= 7) {
      x[1] = kInf;
      x[2] = -kInf;
      x[3] = std::nanf("");
      x[4] = 0.f;
    }
    std::vector<float> sigmoid(x.size()), silu(x.size());
    SigmoidLoop(x.data(), sigmoid.data(), count);
    SiluLoop(x.data(), silu.data(), count);
    std::vector<float> in_place = x;
    SiluLoop(in_place.data(), in_place.data(), count);
    for (size_t i = 0; i < x.size(); ++i) {
      SCOPED_TRACE("x = " + std::to_string(x[i]));
      if (std::isnan(SiluPoly(x[i]))) {
        EXPECT_TRUE(std::isnan(silu[i]));
        EXPECT_TRUE(std::isnan(in_place[i]));
      } else {
        EXPECT_FLOAT_EQ(silu[i], SiluPoly(x[i]));
        EXPECT_FLOAT_EQ(in_place[i], SiluPoly(x[i]));
      }
      if (std::isnan(SigmoidPoly(x[i])))
        EXPECT_TRUE(std::isnan(sigmoid[i]));
      else
        EXPECT_FLOAT_EQ(sigmoid[i], SigmoidPoly(x[i]));
    }
  }
}

}  // namespace
}  // namespace ios
