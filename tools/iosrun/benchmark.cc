#include "iosrun/benchmark.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "util/json_print.h"

namespace ios {
namespace {

using Clock = std::chrono::steady_clock;

// Above this coefficient of variation the median is not a figure to quote.
constexpr double kUnstableCv = 0.05;

}  // namespace

StatusOr<BenchResult> Benchmark(const IosrunOptions& options, const std::function<Status()>& run) {
  const bool terminal = ::isatty(STDERR_FILENO);
  Clock::time_point warmup_start = Clock::now();
  do {
    IOS_RETURN_IF_ERROR(run());
  } while (MillisecondsSince(warmup_start) < options.warmup_ms);

  std::vector<double> samples;
  Clock::time_point start = Clock::now(), last_progress = start;
  while (static_cast<int>(samples.size()) < options.iterations ||
         MillisecondsSince(start) < options.duration_s * 1000) {
    Clock::time_point t0 = Clock::now();
    IOS_RETURN_IF_ERROR(run());
    samples.push_back(MillisecondsSince(t0));
    if (terminal && MillisecondsSince(last_progress) > 250) {
      std::fprintf(stderr, "\rbenchmarking: %zu runs, %.1f s", samples.size(),
                   MillisecondsSince(start) / 1000);
      last_progress = Clock::now();
    }
  }
  if (terminal) std::fprintf(stderr, "\r%60s\r", "");
  BenchResult result;
  result.total_seconds = MillisecondsSince(start) / 1000;
  result.latency = SummarizeLatencies(samples);
  result.throughput_qps = samples.size() / result.total_seconds;
  return result;
}

std::string FormatLatencyLine(const LatencySummary& l) {
  char text[512];
  std::snprintf(
      text, sizeof(text),
      "min = %.4f ms, max = %.4f ms, mean = %.4f ms, median = %.4f ms, "
      "percentile(90%%) = %.4f ms, percentile(95%%) = %.4f ms, percentile(99%%) = %.4f ms",
      l.min, l.max, l.mean, l.median, l.p90, l.p95, l.p99);
  return text;
}

std::string UnstableTimingWarning(const LatencySummary& l, const std::string& what) {
  if (l.coefficient_of_variation <= kUnstableCv) return "";
  char text[512];
  std::snprintf(text, sizeof(text),
                "[W] Unstable timing%s%s: the coefficient of variation is %.1f%% (above %.0f%%); "
                "the machine may be busy. Quote the median over several runs.\n",
                what.empty() ? "" : " of the ", what.c_str(), l.coefficient_of_variation * 100,
                kUnstableCv * 100);
  return text;
}

std::string FormatBenchReport(const BenchResult& r, int64_t batch) {
  const LatencySummary& l = r.latency;
  char text[256];
  std::string report = "=== Performance summary ===\n";
  std::snprintf(text, sizeof(text), "Throughput: %.3f qps (batch %lld: %.1f images/s)\n",
                r.throughput_qps, static_cast<long long>(batch), r.throughput_qps * batch);
  report += text;
  report += "Latency: " + FormatLatencyLine(l) + "\n";
  std::snprintf(text, sizeof(text), "Total Host Walltime: %.3f s\nTotal iterations: %d\n",
                r.total_seconds, l.count);
  report += text;
  return report + UnstableTimingWarning(l);
}

void FillLatencyMs(const LatencySummary& latency, proto::LatencyMs* out) {
  out->set_min(latency.min);
  out->set_max(latency.max);
  out->set_mean(latency.mean);
  out->set_median(latency.median);
  out->set_p90(latency.p90);
  out->set_p95(latency.p95);
  out->set_p99(latency.p99);
}

proto::BenchReport MakeBenchReport(const BenchResult& r, int64_t batch, const std::string& device,
                                   const std::string& schedule) {
  proto::BenchReport report;
  FillLatencyMs(r.latency, report.mutable_latency_ms());
  report.set_throughput_qps(r.throughput_qps);
  report.set_iterations(r.latency.count);
  report.set_batch(batch);
  report.set_images_per_second(r.throughput_qps * batch);
  report.set_device(device);
  report.set_schedule(schedule);
  report.set_coefficient_of_variation(r.latency.coefficient_of_variation);
  report.set_total_seconds(r.total_seconds);
  return report;
}

StatusOr<std::string> BenchReportJson(const BenchResult& r, int64_t batch,
                                      const std::string& device, const std::string& schedule) {
  return MessageToJson(MakeBenchReport(r, batch, device, schedule));
}

}  // namespace ios
