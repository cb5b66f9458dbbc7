#include "util/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ios {
namespace {

double NearestRank(const std::vector<double>& sorted, double percent) {
  if (sorted.empty()) return 0;
  auto rank = static_cast<size_t>(std::ceil(percent / 100.0 * sorted.size()));
  rank = std::min(std::max<size_t>(rank, 1), sorted.size());
  return sorted[rank - 1];
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

LatencySummary SummarizeLatencies(std::vector<double> samples_ms) {
  LatencySummary s;
  if (samples_ms.empty()) return s;
  std::sort(samples_ms.begin(), samples_ms.end());
  s.count = static_cast<int>(samples_ms.size());
  s.min = samples_ms.front();
  s.max = samples_ms.back();
  s.mean = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / s.count;
  s.median = Median(samples_ms);
  s.p90 = NearestRank(samples_ms, 90);
  s.p95 = NearestRank(samples_ms, 95);
  s.p99 = NearestRank(samples_ms, 99);
  double sq = 0;
  for (double v : samples_ms) sq += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(sq / s.count);
  s.coefficient_of_variation = s.mean > 0 ? s.stddev / s.mean : 0;
  return s;
}

double RobustMedian(std::vector<double> samples, double mad_limit) {
  if (samples.empty()) return 0;
  double median = Median(samples);
  std::vector<double> deviations;
  for (double v : samples) deviations.push_back(std::fabs(v - median));
  double mad = Median(deviations);
  if (mad == 0) return median;
  std::vector<double> kept;
  for (double v : samples)
    if (std::fabs(v - median) <= mad_limit * mad) kept.push_back(v);
  return Median(kept);
}

bool MedianSettled(const std::vector<double>& samples, int min_samples, double tolerance) {
  if (samples.empty() || static_cast<int>(samples.size()) < min_samples) return false;
  const double median = RobustMedian(samples);
  size_t agreeing = 0;
  for (double v : samples) agreeing += std::fabs(v - median) <= tolerance * median ? 1 : 0;
  return 2 * agreeing > samples.size();
}

}  // namespace ios
