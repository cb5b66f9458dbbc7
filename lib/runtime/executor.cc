// StreamExecutor: one pooled worker thread per stream.
//
// Synchronisation:
//   - Control (one mutex): Run publishes a run by bumping `generation` (with the list, the
//     runner and `running` = number of streams) and notifying the `work_ready` of each worker
//     whose index is below the run's stream count, which executes its stream (the others sleep
//     on); the last stream to finish notifies `run_done`, which Run blocks on. With
//     Origin::kCaller, Run executes stream 0 itself between publishing and blocking, and worker
//     0 is not notified (if it wakes anyway, it finds the origin taken and sleeps on).
//   - Events: one mutex + condition variable + flag per event, reset at the start of every run
//     (before it is published, while every worker is idle). Record sets the flag under the
//     event's mutex and notifies; wait blocks until the flag is set or the run has failed.
//     Per-event locks keep the only happens-before edges between streams exactly the list's
//     record -> wait pairs, so ThreadSanitizer checks the list itself: one executor-wide lock
//     would order unrelated ops whenever the timing happened to line up, and hide a missing
//     event. A record also wakes only that event's waiters.
//   - Failure: the first failing op stores its status (under `failure_mutex`) and sets `failed`,
//     then notifies every event so that every waiter wakes up; waits return early and each
//     stream skips its remaining commands. Streams check `failed` with a relaxed load before
//     each op (a hint: skipping is an optimisation, the waits are what must not hang), which
//     adds no synchronisation of its own.
// Nothing spins: every wait is a condition-variable wait on a predicate.
#include "runtime/executor.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <string>

#include "runtime/race_checker.h"

namespace ios {

struct StreamExecutor::Impl {
  struct Event {
    std::mutex mutex;
    std::condition_variable changed;
    bool recorded = false;
  };

  std::mutex mutex;  // control: everything down to `running`
  // One per worker, so that a run wakes only the workers of its streams: a worker woken for
  // nothing took a core just as the origin's op forked its OpenMP team, which then shared one
  // core for tens of milliseconds (the stage profiler's one-stream stages, on two cores).
  std::vector<std::unique_ptr<std::condition_variable>> work_ready;
  std::vector<int64_t> idle_wakeups;  // per worker, under `mutex` (IdleWakeups)
  std::condition_variable run_done;
  bool shutdown = false;
  uint64_t generation = 0;
  const CommandList* commands = nullptr;  // the current run; null between runs
  OpRunner* runner = nullptr;
  RunTrace* trace = nullptr;      // the current run's, when traced
  int running = 0;                // streams of the current run that have not finished
  bool origin_on_caller = false;  // the current run's stream 0 runs on Run's caller

  // Grown on demand, never shrunk; the first `num_events` belong to the current run. Written
  // only by Run while every worker is idle.
  std::vector<std::unique_ptr<Event>> events;
  size_t num_events = 0;

  std::atomic<bool> failed{false};
  std::mutex failure_mutex;
  Status first_failure;

  // Serialises concurrent callers of Run: one run at a time per executor.
  std::mutex run_mutex;

  void WorkerLoop(int index);
  void RunStream(int index, const std::vector<Command>& stream, OpRunner& op_runner,
                 std::vector<TraceSpan>* spans);
  // RunStream, then counts the stream finished; the last one of the run wakes Run.
  void RunAndFinishStream(int index, const std::vector<Command>& stream, OpRunner& op_runner,
                          std::vector<TraceSpan>* spans);
  void Fail(Status status);
};

void StreamExecutor::Impl::Fail(Status status) {
  {
    std::lock_guard<std::mutex> lock(failure_mutex);
    if (first_failure.ok()) first_failure = std::move(status);
  }
  failed.store(true, std::memory_order_relaxed);
  // Taking each event's mutex after setting `failed` means a waiter either sees `failed` when it
  // checks its predicate, or is already blocked and receives this notification.
  for (size_t e = 0; e < num_events; ++e) {
    Event& event = *events[e];
    { std::lock_guard<std::mutex> lock(event.mutex); }
    event.changed.notify_all();
  }
}

void StreamExecutor::Impl::RunStream(int index, const std::vector<Command>& stream,
                                     OpRunner& op_runner, std::vector<TraceSpan>* spans) {
  for (const Command& command : stream) {
    const int64_t begin = spans != nullptr ? TraceClockNs() : 0;
    switch (command.kind) {
      case CommandKind::kRunOp: {
        if (failed.load(std::memory_order_relaxed)) return;  // skip what is left
        Status status;
        try {
          status = op_runner.RunOp(command.op, command.threads);
        } catch (const std::exception& e) {  // a runner must not throw; keep the process alive
          status = Internal(std::string("op runner threw: ") + e.what());
        } catch (...) {
          status = Internal("op runner threw a non-standard exception");
        }
        if (!status.ok()) {
          Fail(status.WithContext("op " + std::to_string(command.op) + " on stream " +
                                  std::to_string(index)));
          return;
        }
        break;
      }
      case CommandKind::kRecordEvent: {
        Event& event = *events[command.event];
        {
          std::lock_guard<std::mutex> lock(event.mutex);
          event.recorded = true;
        }
        event.changed.notify_all();
        break;
      }
      case CommandKind::kWaitEvent: {
        Event& event = *events[command.event];
        std::unique_lock<std::mutex> lock(event.mutex);
        event.changed.wait(
            lock, [&] { return event.recorded || failed.load(std::memory_order_relaxed); });
        if (failed.load(std::memory_order_relaxed)) return;
        break;
      }
    }
    if (spans != nullptr) {
      const int64_t end = command.kind == CommandKind::kRecordEvent ? begin : TraceClockNs();
      spans->push_back({command.kind, command.op, command.event, command.threads, begin, end});
    }
  }
}

void StreamExecutor::Impl::WorkerLoop(int index) {
  uint64_t seen_generation = 0;
  for (;;) {
    const std::vector<Command>* stream = nullptr;
    OpRunner* op_runner = nullptr;
    std::vector<TraceSpan>* spans = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex);
      work_ready[static_cast<size_t>(index)]->wait(
          lock, [&] { return shutdown || generation != seen_generation; });
      if (shutdown) return;
      seen_generation = generation;
      // Not in this run (or woke after a run without this stream had already finished), or
      // the origin, which the caller runs.
      if (commands == nullptr || index >= static_cast<int>(commands->streams.size()) ||
          (index == 0 && origin_on_caller)) {
        ++idle_wakeups[static_cast<size_t>(index)];
        continue;
      }
      stream = &commands->streams[index];
      op_runner = runner;
      if (trace != nullptr) spans = &trace->streams[index];
    }
    RunAndFinishStream(index, *stream, *op_runner, spans);
  }
}

void StreamExecutor::Impl::RunAndFinishStream(int index, const std::vector<Command>& stream,
                                              OpRunner& op_runner, std::vector<TraceSpan>* spans) {
  RunStream(index, stream, op_runner, spans);
  bool last = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    last = --running == 0;
  }
  if (last) run_done.notify_all();
}

StreamExecutor::StreamExecutor(int num_streams) : impl_(std::make_unique<Impl>()) {
  for (int i = 0; i < num_streams; ++i)
    impl_->work_ready.push_back(std::make_unique<std::condition_variable>());
  impl_->idle_wakeups.assign(static_cast<size_t>(std::max(num_streams, 0)), 0);
  for (int i = 0; i < num_streams; ++i) workers_.emplace_back([this, i] { impl_->WorkerLoop(i); });
}

StreamExecutor::~StreamExecutor() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->shutdown = true;
  }
  for (const auto& ready : impl_->work_ready) ready->notify_all();
  for (std::thread& worker : workers_) worker.join();
}

int64_t StreamExecutor::IdleWakeups(int index) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (index < 0 || index >= static_cast<int>(impl_->idle_wakeups.size())) return 0;
  return impl_->idle_wakeups[static_cast<size_t>(index)];
}

Status StreamExecutor::Run(const CommandList& commands, OpRunner& runner, RunTrace* trace,
                           Origin origin) {
  if (commands.streams.size() > workers_.size()) {
    return InvalidInput("command list has " + std::to_string(commands.streams.size()) +
                        " streams but the executor has " + std::to_string(workers_.size()) +
                        " workers");
  }
  for (size_t s = 0; s < commands.streams.size(); ++s) {
    for (const Command& c : commands.streams[s]) {
      if (c.kind == CommandKind::kRunOp && c.op < 0)
        return Internal("stream " + std::to_string(s) + " runs an op without a node id");
    }
  }
  // Event ids in range, every wait recorded, no cyclic waits: a bad list is an error, not a hang.
  // Linear in the number of commands.
  IOS_RETURN_IF_ERROR(CheckCommandListLiveness(commands));
  if (commands.streams.empty()) return Status::Ok();

  std::lock_guard<std::mutex> run_lock(impl_->run_mutex);
  Impl& impl = *impl_;
  // Every worker is idle here (the previous run has finished), so the per-run state can be reset
  // without their locks; publishing the run under the control mutex orders it before their use.
  impl.num_events = static_cast<size_t>(commands.num_events);
  while (impl.events.size() < impl.num_events)
    impl.events.push_back(std::make_unique<Impl::Event>());
  for (size_t e = 0; e < impl.num_events; ++e) impl.events[e]->recorded = false;
  impl.failed.store(false, std::memory_order_relaxed);
  impl.first_failure = Status::Ok();
  if (trace != nullptr) {
    trace->streams.assign(commands.streams.size(), {});
    for (size_t s = 0; s < commands.streams.size(); ++s)
      trace->streams[s].reserve(commands.streams[s].size());
    trace->begin_ns = TraceClockNs();
  }
  {
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.commands = &commands;
    impl.runner = &runner;
    impl.trace = trace;
    impl.running = static_cast<int>(commands.streams.size());
    impl.origin_on_caller = origin == Origin::kCaller;
    ++impl.generation;
  }
  const size_t first_worker = origin == Origin::kCaller ? 1 : 0;
  for (size_t s = first_worker; s < commands.streams.size(); ++s) impl.work_ready[s]->notify_one();
  if (origin == Origin::kCaller) {
    impl.RunAndFinishStream(0, commands.streams[0], runner,
                            trace != nullptr ? &trace->streams[0] : nullptr);
  }
  {
    std::unique_lock<std::mutex> lock(impl.mutex);
    impl.run_done.wait(lock, [&] { return impl.running == 0; });
    impl.commands = nullptr;
    impl.runner = nullptr;
    impl.trace = nullptr;
    impl.origin_on_caller = false;
  }
  if (trace != nullptr) trace->end_ns = TraceClockNs();
  std::lock_guard<std::mutex> lock(impl.failure_mutex);
  return impl.first_failure;
}

}  // namespace ios
