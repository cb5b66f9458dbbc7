// Putting a backend-neutral CommandList (runtime/command_list.h) onto CUDA streams, in the
// single-thread issue order of runtime/issue_order.h: kRunOp enqueues the op's kernel on its
// stream, kRecordEvent is cudaEventRecord, kWaitEvent is cudaStreamWaitEvent.
//   - ReplayCommands issues the list directly (iosrun --no-cuda-graph).
//   - CaptureCommands issues it inside a stream capture started on the origin stream and
//     instantiates the captured graph once; the other streams join the capture through the
//     origin's fork events and are joined back before the capture ends (the list's shape,
//     checked by CheckCaptureSequence). No default-stream use and no synchronising call happen
//     inside the capture.
//   - RunOnceThenCapture is what the session and the stage profiler use: the list runs once,
//     directly, and is waited for before it is captured. cuDNN, cuBLAS and the CUDA runtime do
//     one-time work on first use (loading kernel modules lazily, building heuristics caches,
//     a fused conv that cuDNN declines and that falls back to separate calls), and such work
//     inside a capture invalidates it.
#pragma once

#include <cuda_runtime_api.h>

#include "runtime/command_list.h"
#include "runtime/cuda/cuda_streams.h"
#include "runtime/run_trace.h"
#include "util/status.h"

namespace ios {

// Enqueues one op's kernel on the given stream (the session and the profiler know the buffers).
class CudaOpLauncher {
 public:
  virtual ~CudaOpLauncher() = default;
  virtual Status Enqueue(NodeId op, const CudaStreamContext& stream) = 0;
};

Status ReplayCommands(const CommandList& commands, CudaStreamSet& streams, CudaOpLauncher& ops);

// An instantiated CUDA Graph (owns the graph and its executable instance).
class CudaGraphExec {
 public:
  CudaGraphExec() = default;
  ~CudaGraphExec();
  CudaGraphExec(CudaGraphExec&& other) noexcept;
  CudaGraphExec& operator=(CudaGraphExec&& other) noexcept;
  CudaGraphExec(const CudaGraphExec&) = delete;
  CudaGraphExec& operator=(const CudaGraphExec&) = delete;

  Status Launch(cudaStream_t stream) const;  // cudaGraphLaunch
  bool valid() const { return exec_ != nullptr; }

 private:
  friend StatusOr<CudaGraphExec> CaptureCommands(const CommandList&, CudaStreamSet&,
                                                 CudaOpLauncher&);
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// Captures the whole list from the origin stream (cudaStreamCaptureModeThreadLocal) and
// instantiates it. On any failure the capture is ended and discarded before returning, and an
// error is returned if a stream of the set were left in capture mode (then none can be used).
StatusOr<CudaGraphExec> CaptureCommands(const CommandList& commands, CudaStreamSet& streams,
                                        CudaOpLauncher& ops);

// Issues the list directly, as ReplayCommands, with a timing event recorded before and after
// every command on its stream, waits for it, and fills `trace` with each command's GPU times
// (relative to an event recorded on the origin first, offset by the host clock at the start).
// Each event record costs the stream a few microseconds, which the spans include: a traced run is
// a profiling replay, slower than a captured graph. Streams must be idle.
Status TraceCommands(const CommandList& commands, CudaStreamSet& streams, CudaOpLauncher& ops,
                     RunTrace* trace);

// Issues the list directly (ReplayCommands) and waits for every stream of the set.
Status RunCommandsAndWait(const CommandList& commands, CudaStreamSet& streams, CudaOpLauncher& ops);

// The result of RunOnceThenCapture: the instantiated graph, or, when the capture failed, an
// invalid `graph` and the reason in `capture_status`; the streams are then usable and the
// caller replays the list instead (CaptureCommands leaves none in capture mode).
struct CapturedCommands {
  CudaGraphExec graph;
  Status capture_status;
};

// RunCommandsAndWait, then CaptureCommands. A failure of the direct run is returned as an
// error (the commands themselves fail); a failure of the capture is not (see CapturedCommands).
StatusOr<CapturedCommands> RunOnceThenCapture(const CommandList& commands, CudaStreamSet& streams,
                                              CudaOpLauncher& ops);

}  // namespace ios
