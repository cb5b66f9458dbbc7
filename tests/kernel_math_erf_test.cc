// ErfPoly (kernels/math/erf_math.h) against erf in double over the whole float range and at its
// edges.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/math/erf_math.h"

namespace ios {
namespace {

float ErfTestFloat(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof(x));
  return x;
}

// The distance between two floats in units in the last place of the larger magnitude.
double ErfUlps(double got, double want) {
  const float magnitude = static_cast<float>(std::fabs(want));
  const double ulp = std::nextafter(magnitude, std::numeric_limits<float>::infinity()) - magnitude;
  return std::fabs(got - want) / ulp;
}

TEST(KernelMathErfTest, WithinThreeUlpOfErfOverEveryFloatStride) {
  double worst_ulps = 0.0;
  double worst_abs = 0.0;
  float worst_at = 0.f;
  int64_t checked = 0;
  // Every 997th bit pattern: all exponents and signs, about 4.3 million finite values.
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 997) {
    const float x = ErfTestFloat(static_cast<uint32_t>(bits));
    if (!std::isfinite(x)) continue;
    const double want = std::erf(static_cast<double>(x));
    const float got = ErfPoly(x);
    ASSERT_FALSE(std::isnan(got)) << "x = " << x;
    const double ulps = ErfUlps(got, want);
    if (ulps > worst_ulps) {
      worst_ulps = ulps;
      worst_at = x;
    }
    worst_abs = std::max(worst_abs, std::fabs(got - want));
    ++checked;
  }
  EXPECT_GT(checked, 4000000);
  EXPECT_LT(worst_ulps, 3.0) << "at x = " << worst_at;
  EXPECT_LT(worst_abs, 2e-7);
}

TEST(KernelMathErfTest, EdgesOfTheRange) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ErfPoly(0.f), 0.f);
  EXPECT_TRUE(std::signbit(ErfPoly(-0.f)));
  EXPECT_EQ(ErfPoly(inf), 1.f);
  EXPECT_EQ(ErfPoly(-inf), -1.f);
  EXPECT_EQ(ErfPoly(5.f), 1.f);
  EXPECT_EQ(ErfPoly(-100.f), -1.f);
  EXPECT_TRUE(std::isnan(ErfPoly(std::nanf(""))));
  // Either side of the two intervals' seam, and the odd symmetry.
  for (float x : {0.8999f, 0.9f, 0.9001f, 3.9199f, 3.92f, 1e-20f, 1e-3f}) {
    EXPECT_LT(ErfUlps(ErfPoly(x), std::erf(static_cast<double>(x))), 3.0) << x;
    EXPECT_EQ(ErfPoly(-x), -ErfPoly(x)) << x;
  }
}

}  // namespace
}  // namespace ios
