// Comparing a run's outputs with reference outputs (iosrun --check), in the terms ML engineers
// use: per output, the absolute and relative error statistics, the error relative to the
// output's scale (max |got - expected| / max |expected|) and the cosine similarity, and a pass or
// fail under one of these rules (polygraphy's --check-error-stat and per-output tolerances are
// the convention followed):
//   allclose  every element: |got - expected| <= atol + rtol * |expected| (numpy.allclose; the
//             default, and the right one against a float64 reference or for exact kernels);
//   elemwise  every element: |got - expected| <= atol or its relative error <= rtol (polygraphy's
//             default: an element fails only when it exceeds both);
//   max, mean, median
//             that statistic of the absolute error <= atol, or that of the relative error <= rtol
//             (polygraphy's statistics; mean and median tolerate a few outliers);
//   scaled    max |got - expected| <= atol + rtol * max |expected|: the error against the output's
//             scale, which float32 rounding of large activations (or TF32) cannot exceed, while
//             a wrong kernel does.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

enum class ErrorStat { kAllClose, kElemwise, kMax, kMean, kMedian, kScaled };

StatusOr<ErrorStat> ErrorStatFromName(const std::string& name);
std::string ErrorStatName(ErrorStat stat);

// A value for every output, or per output by name ("" is the default), as polygraphy takes
// --atol out0:1e-3 1e-4.
template <typename T>
struct PerOutput {
  std::map<std::string, T> values;  // "" = every output not named
  T For(const std::string& output) const {
    auto it = values.find(output);
    return it != values.end() ? it->second : values.at("");
  }
};

struct OutputCheckOptions {
  PerOutput<double> atol{{{"", 1e-4}}};
  PerOutput<double> rtol{{{"", 1e-4}}};
  PerOutput<ErrorStat> stat{{{"", ErrorStat::kAllClose}}};
};

// Parses NAME:VALUE or VALUE (the default) for one of the per-output options into `into`.
Status ParsePerOutputTolerance(const std::string& spec, PerOutput<double>* into);
Status ParsePerOutputStat(const std::string& spec, PerOutput<ErrorStat>* into);

// InvalidInput naming a per-output setting for an output that is not among `names` (a typo
// would otherwise leave that output at the default silently).
Status CheckPerOutputNames(const OutputCheckOptions& options,
                           const std::vector<std::string>& names);

struct OutputCheck {
  std::string name;
  bool shapes_match = true;
  Dims got_dims, expected_dims;
  int64_t elements = 0;
  double max_abs = 0, mean_abs = 0, median_abs = 0;
  double max_rel = 0, mean_rel = 0, median_rel = 0;  // |d| / |expected|, 0 where both are 0
  double expected_scale = 0;                         // max |expected|
  double scaled_error = 0;                           // max_abs / expected_scale
  double cosine = 1;                                 // of got and expected as vectors
  int64_t worst = 0;                                 // the element furthest outside its allowance
  double worst_got = 0, worst_expected = 0;
  int64_t outside = 0;  // elements outside atol + rtol * |expected| (for every rule)
  double atol = 0, rtol = 0;
  ErrorStat stat = ErrorStat::kAllClose;
  bool passed = false;
};

// One OutputCheck per output, in order; `names` follows `got` (the plan's output names).
std::vector<OutputCheck> CheckOutputs(const std::vector<Tensor>& got,
                                      const std::vector<Tensor>& expected,
                                      const std::vector<std::string>& names,
                                      const OutputCheckOptions& options);

// A report line per output, and a last line if the counts differ.
std::string FormatOutputChecks(const std::vector<OutputCheck>& checks, size_t got_count,
                               size_t expected_count);

}  // namespace ios
