// Per-element math of Erf and GELU on float32, shared by the CPU kernels, the CUDA kernels and
// their host tests (the reference kernels compute the same formulas in double).
//   Gelu approximate="none": 0.5 x (1 + erf(x / sqrt(2)))
//   Gelu approximate="tanh": 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
#pragma once

#include <cmath>

#include "kernels/math/host_device.h"

namespace ios {

// Which formula a Gelu node uses (its `approximate` attribute).
enum class GeluApproximation : int32_t { kNone, kTanh };

IOS_HD float GeluErfValue(float x) {
  constexpr float kInvSqrt2 = 0.70710678118654752f;
  return 0.5f * x * (1.f + erff(x * kInvSqrt2));
}

IOS_HD float GeluTanhValue(float x) {
  constexpr float kSqrt2OverPi = 0.79788456080286536f;
  constexpr float kCubic = 0.044715f;
  return 0.5f * x * (1.f + tanhf(kSqrt2OverPi * (x + kCubic * x * x * x)));
}

IOS_HD float GeluValue(GeluApproximation approximation, float x) {
  return approximation == GeluApproximation::kTanh ? GeluTanhValue(x) : GeluErfValue(x);
}

}  // namespace ios
