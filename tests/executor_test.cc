// StreamExecutor: ordering, real concurrency, pool reuse across runs, failure propagation.
#include "runtime/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>

#include "passes/canonicalize.h"
#include "runtime/command_list.h"
#include "runtime/race_checker.h"
#include "sched/blocks.h"
#include "sched/schedule.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using Clock = std::chrono::steady_clock;
using testing::GraphBuilder;

// Runs each op by reading its inputs' slots and writing 1 + max(inputs) to its outputs: plain
// ints, so a missing event shows up as a wrong value (and, under ThreadSanitizer, as a race).
// Start and end sequence numbers come from one relaxed counter, which orders the numbers without
// adding any synchronisation of its own that could hide a missing event.
class RecordingRunner : public OpRunner {
 public:
  explicit RecordingRunner(const Graph& graph) : graph_(graph) { Reset(); }

  void Reset() {
    slots.assign(graph_.values.size(), 0);
    start_seq.assign(graph_.nodes.size(), -1);
    end_seq.assign(graph_.nodes.size(), -1);
    start_time.assign(graph_.nodes.size(), Clock::time_point());
    end_time.assign(graph_.nodes.size(), Clock::time_point());
    runs.assign(graph_.nodes.size(), 0);
    thread.assign(graph_.nodes.size(), std::thread::id());
  }

  Status RunOp(NodeId op, int threads) override {
    start_seq[op] = counter_.fetch_add(1, std::memory_order_relaxed);
    start_time[op] = Clock::now();
    thread[op] = std::this_thread::get_id();
    ++runs[op];
    if (threads < 1) return Internal("threads < 1");
    if (op == fail_op) return Internal("planted failure in op " + std::to_string(op));
    int depth = 0;
    for (ValueId in : graph_.nodes[op].inputs)
      if (in != kNoValue) depth = std::max(depth, slots[in]);
    if (sleep.count() > 0) std::this_thread::sleep_for(sleep);
    for (ValueId out : graph_.nodes[op].outputs) slots[out] = depth + 1;
    end_time[op] = Clock::now();
    end_seq[op] = counter_.fetch_add(1, std::memory_order_relaxed);
    return Status::Ok();
  }

  std::vector<int> slots;
  std::vector<int64_t> start_seq, end_seq;
  std::vector<Clock::time_point> start_time, end_time;
  std::vector<int> runs;
  std::vector<std::thread::id> thread;  // that ran each op
  NodeId fail_op = kNoNode;
  std::chrono::microseconds sleep{0};

 private:
  const Graph& graph_;
  std::atomic<int64_t> counter_{0};
};

// The expected slot values: each value's depth in the graph (graph inputs and constants 0).
std::vector<int> ExpectedDepths(const Graph& graph) {
  std::vector<int> depth(graph.values.size(), 0);
  auto order = graph.TopologicalOrder();
  EXPECT_TRUE(order.ok());
  for (NodeId n : *order) {
    int d = 0;
    for (ValueId in : graph.nodes[n].inputs)
      if (in != kNoValue) d = std::max(d, depth[in]);
    for (ValueId out : graph.nodes[n].outputs) depth[out] = d + 1;
  }
  return depth;
}

void ExpectProducersFinishedFirst(const Graph& graph, const RecordingRunner& runner) {
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].dead) continue;
    EXPECT_EQ(runner.runs[n], 1) << graph.Describe(static_cast<NodeId>(n));
    for (ValueId in : graph.nodes[n].inputs) {
      if (in == kNoValue || graph.values[in].producer == kNoNode) continue;
      NodeId p = graph.values[in].producer;
      EXPECT_GT(runner.start_seq[n], runner.end_seq[p])
          << graph.Describe(static_cast<NodeId>(n)) << " started before its producer "
          << graph.Describe(p) << " finished";
    }
  }
}

// Run, but abort the test program if it does not return: a hang must fail loudly.
Status RunOrAbort(StreamExecutor& executor, const CommandList& list, OpRunner& runner,
                  StreamExecutor::Origin origin = StreamExecutor::Origin::kWorker) {
  auto task = std::make_shared<std::packaged_task<Status()>>(
      [&] { return executor.Run(list, runner, nullptr, origin); });
  std::future<Status> result = task->get_future();
  std::thread thread([task] { (*task)(); });
  if (result.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    std::fprintf(stderr, "StreamExecutor::Run did not return within 60 s\n");
    std::abort();
  }
  thread.join();
  return result.get();
}

// x -> conv0 -> {4 branches, one of them two convs} -> Concat
struct Fan {
  Graph graph;
  NodeId c0 = kNoNode, cat = kNoNode;
  std::vector<std::vector<NodeId>> branches;
};

Fan MakeFan() {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 6, 6});
  ValueId c0 = b.Conv(x, 4, 3, 1, 1, 1, "conv0");
  std::vector<ValueId> outs;
  std::vector<std::vector<ValueId>> branch_values;
  for (int i = 0; i < 4; ++i) {
    ValueId v = b.Conv(c0, 4, 1, 0, 1, 1, "branch" + std::to_string(i));
    branch_values.push_back({v});
    if (i == 2) {
      v = b.Conv(v, 4, 3, 1, 1, 1, "branch2b");
      branch_values.back().push_back(v);
    }
    outs.push_back(v);
  }
  AttributeMap axis;
  axis.Set("axis", int64_t{1});
  ValueId cat = b.Op("Concat", outs, axis, "cat");
  Fan f;
  f.graph = b.Finish({cat});
  f.c0 = f.graph.values[c0].producer;
  f.cat = f.graph.values[cat].producer;
  for (const auto& values : branch_values) {
    f.branches.emplace_back();
    for (ValueId v : values) f.branches.back().push_back(f.graph.values[v].producer);
  }
  return f;
}

Schedule FanSchedule(const Fan& f) {
  Schedule s;
  ScheduleBlock block;
  ScheduleStage first, fan, last;
  first.groups.push_back({{f.c0}});
  for (const auto& branch : f.branches) fan.groups.push_back({branch});
  last.groups.push_back({{f.cat}});
  block.stages = {first, fan, last};
  s.blocks.push_back(block);
  return s;
}

CommandList Lower(const Graph& graph, const Schedule& schedule, int max_streams) {
  auto list = LowerToCommands(graph, schedule, max_streams, 4);
  EXPECT_TRUE(list.ok()) << list.status().message();
  return list.ok() ? *list : CommandList{};
}

TEST(ExecutorTest, EveryOpStartsAfterItsProducersFinished) {
  Fan f = MakeFan();
  CommandList list = Lower(f.graph, FanSchedule(f), 4);
  ASSERT_EQ(list.streams.size(), 4u);
  StreamExecutor executor(4);
  EXPECT_EQ(executor.num_streams(), 4);
  RecordingRunner runner(f.graph);
  runner.sleep = std::chrono::microseconds(500);
  Status status = RunOrAbort(executor, list, runner);
  ASSERT_TRUE(status.ok()) << status.message();
  ExpectProducersFinishedFirst(f.graph, runner);
  EXPECT_EQ(runner.slots, ExpectedDepths(f.graph));
}

// A traced run holds every command of every stream, in order, within the run's times; an op's
// span covers the op; a wait ends no earlier than the record it waits for.
TEST(ExecutorTest, TracedRunRecordsEveryCommandInOrder) {
  Fan f = MakeFan();
  CommandList list = Lower(f.graph, FanSchedule(f), 4);
  StreamExecutor executor(4);
  RecordingRunner runner(f.graph);
  runner.sleep = std::chrono::microseconds(300);
  RunTrace trace;
  ASSERT_TRUE(executor.Run(list, runner, &trace).ok());
  ASSERT_EQ(trace.streams.size(), list.streams.size());
  std::vector<int64_t> recorded_at(static_cast<size_t>(list.num_events), -1);
  for (size_t s = 0; s < list.streams.size(); ++s) {
    ASSERT_EQ(trace.streams[s].size(), list.streams[s].size()) << "stream " << s;
    int64_t previous_end = trace.begin_ns;
    for (size_t c = 0; c < list.streams[s].size(); ++c) {
      const TraceSpan& span = trace.streams[s][c];
      EXPECT_EQ(span.kind, list.streams[s][c].kind);
      EXPECT_EQ(span.op, list.streams[s][c].op);
      EXPECT_GE(span.begin_ns, previous_end);
      EXPECT_GE(span.end_ns, span.begin_ns);
      EXPECT_LE(span.end_ns, trace.end_ns);
      previous_end = span.end_ns;
      if (span.kind == CommandKind::kRunOp) {
        EXPECT_GE(span.end_ns - span.begin_ns, 300'000) << "op " << span.op << " (it sleeps)";
      }
      if (span.kind == CommandKind::kRecordEvent) recorded_at[span.event] = span.begin_ns;
    }
  }
  for (const auto& stream : trace.streams) {
    for (const TraceSpan& span : stream) {
      if (span.kind != CommandKind::kWaitEvent) continue;
      ASSERT_GE(recorded_at[span.event], 0);
      EXPECT_GE(span.end_ns, recorded_at[span.event]) << "event " << span.event;
    }
  }
  // Untraced runs on the same executor still work.
  runner.Reset();
  EXPECT_TRUE(executor.Run(list, runner).ok());
}

TEST(ExecutorPerfTest, ConcurrentGroupsOverlap) {
  Fan f = MakeFan();
  CommandList list = Lower(f.graph, FanSchedule(f), 4);
  StreamExecutor executor(4);
  RecordingRunner runner(f.graph);
  runner.sleep = std::chrono::milliseconds(20);
  // Overlap needs the OS to run two workers at once within 20 ms; a loaded machine may not, so
  // several runs get the chance and one overlap is enough.
  int overlapping_runs = 0;
  for (int attempt = 0; attempt < 8 && overlapping_runs == 0; ++attempt) {
    runner.Reset();
    ASSERT_TRUE(RunOrAbort(executor, list, runner).ok());
    ExpectProducersFinishedFirst(f.graph, runner);
    for (size_t i = 0; i < f.branches.size(); ++i) {
      for (size_t j = i + 1; j < f.branches.size(); ++j) {
        NodeId a = f.branches[i].front(), b = f.branches[j].front();
        bool overlap =
            runner.start_time[a] < runner.end_time[b] && runner.start_time[b] < runner.end_time[a];
        overlapping_runs += overlap ? 1 : 0;
      }
    }
  }
  EXPECT_GT(overlapping_runs, 0) << "no two concurrent groups ever ran at the same time";
}

TEST(ExecutorTest, ReusesItsWorkersOverManyRunsOfDifferentLists) {
  std::vector<Graph> graphs;
  std::vector<CommandList> lists;
  Fan fan = MakeFan();
  graphs.push_back(fan.graph);
  lists.push_back(Lower(fan.graph, FanSchedule(fan), 4));
  lists.push_back(Lower(fan.graph, FanSchedule(fan), 2));
  lists.push_back(Lower(fan.graph, FanSchedule(fan), 1));
  // Greedy schedules of the fan after canonicalisation.
  Graph canonical = fan.graph;
  ASSERT_TRUE(Canonicalize(canonical, CanonicalizeOptions{}, nullptr).ok());
  auto blocks = PartitionIntoBlocks(canonical, BlockOptions{});
  ASSERT_TRUE(blocks.ok());
  CommandList greedy = Lower(canonical, GreedySchedule(*blocks, 0), 3);
  ASSERT_GT(greedy.streams.size(), 1u);

  StreamExecutor executor(4);
  RecordingRunner fan_runner(fan.graph);
  RecordingRunner canonical_runner(canonical);
  const std::vector<int> fan_depths = ExpectedDepths(fan.graph);
  const std::vector<int> canonical_depths = ExpectedDepths(canonical);
  for (int run = 0; run < 300; ++run) {
    if (run % 4 == 3) {
      canonical_runner.Reset();
      ASSERT_TRUE(executor.Run(greedy, canonical_runner).ok()) << "run " << run;
      ASSERT_EQ(canonical_runner.slots, canonical_depths) << "run " << run;
      ExpectProducersFinishedFirst(canonical, canonical_runner);
    } else {
      fan_runner.Reset();
      const CommandList& list = lists[run % 3];
      ASSERT_TRUE(executor.Run(list, fan_runner).ok()) << "run " << run;
      ASSERT_EQ(fan_runner.slots, fan_depths) << "run " << run;
      ExpectProducersFinishedFirst(fan.graph, fan_runner);
    }
  }
}

// A run wakes only the workers of its streams: an idle worker woken at every run took a core
// just as the origin's op forked its OpenMP team (the CPU stage profiler's one-stream stages).
// Condition variables may wake spuriously, and a worker still finishing the previous run may see
// the next one published, so a few idle wake-ups are allowed, not one per run.
TEST(ExecutorTest, ARunWakesOnlyItsStreamsWorkers) {
  Fan fan = MakeFan();
  const CommandList one_stream = Lower(fan.graph, FanSchedule(fan), 1);
  const CommandList two_streams = Lower(fan.graph, FanSchedule(fan), 2);
  ASSERT_EQ(one_stream.streams.size(), 1u);
  ASSERT_EQ(two_streams.streams.size(), 2u);
  StreamExecutor executor(4);
  RecordingRunner runner(fan.graph);
  ASSERT_TRUE(executor.Run(two_streams, runner).ok());
  constexpr int kRuns = 200;
  for (int run = 0; run < kRuns; ++run) {
    runner.Reset();
    ASSERT_TRUE(executor.Run(one_stream, runner).ok());
  }
  EXPECT_EQ(executor.IdleWakeups(0), 0);
  for (int worker = 1; worker < 4; ++worker)
    EXPECT_LT(executor.IdleWakeups(worker), kRuns / 20) << "worker " << worker;
}

// The ops a list's stream runs.
std::vector<NodeId> StreamOps(const CommandList& list, size_t stream) {
  std::vector<NodeId> ops;
  for (const Command& c : list.streams[stream])
    if (c.kind == CommandKind::kRunOp) ops.push_back(c.op);
  return ops;
}

// Origin::kCaller: stream 0 runs on the thread that calls Run, every other stream on its worker,
// with the same ordering; runs of either kind alternate on one executor (worker 0 sits out the
// caller's runs and takes the origin of the others), and a failure still releases the origin.
TEST(ExecutorTest, TheCallerRunsTheOriginWhenAsked) {
  Fan f = MakeFan();
  const CommandList list = Lower(f.graph, FanSchedule(f), 4);
  ASSERT_EQ(list.streams.size(), 4u);
  StreamExecutor executor(4);
  RecordingRunner runner(f.graph);
  const std::vector<int> depths = ExpectedDepths(f.graph);
  const std::thread::id caller = std::this_thread::get_id();
  for (int run = 0; run < 100; ++run) {
    runner.Reset();
    const bool on_caller = run % 2 == 0;
    const auto origin =
        on_caller ? StreamExecutor::Origin::kCaller : StreamExecutor::Origin::kWorker;
    ASSERT_TRUE(executor.Run(list, runner, nullptr, origin).ok()) << "run " << run;
    ASSERT_EQ(runner.slots, depths) << "run " << run;
    ExpectProducersFinishedFirst(f.graph, runner);
    for (size_t s = 0; s < list.streams.size(); ++s) {
      for (NodeId op : StreamOps(list, s)) {
        EXPECT_EQ(runner.thread[op] == caller, s == 0 && on_caller)
            << "run " << run << ", stream " << s << ", " << f.graph.Describe(op);
      }
    }
  }
  // One stream of ops runs on the caller alone.
  const CommandList one_stream = Lower(f.graph, FanSchedule(f), 1);
  runner.Reset();
  ASSERT_TRUE(executor.Run(one_stream, runner, nullptr, StreamExecutor::Origin::kCaller).ok());
  EXPECT_EQ(runner.slots, depths);
  for (NodeId op : StreamOps(one_stream, 0)) EXPECT_EQ(runner.thread[op], caller);

  // A traced run records the caller's stream too.
  RunTrace trace;
  runner.Reset();
  ASSERT_TRUE(executor.Run(list, runner, &trace, StreamExecutor::Origin::kCaller).ok());
  ASSERT_EQ(trace.streams.size(), list.streams.size());
  EXPECT_EQ(trace.streams[0].size(), list.streams[0].size());

  // A branch on another stream fails: the origin, waiting on the caller's thread for its join,
  // is released and the status returned.
  runner.Reset();
  runner.fail_op = f.branches[2].front();
  const Status status = RunOrAbort(executor, list, runner, StreamExecutor::Origin::kCaller);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("planted failure"), std::string::npos) << status.message();
  EXPECT_EQ(runner.runs[f.cat], 0);
}

TEST(ExecutorTest, AFailingOpReturnsItsStatusAndReleasesWaiters) {
  Fan f = MakeFan();
  CommandList list = Lower(f.graph, FanSchedule(f), 4);
  StreamExecutor executor(4);
  RecordingRunner runner(f.graph);

  // A branch on stream 2 fails before recording its join: the origin, waiting on it, is freed.
  runner.fail_op = f.branches[2].front();
  Status status = RunOrAbort(executor, list, runner);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_NE(status.message().find("planted failure in op " + std::to_string(runner.fail_op)),
            std::string::npos)
      << status.message();
  EXPECT_EQ(runner.runs[f.branches[2][1]], 0) << "the rest of the failed stream must be skipped";
  EXPECT_EQ(runner.runs[f.cat], 0) << "ops after the join must be skipped";

  // The origin fails before the fork: every other stream is blocked on the fork and is freed.
  runner.Reset();
  runner.fail_op = f.c0;
  status = RunOrAbort(executor, list, runner);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("planted failure"), std::string::npos) << status.message();
  for (const auto& branch : f.branches)
    for (NodeId n : branch) EXPECT_EQ(runner.runs[n], 0);

  // Events and the failure flag are per run: the next run succeeds.
  runner.Reset();
  runner.fail_op = kNoNode;
  status = RunOrAbort(executor, list, runner);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(runner.slots, ExpectedDepths(f.graph));
}

class ThrowingRunner : public OpRunner {
 public:
  Status RunOp(NodeId, int) override { throw std::runtime_error("boom"); }
};

TEST(ExecutorTest, ARunnerThatThrowsBecomesAStatus) {
  Fan f = MakeFan();
  CommandList list = Lower(f.graph, FanSchedule(f), 4);
  StreamExecutor executor(4);
  ThrowingRunner runner;
  Status status = RunOrAbort(executor, list, runner);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("boom"), std::string::npos) << status.message();
}

TEST(ExecutorTest, BadListsAreErrorsNotHangs) {
  Fan f = MakeFan();
  CommandList list = Lower(f.graph, FanSchedule(f), 4);
  RecordingRunner runner(f.graph);

  StreamExecutor small(2);
  Status status = RunOrAbort(small, list, runner);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
  EXPECT_NE(status.message().find("4 streams"), std::string::npos) << status.message();

  StreamExecutor executor(4);
  CommandList unrecorded = list;  // stream 1 never records its join: the origin would hang
  unrecorded.streams[1].pop_back();
  EXPECT_FALSE(RunOrAbort(executor, unrecorded, runner).ok());

  CommandList cycle = list;  // stream 1 also waits on its own join before recording it
  cycle.streams[1].insert(cycle.streams[1].begin() + 1, cycle.streams[0][3]);
  ASSERT_EQ(cycle.streams[1][1].kind, CommandKind::kWaitEvent);
  EXPECT_FALSE(RunOrAbort(executor, cycle, runner).ok());

  // The executor still works afterwards, and an empty list is a no-op.
  runner.Reset();
  EXPECT_TRUE(RunOrAbort(executor, list, runner).ok());
  EXPECT_TRUE(executor.Run(CommandList{}, runner).ok());
}

TEST(ExecutorTest, DestroysCleanlyWithAndWithoutRuns) {
  { StreamExecutor idle(3); }
  {
    StreamExecutor none(0);
    EXPECT_EQ(none.num_streams(), 0);
  }
  Fan f = MakeFan();
  CommandList list = Lower(f.graph, FanSchedule(f), 2);
  RecordingRunner runner(f.graph);
  for (int i = 0; i < 20; ++i) {
    StreamExecutor executor(3);  // more workers than streams: worker 2 sits the run out
    runner.Reset();
    ASSERT_TRUE(executor.Run(list, runner).ok());
  }
}

}  // namespace
}  // namespace ios
