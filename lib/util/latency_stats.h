// Latency statistics in the style of trtexec's performance summary.
#pragma once

#include <string>
#include <vector>

namespace ios {

struct LatencySummary {
  int count = 0;
  double min = 0, max = 0, mean = 0, median = 0, p90 = 0, p95 = 0, p99 = 0;
  double stddev = 0;
  double coefficient_of_variation = 0;  // stddev / mean
};

// Percentiles use the nearest-rank method on the sorted samples (what trtexec reports).
LatencySummary SummarizeLatencies(std::vector<double> samples_ms);

// Median of a sample set after dropping values beyond `mad_limit` median absolute deviations
// (robust against the outliers a noisy machine produces). Empty input gives 0.
double RobustMedian(std::vector<double> samples, double mad_limit = 3.0);

// Whether `samples` settle their median, the CPU profiler's stopping rule: at least
// `min_samples` of them, and more than half within `tolerance` (relative) of RobustMedian. One
// sample spoiled by another process leaves three of four agreeing; a stage whose runs vary
// takes more samples.
bool MedianSettled(const std::vector<double>& samples, int min_samples, double tolerance);

}  // namespace ios
