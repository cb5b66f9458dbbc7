#include "iosrun/cuda_benchmark.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <numeric>
#include <vector>

#include "util/json_print.h"

namespace ios {
namespace {

using Clock = std::chrono::steady_clock;

// Benchmark() also calls the inference during its warm-up: the timed runs are the last `count`.
std::vector<double> LastSamples(const std::vector<double>& samples, int count) {
  const size_t keep = std::min(samples.size(), static_cast<size_t>(count));
  return std::vector<double>(samples.end() - static_cast<std::ptrdiff_t>(keep), samples.end());
}

}  // namespace

StatusOr<CudaBenchResult> BenchmarkCuda(const IosrunOptions& options, CudaSession& session,
                                        const std::string& device_name) {
  const bool transfers = options.include_transfers;
  std::vector<double> compute_ms, enqueue_ms;
  auto one_inference = [&]() -> Status {
    Clock::time_point start = Clock::now();
    if (transfers) IOS_RETURN_IF_ERROR(session.EnqueueInputCopies());
    IOS_RETURN_IF_ERROR(session.RecordComputeStart());
    IOS_RETURN_IF_ERROR(session.Run());
    IOS_RETURN_IF_ERROR(session.RecordComputeStop());
    if (transfers) IOS_RETURN_IF_ERROR(session.EnqueueOutputCopies());
    enqueue_ms.push_back(MillisecondsSince(start));
    IOS_RETURN_IF_ERROR(session.Synchronize());
    IOS_ASSIGN_OR_RETURN(double compute, session.ComputeMilliseconds());
    compute_ms.push_back(compute);
    return Status::Ok();
  };
  CudaBenchResult result;
  IOS_ASSIGN_OR_RETURN(result.host, Benchmark(options, one_inference));
  const int timed = result.host.latency.count;
  std::vector<double> compute = LastSamples(compute_ms, timed);
  result.total_gpu_compute_ms = std::accumulate(compute.begin(), compute.end(), 0.0);
  result.gpu_compute = SummarizeLatencies(std::move(compute));
  result.enqueue = SummarizeLatencies(LastSamples(enqueue_ms, timed));
  result.device = "cuda:" + std::to_string(session.device());
  result.device_name = device_name;
  result.cuda_graph = session.uses_cuda_graph();
  result.include_transfers = transfers;
  return result;
}

std::string FormatCudaBenchReport(const CudaBenchResult& r, int64_t batch) {
  char text[512];
  std::string report = "=== Performance summary (" + r.device + ", " + r.device_name + ", " +
                       (r.cuda_graph ? "CUDA Graph" : "replayed commands, no CUDA Graph") +
                       ") ===\n";
  std::snprintf(text, sizeof(text), "Throughput: %.3f qps (batch %lld: %.1f images/s)\n",
                r.host.throughput_qps, static_cast<long long>(batch),
                r.host.throughput_qps * batch);
  report += text;
  report += "Latency: " + FormatLatencyLine(r.host.latency) + "\n";
  report += "Enqueue Time: " + FormatLatencyLine(r.enqueue) + "\n";
  report += "GPU Compute Time: " + FormatLatencyLine(r.gpu_compute) + "\n";
  report += r.include_transfers
                ? "Latency includes the H2D and D2H copies (--include-transfers)\n"
                : "Latency excludes the H2D and D2H copies (see --include-transfers)\n";
  std::snprintf(text, sizeof(text),
                "Total Host Walltime: %.3f s\nTotal GPU Compute Time: %.3f s\n"
                "Total iterations: %d\n",
                r.host.total_seconds, r.total_gpu_compute_ms / 1000, r.host.latency.count);
  report += text;
  // The GPU's own time is the figure to quote; when only the host side varies, say so too.
  std::string warning = UnstableTimingWarning(r.gpu_compute, "GPU compute time");
  if (warning.empty()) warning = UnstableTimingWarning(r.host.latency, "host latency");
  return report + warning;
}

StatusOr<std::string> CudaBenchReportJson(const CudaBenchResult& r, int64_t batch,
                                          const std::string& schedule) {
  proto::BenchReport report = MakeBenchReport(r.host, batch, r.device, schedule);
  proto::GpuBenchReport* gpu = report.mutable_gpu();
  gpu->set_device_name(r.device_name);
  gpu->set_cuda_graph(r.cuda_graph);
  gpu->set_include_transfers(r.include_transfers);
  FillLatencyMs(r.gpu_compute, gpu->mutable_gpu_compute_ms());
  FillLatencyMs(r.host.latency, gpu->mutable_host_latency_ms());
  FillLatencyMs(r.enqueue, gpu->mutable_enqueue_ms());
  gpu->set_gpu_compute_coefficient_of_variation(r.gpu_compute.coefficient_of_variation);
  return MessageToJson(report);
}

}  // namespace ios
