// Executes a CommandList with one worker thread per stream. Threads come from a pool created
// once; events are real cross-thread waits (mutex + condition variable), reset for every run.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/command_list.h"
#include "runtime/run_trace.h"
#include "util/status.h"

namespace ios {

// What a backend does for one kRunOp command, on the calling worker thread.
class OpRunner {
 public:
  virtual ~OpRunner() = default;
  virtual Status RunOp(NodeId op, int threads) = 0;
};

class StreamExecutor {
 public:
  explicit StreamExecutor(int num_streams);
  ~StreamExecutor();
  StreamExecutor(const StreamExecutor&) = delete;
  StreamExecutor& operator=(const StreamExecutor&) = delete;

  int num_streams() const { return static_cast<int>(workers_.size()); }
  // Where stream 0 (the origin) of a run executes.
  enum class Origin {
    kWorker,  // on worker 0, like every other stream
    // On the thread that calls Run, which waits for the run anyway: a run then wakes no thread
    // for its origin, a round trip that took 60-90 us on a 2-core VM (an empty run), more than
    // many a stage's ops. The CPU backend runs so unless the caller is inside an OpenMP
    // parallel region (its kernels' teams would then nest); the origin's ops then use the
    // calling thread's OpenMP team.
    kCaller,
  };

  // Runs every stream of `commands` concurrently and returns when all have finished. The first
  // failing op's status is returned; streams blocked on events of a failed stream are released.
  // With `trace`, every command's times are recorded into it (each stream's worker appends to
  // its own list, so tracing adds two clock reads per command and no synchronisation).
  Status Run(const CommandList& commands, OpRunner& runner, RunTrace* trace = nullptr,
             Origin origin = Origin::kWorker);

  // How many times worker `index` woke for a run without a stream of its own (a run wakes only
  // its streams' workers, so this counts the condition variable's spurious wake-ups).
  int64_t IdleWakeups(int index) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<std::thread> workers_;
};

}  // namespace ios
