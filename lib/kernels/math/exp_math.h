// exp, sigmoid and SiLU in float without a libm call, written so that a compiler vectorises a
// loop over them: no branches (only selects), no calls, no integer division. The CPU's
// standalone and post-conv Sigmoid and SiLU passes run them (runtime/cpu/kernels/activation_cpu.cc);
// libm's expf keeps such a loop scalar, and oneDNN 2.6's swish took 2-3x the memory-bound time.
//
// exp(x) = 2^n * exp(r): n = round(x / ln2), r = x - n ln2 in [-ln2/2, ln2/2] (ln2 split in two
// so that n ln2 is exact), exp(r) by its Taylor polynomial to r^7 (truncation below 1e-8
// relative), 2^n built in the exponent bits. Within a few ulp of exp over the whole float range,
// denormal results included (kernel_math_exp_test.cc); inf and 0 past overflow and underflow.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/math/host_device.h"

namespace ios {

IOS_HD float ExpPoly(float x) {
  const float kLog2e = 1.44269504088896341f;
  const float kLn2Hi = 0.693359375f;  // 355/512, ln 2's leading 9 bits: n * kLn2Hi is exact
  const float kLn2Lo = -2.12194440e-4f;  // ln 2 - kLn2Hi
  const float kRound = 12582912.f;  // 1.5 * 2^23: adding it rounds to an integer
  // exp overflows above kHi and is below the smallest denormal under kLo; outside them the result
  // is selected at the end, inside them 2^n is built as two normal halves (n in [-150, 128]).
  const float kHi = 88.7228391f;
  const float kLo = -103.972084f;
  float clamped = x < kLo ? kLo : x;  // NaN stays
  clamped = clamped > kHi ? kHi : clamped;
  const float shifted = clamped * kLog2e + kRound;
  const float n = shifted - kRound;
  const float r = (clamped - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.f / 5040.f;
  p = p * r + 1.f / 720.f;
  p = p * r + 1.f / 120.f;
  p = p * r + 1.f / 24.f;
  p = p * r + 1.f / 6.f;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  // n as an integer from `shifted`'s low mantissa bits (a float to int conversion would be
  // undefined for NaN, whose p is NaN anyway), in unsigned arithmetic.
  uint32_t shifted_bits;
  std::memcpy(&shifted_bits, &shifted, sizeof(shifted_bits));
  const uint32_t whole = shifted_bits - 0x4B400000u;  // kRound's bits
  const uint32_t half = static_cast<uint32_t>(static_cast<int32_t>(whole) >> 1);
  const uint32_t bits_a = (half + 127u) << 23;
  const uint32_t bits_b = (whole - half + 127u) << 23;
  float scale_a, scale_b;
  std::memcpy(&scale_a, &bits_a, sizeof(scale_a));
  std::memcpy(&scale_b, &bits_b, sizeof(scale_b));
  float y = (p * scale_a) * scale_b;  // denormal results round once more, at the last multiply
  // NaN fails every compare: it stays NaN through r and p.
  y = x > kHi ? INFINITY : y;
  y = x < kLo ? 0.f : y;
  return y;
}

IOS_HD float SigmoidPoly(float x) { return 1.f / (1.f + ExpPoly(-x)); }

// Mul(x, Sigmoid(x)) as exported: -inf gives NaN (-inf * 0), as the reference does.
IOS_HD float SiluPoly(float x) { return x * SigmoidPoly(x); }

}  // namespace ios
