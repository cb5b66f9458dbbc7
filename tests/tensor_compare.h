// Comparing a computed tensor with the reference's, for the kernel tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/tensor.h"

namespace ios::testing {

// |got - want| <= abs + rel * |want| for every float element (NaN matches NaN, an infinity
// itself); other dtypes must match bytewise. Shapes must be equal. Reports the first mismatches and
// the worst error.
inline void ExpectTensorsNear(const Tensor& want, const Tensor& got, double abs, double rel) {
  ASSERT_EQ(want.dtype(), got.dtype());
  ASSERT_EQ(want.dims(), got.dims())
      << DimsToString(want.dims()) << " vs " << DimsToString(got.dims());
  if (want.dtype() != DType::kFloat32) {
    // memcmp's pointers must not be null even for 0 bytes (an empty tensor has no storage).
    if (want.num_bytes() > 0) {
      EXPECT_EQ(std::memcmp(want.raw(), got.raw(), want.num_bytes()), 0);
    }
    return;
  }
  int mismatches = 0;
  double worst = 0.0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double w = want.data<float>()[i];
    const double g = got.data<float>()[i];
    if (std::isnan(w) && std::isnan(g)) continue;
    if (w == g) continue;  // equal infinities too, whose difference is NaN
    const double error = std::fabs(w - g);
    const double bound = abs + rel * std::fabs(w);
    worst = std::max(worst, error);
    if (!(error <= bound) && ++mismatches <= 5)
      ADD_FAILURE() << "element " << i << ": reference " << w << ", got " << g << " (error "
                    << error << " > " << bound << ")";
  }
  EXPECT_EQ(mismatches, 0) << "of " << want.num_elements() << ", worst error " << worst;
}

// The largest |a - b| over two float tensors of one shape (infinity, and a failure, if their
// shapes differ).
inline float MaxAbsDiff(const Tensor& a, const Tensor& b) {
  if (a.dims() != b.dims()) {
    ADD_FAILURE() << "shapes differ: " << DimsToString(a.dims()) << " and "
                  << DimsToString(b.dims());
    return std::numeric_limits<float>::infinity();
  }
  float worst = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i)
    worst = std::max(worst, std::fabs(a.data<float>()[i] - b.data<float>()[i]));
  return worst;
}

}  // namespace ios::testing
