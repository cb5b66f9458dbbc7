// Random tensors for tests: float32 uniform in [lo, hi), from a caller's generator or a seed,
// and integers of any dtype.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "ir/tensor.h"

namespace ios::testing {

inline Tensor RandomFloats(std::mt19937& rng, const Dims& dims, float lo = -1.f, float hi = 1.f) {
  Tensor t(DType::kFloat32, dims);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

// Integers in [lo, hi] stored as `dtype`: float32, float64, int64, int32, int8, uint8, or bool
// (the lowest bit).
inline Tensor RandomIntegers(std::mt19937& rng, DType dtype, const Dims& dims, int64_t lo,
                             int64_t hi) {
  Tensor t(dtype, dims);
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const int64_t v = dist(rng);
    switch (dtype) {
      case DType::kFloat32:
        t.data<float>()[i] = static_cast<float>(v);
        break;
      case DType::kFloat64:
        t.data<double>()[i] = static_cast<double>(v);
        break;
      case DType::kInt64:
        t.data<int64_t>()[i] = v;
        break;
      case DType::kInt32:
        t.data<int32_t>()[i] = static_cast<int32_t>(v);
        break;
      case DType::kInt8:
        t.data<int8_t>()[i] = static_cast<int8_t>(v);
        break;
      case DType::kUint8:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
        break;
      case DType::kBool:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(v & 1);
        break;
      default:
        ADD_FAILURE() << "no integers of type " << DTypeName(dtype);
    }
  }
  return t;
}

// Values in [-1, 1) from a generator seeded with `seed`.
inline Tensor RandomTensor(const Dims& dims, uint32_t seed) {
  std::mt19937 rng(seed);
  return RandomFloats(rng, dims);
}

}  // namespace ios::testing
