// iosrun --bench on a GPU: the figures trtexec users expect (GPU compute time from CUDA events,
// host latency, enqueue time, throughput), on top of the CPU path's loop (benchmark.h). Built
// only with the CUDA backend.
#pragma once

#include <cstdint>
#include <string>

#include "iosrun/benchmark.h"
#include "iosrun/iosrun_options.h"
#include "runtime/cuda/cuda_session.h"
#include "util/latency_stats.h"
#include "util/status.h"

namespace ios {

struct CudaBenchResult {
  BenchResult host;  // host latency (enqueue to completion), throughput and walltime
  LatencySummary gpu_compute;
  LatencySummary enqueue;
  double total_gpu_compute_ms = 0;
  std::string device;       // "cuda:N"
  std::string device_name;  // the GPU's name
  bool cuda_graph = false;
  bool include_transfers = false;
};

// Times one inference after another on the session, whose inputs are already staged
// (CudaSession::SetInputs). Each inference: [input copies], start event, the inference, stop
// event, [output copies], then a wait for the origin stream.
StatusOr<CudaBenchResult> BenchmarkCuda(const IosrunOptions& options, CudaSession& session,
                                        const std::string& device_name);

std::string FormatCudaBenchReport(const CudaBenchResult& result, int64_t batch);
StatusOr<std::string> CudaBenchReportJson(const CudaBenchResult& result, int64_t batch,
                                          const std::string& schedule);

}  // namespace ios
