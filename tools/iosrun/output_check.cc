#include "iosrun/output_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ios {
namespace {

const std::pair<const char*, ErrorStat> kStats[] = {
    {"allclose", ErrorStat::kAllClose}, {"elemwise", ErrorStat::kElemwise},
    {"max", ErrorStat::kMax},           {"mean", ErrorStat::kMean},
    {"median", ErrorStat::kMedian},     {"scaled", ErrorStat::kScaled},
};

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<ptrdiff_t>(mid), values.end());
  return values[mid];
}

template <typename T, typename Parse>
Status ParsePerOutput(const std::string& spec, PerOutput<T>* into, Parse parse) {
  const size_t colon = spec.rfind(':');
  const std::string name = colon == std::string::npos ? "" : spec.substr(0, colon);
  const std::string value = colon == std::string::npos ? spec : spec.substr(colon + 1);
  IOS_ASSIGN_OR_RETURN(T parsed, parse(value));
  into->values[name] = parsed;
  return Status::Ok();
}

}  // namespace

StatusOr<ErrorStat> ErrorStatFromName(const std::string& name) {
  for (const auto& [text, stat] : kStats)
    if (name == text) return stat;
  return InvalidInput("'" + name +
                      "' is not an error statistic (allclose, elemwise, max, mean, median, "
                      "scaled)");
}

std::string ErrorStatName(ErrorStat stat) {
  for (const auto& [text, value] : kStats)
    if (value == stat) return text;
  return "?";
}

Status ParsePerOutputTolerance(const std::string& spec, PerOutput<double>* into) {
  return ParsePerOutput<double>(spec, into, [&](const std::string& text) -> StatusOr<double> {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !(value >= 0) || std::isinf(value))
      return InvalidInput("tolerance '" + spec + "': expected [OUTPUT:]VALUE with VALUE >= 0");
    return value;
  });
}

Status ParsePerOutputStat(const std::string& spec, PerOutput<ErrorStat>* into) {
  return ParsePerOutput<ErrorStat>(spec, into, ErrorStatFromName);
}

Status CheckPerOutputNames(const OutputCheckOptions& options,
                           const std::vector<std::string>& names) {
  std::string known;
  for (const std::string& name : names) known += (known.empty() ? "'" : ", '") + name + "'";
  auto check = [&](const auto& per_output, const char* flag) -> Status {
    for (const auto& entry : per_output.values) {
      if (entry.first.empty() || std::find(names.begin(), names.end(), entry.first) != names.end())
        continue;
      return InvalidInput(std::string(flag) + " names '" + entry.first +
                          "', which is not an output of the plan (its outputs: " + known + ")");
    }
    return Status::Ok();
  };
  IOS_RETURN_IF_ERROR(check(options.atol, "--atol"));
  IOS_RETURN_IF_ERROR(check(options.rtol, "--rtol"));
  return check(options.stat, "--check-error-stat");
}

std::vector<OutputCheck> CheckOutputs(const std::vector<Tensor>& got,
                                      const std::vector<Tensor>& expected,
                                      const std::vector<std::string>& names,
                                      const OutputCheckOptions& options) {
  std::vector<OutputCheck> checks;
  const size_t count = std::min(got.size(), expected.size());
  for (size_t o = 0; o < count; ++o) {
    OutputCheck c;
    c.name = o < names.size() ? names[o] : "output " + std::to_string(o);
    c.atol = options.atol.For(c.name);
    c.rtol = options.rtol.For(c.name);
    c.stat = options.stat.For(c.name);
    const Tensor& a = got[o];
    const Tensor& b = expected[o];
    c.got_dims = a.dims();
    c.expected_dims = b.dims();
    if (a.dims() != b.dims()) {
      c.shapes_match = false;
      checks.push_back(c);
      continue;
    }
    c.elements = a.num_elements();
    std::vector<double> abs_errors(static_cast<size_t>(c.elements));
    std::vector<double> rel_errors(static_cast<size_t>(c.elements));
    double dot = 0, got_norm = 0, expected_norm = 0, worst_excess = -INFINITY;
    bool elemwise_ok = true;
    for (int64_t i = 0; i < c.elements; ++i) {
      const double x = a.FloatAt(i), y = b.FloatAt(i);
      double err = std::fabs(x - y);
      if (std::isnan(x) || std::isnan(y)) err = (std::isnan(x) && std::isnan(y)) ? 0 : INFINITY;
      const double rel = err == 0 ? 0 : err / std::max(std::fabs(y), 1e-30);
      abs_errors[static_cast<size_t>(i)] = err;
      rel_errors[static_cast<size_t>(i)] = rel;
      c.max_abs = std::max(c.max_abs, err);
      c.max_rel = std::max(c.max_rel, rel);
      c.mean_abs += err;
      c.mean_rel += rel;
      if (std::isfinite(y)) c.expected_scale = std::max(c.expected_scale, std::fabs(y));
      if (std::isfinite(x) && std::isfinite(y)) {
        dot += x * y;
        got_norm += x * x;
        expected_norm += y * y;
      }
      const double excess = err - (c.atol + c.rtol * std::fabs(y));
      if (excess > 0) ++c.outside;
      if (err > c.atol && rel > c.rtol) elemwise_ok = false;
      if (excess > worst_excess) {
        worst_excess = excess;
        c.worst = i;
        c.worst_got = x;
        c.worst_expected = y;
      }
    }
    if (c.elements > 0) {
      c.mean_abs /= static_cast<double>(c.elements);
      c.mean_rel /= static_cast<double>(c.elements);
    }
    c.median_abs = Median(abs_errors);
    c.median_rel = Median(rel_errors);
    c.scaled_error =
        c.expected_scale > 0 ? c.max_abs / c.expected_scale : (c.max_abs > 0 ? INFINITY : 0);
    c.cosine = (got_norm > 0 && expected_norm > 0) ? dot / std::sqrt(got_norm * expected_norm)
                                                   : (got_norm == expected_norm ? 1.0 : 0.0);
    switch (c.stat) {
      case ErrorStat::kAllClose:
        c.passed = c.outside == 0;
        break;
      case ErrorStat::kElemwise:
        c.passed = elemwise_ok;
        break;
      case ErrorStat::kMax:
        c.passed = c.max_abs <= c.atol || c.max_rel <= c.rtol;
        break;
      case ErrorStat::kMean:
        c.passed = c.mean_abs <= c.atol || c.mean_rel <= c.rtol;
        break;
      case ErrorStat::kMedian:
        c.passed = c.median_abs <= c.atol || c.median_rel <= c.rtol;
        break;
      case ErrorStat::kScaled:
        c.passed = c.max_abs <= c.atol + c.rtol * c.expected_scale;
        break;
    }
    // NaN or infinity where the reference is finite never passes.
    if (!std::isfinite(c.max_abs)) c.passed = false;
    checks.push_back(c);
  }
  return checks;
}

std::string FormatOutputChecks(const std::vector<OutputCheck>& checks, size_t got_count,
                               size_t expected_count) {
  std::string report;
  char line[1024];
  for (size_t o = 0; o < checks.size(); ++o) {
    const OutputCheck& c = checks[o];
    if (!c.shapes_match) {
      report += "output " + std::to_string(o) + " '" + c.name + "': shape " +
                DimsToString(c.got_dims) + ", reference " + DimsToString(c.expected_dims) +
                ": MISMATCH\n";
      continue;
    }
    std::snprintf(line, sizeof(line),
                  "output %zu %s: %s, max abs error %.3g; worst element %lld: got %.9g, "
                  "expected %.9g; %lld of %lld elements outside atol %.3g + rtol %.3g\n"
                  "  '%s': abs error max %.3g mean %.3g median %.3g; rel error max %.3g mean "
                  "%.3g median %.3g; scale max|expected| %.3g, max abs error / scale %.3g; "
                  "cosine similarity %.9f; rule %s\n",
                  o, DimsToString(c.got_dims).c_str(), c.passed ? "ok" : "MISMATCH", c.max_abs,
                  static_cast<long long>(c.worst), c.worst_got, c.worst_expected,
                  static_cast<long long>(c.outside), static_cast<long long>(c.elements), c.atol,
                  c.rtol, c.name.c_str(), c.max_abs, c.mean_abs, c.median_abs, c.max_rel,
                  c.mean_rel, c.median_rel, c.expected_scale, c.scaled_error, c.cosine,
                  ErrorStatName(c.stat).c_str());
    report += line;
  }
  if (got_count != expected_count) {
    report += "the plan produced " + std::to_string(got_count) + " output(s), the reference has " +
              std::to_string(expected_count) + ": MISMATCH\n";
  }
  return report;
}

}  // namespace ios
