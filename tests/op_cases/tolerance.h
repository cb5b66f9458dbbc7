// The one vocabulary of tolerances for comparing a backend's kernel with the reference kernel
// (tensor_compare.h): the CPU and CUDA one-node harnesses and the op case table use these names.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ios::testing {

// |got - reference| <= abs + rel * |reference| for every float element; other dtypes compare
// bytewise.
struct Tolerance {
  double abs = 1e-6;
  double rel = 1e-6;
};

// Data movement and selections (max, copies, comparisons) must be exact.
constexpr Tolerance kExact{0.0, 0.0};
// Elementwise arithmetic and activations: both sides compute in float with the same formula;
// libm's expf/tanhf against oneDNN or a reordered sum leave a few ulps.
constexpr Tolerance kElementwise{1e-6, 1e-5};
// Transcendental float math (exp, log, tanh, erf, pow) whose device versions are a few ulps
// from the reference's double formula.
constexpr Tolerance kFloatMath{1e-6, 2e-5};
// Float sums over a reduced axis (means, variances, softmax denominators) against the
// reference's double ones.
constexpr Tolerance kFloatSums{2e-5, 2e-5};
// Resize's linear and cubic taps: float weights and sums of values in [-1, 1].
constexpr Tolerance kInterpolation{5e-6, 1e-5};
// cuDNN's float32 accumulation order against the reference's double sums.
constexpr Tolerance kConvMath{1e-5, 1e-4};

// Conv and GEMM accumulate K = C/group * kernel products in float (the reference in double),
// in another order, over values in [-1, 1]. The rounding error of such a sum grows with K and
// with the terms' magnitude, not with the (possibly cancelled) result, so the absolute part
// scales with sqrt(K) (random-walk rounding): 1e-5 for K <= 1 up to ~4e-4 for K = 1600.
inline Tolerance DotTolerance(int64_t k) {
  return Tolerance{1e-5 * std::sqrt(static_cast<double>(std::max<int64_t>(k, 1))), 1e-4};
}

}  // namespace ios::testing
