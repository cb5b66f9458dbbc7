// The --bench loop and its report, in the style of trtexec's performance summary.
#pragma once

#include <functional>
#include <string>

#include "iosrun/iosrun_options.h"
#include "util/latency_stats.h"
#include "util/status.h"

namespace ios {

struct BenchResult {
  LatencySummary latency;
  double throughput_qps = 0;
  double total_seconds = 0;
};

// Warms up for options.warmup_ms, then times `run` until both options.iterations runs and
// options.duration_s seconds are done. Shows progress on a terminal only.
StatusOr<BenchResult> Benchmark(const IosrunOptions& options, const std::function<Status()>& run);

std::string FormatBenchReport(const BenchResult& result, int64_t batch);
StatusOr<std::string> BenchReportJson(const BenchResult& result, int64_t batch,
                                      const std::string& device, const std::string& schedule);

}  // namespace ios
