// Per-element math of Cast, shared by the CUDA kernel and its host test. Every element goes
// through one intermediate value: an int64 for integer and bool sources, a double for float
// sources (float32, float64 and float16 are exact in double). That reproduces the reference
// kernel's conversions exactly:
//   - float to integer truncates toward zero; outside int64's range (and NaN) it gives
//     INT64_MIN, and narrower integers keep the low bits (wrap modulo 2^bits);
//   - integer to narrower integer keeps the low bits;
//   - anything to bool is x != 0;
//   - to float16 rounds once, to nearest even, from the double (integers convert to double
//     first, as the reference does); float16 to anything goes through its exact double.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/math/host_device.h"

namespace ios {

// The element types Cast converts between (the reference Cast's set).
enum class CastType : int32_t {
  kFloat32,
  kFloat64,
  kFloat16,
  kInt64,
  kInt32,
  kInt8,
  kUint8,
  kBool
};

// One element on its way from the source type to the target type.
struct CastValue {
  bool is_float = false;
  double f = 0.0;
  int64_t i = 0;
};

IOS_HD uint64_t DoubleToBits(double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

IOS_HD double BitsToDouble(uint64_t bits) {
  double value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

// IEEE half precision bits to double (exact).
IOS_HD double HalfToDouble(uint16_t half) {
  const uint64_t sign = static_cast<uint64_t>(half >> 15) << 63;
  const uint32_t exponent = (half >> 10) & 0x1f;
  const uint64_t mantissa = half & 0x3ff;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const double magnitude = static_cast<double>(mantissa) * 5.9604644775390625e-08;
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) {  // infinity or NaN
    return BitsToDouble(sign | 0x7ff0000000000000ull | (mantissa != 0 ? 0x8000000000000ull : 0));
  }
  return BitsToDouble(sign | (static_cast<uint64_t>(exponent - 15 + 1023) << 52) |
                      (mantissa << 42));
}

// Double to IEEE half precision bits, rounded once to nearest even; magnitudes from 65520 up
// become infinity, NaN becomes the quiet NaN 0x7e00 with the sign kept.
IOS_HD uint16_t DoubleToHalf(double value) {
  const uint64_t bits = DoubleToBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 63) << 15);
  const int32_t biased = static_cast<int32_t>((bits >> 52) & 0x7ff);
  const uint64_t fraction = bits & 0xfffffffffffffull;
  if (biased == 0x7ff) return static_cast<uint16_t>(sign | (fraction != 0 ? 0x7e00 : 0x7c00));
  if (biased == 0) return sign;      // zero, or a double subnormal: far below half's range
  int32_t exponent = biased - 1023;  // value = significand * 2^(exponent - 52)
  if (exponent >= 16) return static_cast<uint16_t>(sign | 0x7c00);
  if (exponent <= -26) return sign;  // below half the smallest subnormal: rounds to zero
  const uint64_t significand = fraction | (uint64_t{1} << 52);
  // The half's step is 2^(exponent - 10) for normals, 2^-24 for subnormals.
  const bool subnormal = exponent < -14;
  const int32_t shift = subnormal ? 28 - exponent : 42;  // log2(step) - (exponent - 52)
  uint64_t rounded = significand >> shift;
  const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
  const uint64_t halfway = uint64_t{1} << (shift - 1);
  if (rest > halfway || (rest == halfway && (rounded & 1) != 0)) ++rounded;
  if (subnormal) return static_cast<uint16_t>(sign | rounded);  // 1024 is the smallest normal
  if (rounded == 2048) {
    rounded = 1024;
    ++exponent;
  }
  if (exponent > 15) return static_cast<uint16_t>(sign | 0x7c00);
  return static_cast<uint16_t>(sign | ((exponent + 15) << 10) | (rounded - 1024));
}

// Element `index` of a buffer of type `type`.
IOS_HD CastValue LoadCastValue(CastType type, const void* data, int64_t index) {
  CastValue v;
  switch (type) {
    case CastType::kFloat32:
      v.is_float = true;
      v.f = static_cast<const float*>(data)[index];
      break;
    case CastType::kFloat64:
      v.is_float = true;
      v.f = static_cast<const double*>(data)[index];
      break;
    case CastType::kFloat16:
      v.is_float = true;
      v.f = HalfToDouble(static_cast<const uint16_t*>(data)[index]);
      break;
    case CastType::kInt64:
      v.i = static_cast<const int64_t*>(data)[index];
      break;
    case CastType::kInt32:
      v.i = static_cast<const int32_t*>(data)[index];
      break;
    case CastType::kInt8:
      v.i = static_cast<const int8_t*>(data)[index];
      break;
    case CastType::kUint8:
    case CastType::kBool:
      v.i = static_cast<const uint8_t*>(data)[index];
      break;
  }
  return v;
}

// The int64 a value converts to before an integer target keeps its low bits.
IOS_HD int64_t CastToWideInteger(const CastValue& v) {
  if (!v.is_float) return v.i;
  constexpr double kLimit = 9223372036854775808.0;  // 2^63
  return v.f > -kLimit && v.f < kLimit ? static_cast<int64_t>(v.f) : INT64_MIN;
}

// Writes the value as element `index` of a buffer of type `type`.
IOS_HD void StoreCastValue(CastType type, const CastValue& v, void* data, int64_t index) {
  switch (type) {
    case CastType::kFloat32:
      static_cast<float*>(data)[index] =
          v.is_float ? static_cast<float>(v.f) : static_cast<float>(v.i);
      break;
    case CastType::kFloat64:
      static_cast<double*>(data)[index] = v.is_float ? v.f : static_cast<double>(v.i);
      break;
    case CastType::kFloat16:
      static_cast<uint16_t*>(data)[index] =
          DoubleToHalf(v.is_float ? v.f : static_cast<double>(v.i));
      break;
    case CastType::kInt64:
      static_cast<int64_t*>(data)[index] = CastToWideInteger(v);
      break;
    case CastType::kInt32:
      static_cast<int32_t*>(data)[index] =
          static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(CastToWideInteger(v))));
      break;
    case CastType::kInt8:
      static_cast<int8_t*>(data)[index] =
          static_cast<int8_t>(static_cast<uint8_t>(static_cast<uint64_t>(CastToWideInteger(v))));
      break;
    case CastType::kUint8:
      static_cast<uint8_t*>(data)[index] =
          static_cast<uint8_t>(static_cast<uint64_t>(CastToWideInteger(v)));
      break;
    case CastType::kBool:
      static_cast<uint8_t*>(data)[index] = (v.is_float ? v.f != 0.0 : v.i != 0) ? 1 : 0;
      break;
  }
}

// dst[index] = Cast(src[index]).
IOS_HD void CastElement(CastType from, const void* src, CastType to, void* dst, int64_t index) {
  StoreCastValue(to, LoadCastValue(from, src, index), dst, index);
}

}  // namespace ios
