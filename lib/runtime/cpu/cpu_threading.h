// Threads inside one CPU kernel. Each stream of the executor is a worker thread; a kernel run on
// it may use `threads` cores. Debian's libdnnl uses the OpenMP runtime (libgomp), where the team
// size is a per-thread setting (the nthreads-var ICV): each worker sets its own before running
// an op, so concurrent ops on different workers get independent teams of the requested size.
// Internal to lib/runtime/cpu (compiled with -fopenmp).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "runtime/executor.h"

namespace ios {

// The most threads one OpenMP team may have (OMP_THREAD_LIMIT; unlimited by default).
inline int OmpThreadLimit() { return std::max(omp_get_thread_limit(), 1); }

// At least one thread, and no more than the OpenMP runtime will give. oneDNN's primitives are
// created for a team size and split their work by it: a team smaller than the one a primitive
// was made for leaves part of the output uncomputed, so every team size ios asks for must be one
// the runtime delivers (see ScopedOmpThreads too).
inline int ClampThreads(int threads) { return std::clamp(threads, 1, OmpThreadLimit()); }

// Sets the calling thread's OpenMP team size for the scope and restores it afterwards. Dynamic
// adjustment (OMP_DYNAMIC=true) is turned off meanwhile: it may hand a parallel region fewer
// threads than asked, which oneDNN's primitives do not expect.
class ScopedOmpThreads {
 public:
  explicit ScopedOmpThreads(int threads)
      : saved_threads_(omp_get_max_threads()), saved_dynamic_(omp_get_dynamic()) {
    omp_set_dynamic(0);
    omp_set_num_threads(ClampThreads(threads));
  }
  ~ScopedOmpThreads() {
    omp_set_num_threads(saved_threads_);
    omp_set_dynamic(saved_dynamic_);
  }
  ScopedOmpThreads(const ScopedOmpThreads&) = delete;
  ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

 private:
  int saved_threads_;
  int saved_dynamic_;
};

// Where an executor run's stream 0 executes: on the calling thread (no worker to wake), unless
// that thread is inside an OpenMP parallel region, where the kernels' teams would nest.
inline StreamExecutor::Origin OriginForCaller() {
  return omp_in_parallel() ? StreamExecutor::Origin::kWorker : StreamExecutor::Origin::kCaller;
}

// How many of `threads` are worth waking for `work` units (elements moved or computed): one
// per kMinWorkPerThread, so that small tensors stay on the calling thread.
inline int ThreadsForWork(int threads, int64_t work) {
  constexpr int64_t kMinWorkPerThread = 32 * 1024;
  const int64_t useful = std::max<int64_t>(1, work / kMinWorkPerThread);
  return static_cast<int>(std::min<int64_t>(ClampThreads(threads), useful));
}

// Calls fn(begin, end) on contiguous, near-equal slices of [0, count), one per thread, on an
// OpenMP team of `threads` (the caller's thread alone when threads <= 1). fn must not throw.
template <typename Fn>
void ParallelFor(int64_t count, int threads, Fn&& fn) {
  if (count <= 0) return;
  const int team = static_cast<int>(std::min<int64_t>(ClampThreads(threads), count));
  if (team <= 1) {
    fn(int64_t{0}, count);
    return;
  }
#pragma omp parallel num_threads(team)
  {
    const int64_t id = omp_get_thread_num();
    const int64_t size = omp_get_num_threads();
    const int64_t begin = count * id / size;
    const int64_t end = count * (id + 1) / size;
    if (begin < end) fn(begin, end);
  }
}

// memcpy split over up to `threads` threads when it is large; nothing when dst is src.
void ParallelCopy(void* dst, const void* src, size_t bytes, int threads);

// A buffer of at least `bytes`, 64-byte aligned, private to the calling thread. Slot s is reused
// by the next request for slot s on this thread, so a kernel uses each slot once per run.
// Kernels use slots below kScratchSlots; the layout adapter (layout_adapter_cpu.h), which runs
// a kernel inside it, those from kScratchSlots on. Null when the memory cannot be had.
constexpr int kScratchSlots = 5;
void* ThreadScratch(int slot, size_t bytes);

}  // namespace ios
