// Holds a CUDA stream until the host lets it go, so that the work queued behind it meanwhile
// starts back to back on the device, whatever the host's enqueue rate. The stage profiler times
// graph launches this way: without it, ten launches of a stage shorter than the host's launch
// call would measure the host, not the GPU (the device idles between launches).
//
//   blocker.Block(stream);          // a one-thread kernel spins on a flag in mapped host memory
//   ... record the start event, enqueue the work, record the stop event ...
//   blocker.Release();              // the host sets the flag: the queued work starts
//
// The kernel gives up after a timeout, so a host that never releases (an error path, a host
// stalled by the OS) costs at most that long and no hang; timed_out() then says the sample may
// hold host time. Release() is idempotent; the destructor releases too. Not thread-safe.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "util/status.h"

namespace ios {

class StreamBlocker {
 public:
  static StatusOr<std::unique_ptr<StreamBlocker>> Create();
  ~StreamBlocker();  // releases a held stream, waits for it, frees the flags
  StreamBlocker(const StreamBlocker&) = delete;
  StreamBlocker& operator=(const StreamBlocker&) = delete;

  // Enqueues the blocking kernel on `stream`. The previous block must have been released; its
  // stream is waited for first, so that its kernel has seen the release before the flags are
  // reset.
  Status Block(cudaStream_t stream, double timeout_ms = 1000.0);
  void Release();
  // Whether the last block ended by its timeout rather than by Release; valid once the work
  // behind it has completed.
  bool timed_out() const;

 private:
  StreamBlocker() = default;

  int32_t* flags_ = nullptr;         // host view: [0] release, [1] timed out
  int32_t* device_flags_ = nullptr;  // the same memory as the device sees it
  cudaStream_t held_ = nullptr;      // the stream blocked and not yet released
  cudaStream_t last_ = nullptr;      // the stream of the last block (must outlive the blocker)
};

// One timing sample as above: holds `stream` with `blocker` (null: not held), records `start`,
// calls `enqueue` `runs` times, records `stop`, releases, and waits for `stop`. Milliseconds
// per run. *timed_out says whether the hold ended by its timeout rather than the release (the
// sample may then hold host time). The stage profiler and ConvRunTimer sample this way.
StatusOr<double> TimeHeldRuns(StreamBlocker* blocker, cudaStream_t stream, cudaEvent_t start,
                              cudaEvent_t stop, int runs, const std::function<Status()>& enqueue,
                              bool* timed_out, double timeout_ms = 1000.0);

}  // namespace ios
