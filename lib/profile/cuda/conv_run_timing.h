// Times a conv with a given cuDNN algorithm in the call the session makes for it, so that iosc
// --conv-algorithms measure picks what runs fastest in the plan, not what runs fastest alone.
//
// cudnnFindConvolutionForwardAlgorithmEx times plain cudnnConvolutionForward. A conv with a
// bias and a ReLU runs cudnnConvolutionBiasActivationForward instead (kernels/conv_cuda.cc),
// and on an H100 (2026-11-27) plans whose algorithms came from cudnnFind alone ran 1.05-3.3
// times slower than with cuDNN's heuristic choice (docs/gpu-performance.md). So cudnnFind only
// proposes candidates; each is then timed here as ConvCudaKernel, created as the session
// creates it, on the measured layout's buffers.
//
// Timing, as the stage profiler (cuda_stage_profiler.h) times stages: a StreamBlocker holds the
// stream while `runs_per_sample` enqueues are queued between two timing events, so the runs go
// back to back on the device whatever the host's rate (a plan is one CUDA Graph, with no host
// in between); `samples` samples after `warmup_runs`, reduced to RobustMedian.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "iosplan.pb.h"
#include "ir/graph.h"
#include "runtime/cuda/cuda_streams.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"
#include "profile/cuda/stream_blocker.h"
#include "util/status.h"

namespace ios {

struct ConvRunBuffers {
  const void* x = nullptr;
  const void* w = nullptr;
  const void* bias = nullptr;  // null when the conv has none
  void* y = nullptr;           // as the session's y: the layout's offset and batch stride
};

struct ConvRunTimingOptions {
  int warmup_runs = 3;  // the first may also fall back from the fused call, as in a session
  int samples = 5;
  int runs_per_sample = 10;
};

// Timing events and the stream blocker, made once for many convs. The streams must outlive it.
class ConvRunTimer {
 public:
  static StatusOr<std::unique_ptr<ConvRunTimer>> Create();
  ~ConvRunTimer();
  ConvRunTimer(const ConvRunTimer&) = delete;
  ConvRunTimer& operator=(const ConvRunTimer&) = delete;

  // Milliseconds per run of conv `conv` of `graph` with `algorithm`, enqueued on stream 0 of
  // `streams` (its workspace grown to the kernel's need). `strides` are the batch strides of x
  // and y as the session derives them.
  StatusOr<double> Time(const Graph& graph, NodeId conv, const WindowBatchStrides& strides,
                        const plan::ConvAlgorithm& algorithm, bool allow_tf32,
                        CudaStreamSet& streams, const ConvRunBuffers& buffers,
                        const ConvRunTimingOptions& options = {});

 private:
  ConvRunTimer() = default;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  std::unique_ptr<StreamBlocker> blocker_;
};

}  // namespace ios
