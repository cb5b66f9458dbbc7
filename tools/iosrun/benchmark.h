// The --bench loop and its report, in the style of trtexec's performance summary.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "bench_report.pb.h"
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

// Wall time from `start` to now, in milliseconds.
inline double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string FormatBenchReport(const BenchResult& result, int64_t batch);
// "min = ... ms, max = ..., percentile(99%) = ... ms", as trtexec prints a latency line.
std::string FormatLatencyLine(const LatencySummary& latency);
// A warning line when the coefficient of variation of `latency` is above 5%, else "". `what`
// names the timing when a report has several ("GPU compute time").
std::string UnstableTimingWarning(const LatencySummary& latency, const std::string& what = "");

void FillLatencyMs(const LatencySummary& latency, proto::LatencyMs* out);
proto::BenchReport MakeBenchReport(const BenchResult& result, int64_t batch,
                                   const std::string& device, const std::string& schedule);
StatusOr<std::string> BenchReportJson(const BenchResult& result, int64_t batch,
                                      const std::string& device, const std::string& schedule);

}  // namespace ios
