// Random float32 tensors for tests: uniform in [lo, hi), from a caller's generator or a seed.
#pragma once

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

// Values in [-1, 1) from a generator seeded with `seed`.
inline Tensor RandomTensor(const Dims& dims, uint32_t seed) {
  std::mt19937 rng(seed);
  return RandomFloats(rng, dims);
}

}  // namespace ios::testing
