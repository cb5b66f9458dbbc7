// Lowering schedules to command lists, the fork/join shape check, and the static race checker.
#include "runtime/command_list.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "command_list_builders.h"
#include "passes/canonicalize.h"
#include "runtime/issue_order.h"
#include "runtime/race_checker.h"
#include "sched/blocks.h"
#include "sched/schedule.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::GraphBuilder;
using testing::Op;
using testing::Record;
using testing::Wait;

// conv0 -> {conv1 | conv2 | conv3a -> conv3b | pool4} -> Concat -> GlobalAveragePool
struct FanGraph {
  Graph graph;
  NodeId c0, b1, b2, b3a, b3b, b4, cat, gap;
};

FanGraph MakeFanGraph() {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 8, 8});
  ValueId c0 = b.Conv(x, 4, 3, 1, 1, 1, "conv0");
  ValueId b1 = b.Conv(c0, 4, 1, 0, 1, 1, "conv1");
  ValueId b2 = b.Conv(c0, 4, 3, 1, 1, 1, "conv2");
  ValueId b3a = b.Conv(c0, 4, 1, 0, 1, 1, "conv3a");
  ValueId b3b = b.Conv(b3a, 4, 3, 1, 1, 1, "conv3b");
  AttributeMap pool_attrs;
  pool_attrs.Set("kernel_shape", std::vector<int64_t>{3, 3});
  pool_attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  ValueId b4 = b.Op("MaxPool", {c0}, pool_attrs, "pool4");
  AttributeMap axis;
  axis.Set("axis", int64_t{1});
  ValueId cat = b.Op("Concat", {b1, b2, b3b, b4}, axis, "cat");
  ValueId gap = b.Op("GlobalAveragePool", {cat}, {}, "gap");
  FanGraph f;
  f.graph = b.Finish({gap});
  auto producer = [&](ValueId v) { return f.graph.values[v].producer; };
  f.c0 = producer(c0);
  f.b1 = producer(b1);
  f.b2 = producer(b2);
  f.b3a = producer(b3a);
  f.b3b = producer(b3b);
  f.b4 = producer(b4);
  f.cat = producer(cat);
  f.gap = producer(gap);
  return f;
}

ScheduleStage Stage(std::vector<std::vector<NodeId>> groups) {
  ScheduleStage stage;
  for (auto& nodes : groups) stage.groups.push_back({std::move(nodes)});
  return stage;
}

// The hand schedule of the fan graph: conv0; the four branches concurrently; concat; pool.
Schedule FanSchedule(const FanGraph& f) {
  Schedule s;
  s.kind = "hand";
  ScheduleBlock block;
  block.stages.push_back(Stage({{f.c0}}));
  block.stages.push_back(Stage({{f.b1}, {f.b2}, {f.b3a, f.b3b}, {f.b4}}));
  block.stages.push_back(Stage({{f.cat}}));
  block.stages.push_back(Stage({{f.gap}}));
  s.blocks.push_back(block);
  return s;
}

bool SameCommands(const std::vector<Command>& a, const std::vector<Command>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].kind != b[i].kind) return false;
    if (a[i].kind == CommandKind::kRunOp && (a[i].op != b[i].op || a[i].threads != b[i].threads))
      return false;
    if (a[i].kind != CommandKind::kRunOp && a[i].event != b[i].event) return false;
  }
  return true;
}

// The shape the header promises, checked independently of CheckForkJoin.
void ExpectForkJoinShape(const CommandList& list) {
  std::vector<int> record_stream(list.num_events, -1);
  for (size_t s = 0; s < list.streams.size(); ++s) {
    for (const Command& c : list.streams[s]) {
      if (c.kind != CommandKind::kRecordEvent) continue;
      ASSERT_EQ(record_stream[c.event], -1) << "event " << c.event << " recorded twice";
      record_stream[c.event] = static_cast<int>(s);
    }
  }
  for (size_t s = 1; s < list.streams.size(); ++s) {
    const auto& stream = list.streams[s];
    ASSERT_FALSE(stream.empty());
    EXPECT_EQ(stream.front().kind, CommandKind::kWaitEvent) << "stream " << s;
    EXPECT_EQ(record_stream[stream.front().event], 0) << "stream " << s;
    ASSERT_EQ(stream.back().kind, CommandKind::kRecordEvent) << "stream " << s;
    bool origin_waits = false;
    for (const Command& c : list.streams[0])
      origin_waits |= c.kind == CommandKind::kWaitEvent && c.event == stream.back().event;
    EXPECT_TRUE(origin_waits) << "origin never waits on stream " << s << "'s last record";
  }
}

std::vector<NodeId> OpsOf(const CommandList& list) {
  std::vector<NodeId> ops;
  for (const auto& stream : list.streams)
    for (const Command& c : stream)
      if (c.kind == CommandKind::kRunOp) ops.push_back(c.op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

TEST(CommandListTest, SequentialScheduleIsOneStreamWithoutEvents) {
  FanGraph f = MakeFanGraph();
  ASSERT_TRUE(Canonicalize(f.graph, CanonicalizeOptions{}, nullptr).ok());
  auto blocks = PartitionIntoBlocks(f.graph, BlockOptions{});
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  Schedule schedule = SequentialSchedule(*blocks);
  auto list = LowerToCommands(f.graph, schedule, 4, 6);
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->streams.size(), 1u);
  EXPECT_EQ(list->num_events, 0);
  std::vector<NodeId> expected;
  for (const auto& block : schedule.blocks)
    for (const auto& stage : block.stages)
      for (NodeId n : stage.groups[0].nodes) expected.push_back(n);
  ASSERT_EQ(list->streams[0].size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(list->streams[0][i].kind, CommandKind::kRunOp);
    EXPECT_EQ(list->streams[0][i].op, expected[i]);
    EXPECT_EQ(list->streams[0][i].threads, 6);
  }
  EXPECT_TRUE(CheckForkJoin(*list).ok());
  EXPECT_TRUE(CheckCommandListOrdering(f.graph, *list, {}).ok());
}

TEST(CommandListTest, MultiGroupStageForksFromAndJoinsIntoTheOrigin) {
  FanGraph f = MakeFanGraph();
  auto list = LowerToCommands(f.graph, FanSchedule(f), 4, 8);
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->streams.size(), 4u);
  EXPECT_EQ(list->num_events, 4);
  EXPECT_TRUE(SameCommands(list->streams[0], {Op(f.c0, 8), Record(0), Op(f.b1, 2), Wait(1), Wait(2),
                                              Wait(3), Op(f.cat, 8), Op(f.gap, 8)}))
      << DescribeCommands(f.graph, *list);
  EXPECT_TRUE(SameCommands(list->streams[1], {Wait(0), Op(f.b2, 2), Record(1)}));
  EXPECT_TRUE(SameCommands(list->streams[2], {Wait(0), Op(f.b3a, 2), Op(f.b3b, 2), Record(2)}));
  EXPECT_TRUE(SameCommands(list->streams[3], {Wait(0), Op(f.b4, 2), Record(3)}));
  ExpectForkJoinShape(*list);
  EXPECT_TRUE(CheckForkJoin(*list).ok());
  EXPECT_TRUE(CheckCommandListOrdering(f.graph, *list, {}).ok());
  const std::string text = DescribeCommands(f.graph, *list);
  EXPECT_NE(text.find("stream 2:"), std::string::npos) << text;
  EXPECT_NE(text.find("run node 'conv3b' (Conv) threads=2"), std::string::npos) << text;
  EXPECT_NE(text.find("wait e0"), std::string::npos) << text;
}

TEST(CommandListTest, GroupsBeyondTheStreamCapShareStreamsRoundRobin) {
  FanGraph f = MakeFanGraph();
  auto list = LowerToCommands(f.graph, FanSchedule(f), 2, 8);
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->streams.size(), 2u);
  EXPECT_EQ(list->num_events, 2);
  // Groups 0 and 2 on the origin, 1 and 3 on stream 1; threads split by the 4 groups.
  EXPECT_TRUE(SameCommands(list->streams[0], {Op(f.c0, 8), Record(0), Op(f.b1, 2), Op(f.b3a, 2),
                                              Op(f.b3b, 2), Wait(1), Op(f.cat, 8), Op(f.gap, 8)}))
      << DescribeCommands(f.graph, *list);
  EXPECT_TRUE(SameCommands(list->streams[1], {Wait(0), Op(f.b2, 2), Op(f.b4, 2), Record(1)}));
  ExpectForkJoinShape(*list);
  EXPECT_TRUE(CheckForkJoin(*list).ok());
  EXPECT_TRUE(CheckCommandListOrdering(f.graph, *list, {}).ok());

  auto one = LowerToCommands(f.graph, FanSchedule(f), 1, 8);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->streams.size(), 1u);
  EXPECT_EQ(one->num_events, 0);
  EXPECT_EQ(one->streams[0].size(), 8u);
}

TEST(CommandListTest, ThreadsAreSplitAmongTheGroupsOfEachStage) {
  FanGraph f = MakeFanGraph();
  Schedule s;
  ScheduleBlock block;
  block.stages.push_back(Stage({{f.c0}}));
  block.stages.push_back(Stage({{f.b1}, {f.b2}, {f.b3a}}));
  block.stages.push_back(Stage({{f.b3b}, {f.b4}}));
  block.stages.push_back(Stage({{f.cat}}));
  block.stages.push_back(Stage({{f.gap}}));
  s.blocks.push_back(block);
  auto threads_of = [&](const CommandList& list, NodeId op) {
    for (const auto& stream : list.streams)
      for (const Command& c : stream)
        if (c.kind == CommandKind::kRunOp && c.op == op) return c.threads;
    return -1;
  };
  auto eight = LowerToCommands(f.graph, s, 0, 8);
  ASSERT_TRUE(eight.ok());
  EXPECT_EQ(threads_of(*eight, f.c0), 8);
  EXPECT_EQ(threads_of(*eight, f.b2), 2);  // 8 / 3
  EXPECT_EQ(threads_of(*eight, f.b4), 4);  // 8 / 2
  auto one = LowerToCommands(f.graph, s, 0, 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(threads_of(*one, f.b1), 1);  // never below 1
  EXPECT_EQ(threads_of(*one, f.b4), 1);
  EXPECT_EQ(one->streams.size(), 3u);  // max_streams 0: no cap

  EXPECT_FALSE(LowerToCommands(f.graph, s, 2, 0).ok());
  EXPECT_FALSE(LowerToCommands(f.graph, s, -1, 4).ok());
  block.stages[4].groups[0].nodes.push_back(f.c0);  // runs twice
  s.blocks[0] = block;
  EXPECT_FALSE(LowerToCommands(f.graph, s, 2, 4).ok());
}

TEST(CommandListTest, MergeStagesAreLoweredAsConcurrentForNow) {
  FanGraph f = MakeFanGraph();
  Schedule merged = FanSchedule(f);
  merged.blocks[0].stages[1].strategy = StageStrategy::kMerge;
  auto a = LowerToCommands(f.graph, merged, 4, 8);
  auto b = LowerToCommands(f.graph, FanSchedule(f), 4, 8);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->streams.size(), b->streams.size());
  for (size_t s = 0; s < a->streams.size(); ++s)
    EXPECT_TRUE(SameCommands(a->streams[s], b->streams[s]));
}

TEST(CommandListTest, CheckForkJoinRejectsPlantedViolations) {
  FanGraph f = MakeFanGraph();
  auto lowered = LowerToCommands(f.graph, FanSchedule(f), 4, 8);
  ASSERT_TRUE(lowered.ok());
  ASSERT_TRUE(CheckForkJoin(*lowered).ok());

  CommandList no_fork_wait = *lowered;  // stream 2 starts without joining the origin
  no_fork_wait.streams[2].erase(no_fork_wait.streams[2].begin());
  Status status = CheckForkJoin(no_fork_wait);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("stream 2 does not begin"), std::string::npos)
      << status.message();

  CommandList no_join = *lowered;  // the origin never waits on stream 3
  auto& origin = no_join.streams[0];
  origin.erase(std::find_if(origin.begin(), origin.end(), [](const Command& c) {
    return c.kind == CommandKind::kWaitEvent && c.event == 3;
  }));
  status = CheckForkJoin(no_join);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("stream 3 does not end"), std::string::npos) << status.message();

  CommandList unrecorded = *lowered;  // stream 1 never records its join event
  unrecorded.streams[1].pop_back();
  status = CheckForkJoin(unrecorded);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("never recorded"), std::string::npos) << status.message();

  CommandList twice = *lowered;  // the fork event recorded twice
  twice.streams[0].insert(twice.streams[0].begin(), Record(0));
  EXPECT_FALSE(CheckForkJoin(twice).ok());

  CommandList out_of_range = *lowered;
  out_of_range.streams[1][0].event = 9;
  EXPECT_FALSE(CheckForkJoin(out_of_range).ok());
}

// A random DAG of convs, with Adds and Concats where branches meet.
Graph MakeRandomDag(unsigned seed, int convs) {
  GraphBuilder b;
  std::mt19937 rng(seed);
  std::vector<ValueId> values = {b.Conv(b.Input("x", {1, 4, 6, 6}), 4, 3, 1)};
  std::vector<int> readers(1, 0);
  for (int i = 0; i < convs; ++i) {
    auto pick = [&] {
      // Prefer recent values, so that the DAG is deep as well as wide.
      int n = static_cast<int>(values.size());
      int lo = std::max(0, n - 6);
      return std::uniform_int_distribution<int>(lo, n - 1)(rng);
    };
    int a = pick();
    ValueId in = values[a];
    ++readers[a];
    if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
      int c = pick();
      if (c != a) {
        ++readers[c];
        in = b.Op("Add", {in, values[c]});
      }
    }
    int k = std::uniform_int_distribution<int>(0, 1)(rng) ? 3 : 1;
    values.push_back(b.Conv(in, 4, k, k / 2));
    readers.push_back(0);
  }
  std::vector<ValueId> sinks;
  for (size_t i = 0; i < values.size(); ++i)
    if (readers[i] == 0) sinks.push_back(values[i]);
  ValueId out = sinks[0];
  if (sinks.size() > 1) {
    AttributeMap axis;
    axis.Set("axis", int64_t{1});
    out = b.Op("Concat", sinks, axis);
  }
  return b.Finish({out});
}

struct LoweredCase {
  std::string name;
  Graph graph;
  Schedule schedule;
};

std::vector<LoweredCase> RealSchedules() {
  std::vector<LoweredCase> cases;
  std::vector<std::pair<std::string, Graph>> graphs;
  graphs.emplace_back("fan", MakeFanGraph().graph);
  for (unsigned seed : {1u, 2u, 3u, 4u})
    graphs.emplace_back("dag" + std::to_string(seed), MakeRandomDag(seed, 30));
  for (auto& [name, graph] : graphs) {
    EXPECT_TRUE(Canonicalize(graph, CanonicalizeOptions{}, nullptr).ok()) << name;
    auto blocks = PartitionIntoBlocks(graph, BlockOptions{});
    EXPECT_TRUE(blocks.ok()) << name << ": " << blocks.status().message();
    if (!blocks.ok()) continue;
    cases.push_back({name + "/sequential", graph, SequentialSchedule(*blocks)});
    cases.push_back({name + "/greedy", graph, GreedySchedule(*blocks, 0)});
    cases.push_back({name + "/greedy3", graph, GreedySchedule(*blocks, 3)});
  }
  return cases;
}

// Every value in its own bytes: the arena of a plan with no reuse.
std::vector<std::pair<int64_t, int64_t>> DisjointRanges(const Graph& graph) {
  std::vector<std::pair<int64_t, int64_t>> ranges(graph.values.size(), {-1, -1});
  int64_t offset = 0;
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (graph.values[v].constant) continue;
    ranges[v] = {offset, offset + 64};
    offset += 64;
  }
  return ranges;
}

TEST(RaceCheckerTest, AcceptsTheLoweredListsOfRealSchedules) {
  int multi_stream = 0;
  for (const LoweredCase& c : RealSchedules()) {
    ASSERT_TRUE(ValidateSchedule(c.graph, c.schedule).ok()) << c.name;
    for (int max_streams : {0, 1, 2, 4}) {
      auto list = LowerToCommands(c.graph, c.schedule, max_streams, 4);
      ASSERT_TRUE(list.ok()) << c.name << ": " << list.status().message();
      multi_stream += list->streams.size() > 1;
      ExpectForkJoinShape(*list);
      Status fork_join = CheckForkJoin(*list);
      EXPECT_TRUE(fork_join.ok()) << c.name << " max_streams " << max_streams << ": "
                                  << fork_join.message();
      Status ordering = CheckCommandListOrdering(c.graph, *list, {});
      EXPECT_TRUE(ordering.ok()) << c.name << ": " << ordering.message();
      ordering = CheckCommandListOrdering(c.graph, *list, DisjointRanges(c.graph));
      EXPECT_TRUE(ordering.ok()) << c.name << ": " << ordering.message();
      // The same list issued from one thread, as the CUDA backend captures it, forks from and
      // joins into the origin.
      auto issued = IssueOrder(*list);
      ASSERT_TRUE(issued.ok()) << c.name << ": " << issued.status().message();
      Status capture = CheckCaptureSequence(*issued, static_cast<int>(list->streams.size()));
      EXPECT_TRUE(capture.ok()) << c.name << ": " << capture.message();
      // Every live node runs exactly once.
      std::vector<NodeId> live;
      for (size_t n = 0; n < c.graph.nodes.size(); ++n)
        if (!c.graph.nodes[n].dead) live.push_back(static_cast<NodeId>(n));
      EXPECT_EQ(OpsOf(*list), live) << c.name;
    }
  }
  EXPECT_GT(multi_stream, 10);  // the cases really exercise fork/join
}

TEST(RaceCheckerTest, CatchesAPlantedMissingWait) {
  FanGraph f = MakeFanGraph();
  auto list = LowerToCommands(f.graph, FanSchedule(f), 4, 8);
  ASSERT_TRUE(list.ok());
  ASSERT_TRUE(CheckCommandListOrdering(f.graph, *list, {}).ok());
  CommandList planted = *list;
  ASSERT_EQ(planted.streams[2].front().kind, CommandKind::kWaitEvent);
  planted.streams[2].erase(planted.streams[2].begin());  // conv3a no longer waits for conv0
  Status status = CheckCommandListOrdering(f.graph, planted, {});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("node 'conv0' (Conv) on stream 0 writes tensor 'conv0:0'"),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("node 'conv3a' (Conv) on stream 2 reads tensor 'conv0:0'"),
            std::string::npos)
      << status.message();

  // The same on lowered greedy schedules of random DAGs: drop each wait in turn; whenever the
  // checker accepts the result, the dropped wait must have been redundant for the data flow.
  int caught = 0;
  for (const LoweredCase& c : RealSchedules()) {
    if (c.name.find("greedy") == std::string::npos) continue;
    auto lowered = LowerToCommands(c.graph, c.schedule, 0, 4);
    ASSERT_TRUE(lowered.ok());
    for (size_t s = 1; s < lowered->streams.size(); ++s) {
      CommandList broken = *lowered;
      broken.streams[s].erase(broken.streams[s].begin());  // the first fork wait
      Status result = CheckCommandListOrdering(c.graph, broken, DisjointRanges(c.graph));
      if (!result.ok()) {
        ++caught;
        EXPECT_NE(result.message().find("race"), std::string::npos) << result.message();
        EXPECT_NE(result.message().find("stream " + std::to_string(s)), std::string::npos)
            << result.message();
      }
    }
  }
  EXPECT_GT(caught, 5);
}

TEST(RaceCheckerTest, CatchesRacesThroughMemoryReuse) {
  FanGraph f = MakeFanGraph();
  auto list = LowerToCommands(f.graph, FanSchedule(f), 4, 8);
  ASSERT_TRUE(list.ok());
  auto ranges = DisjointRanges(f.graph);
  ASSERT_TRUE(CheckCommandListOrdering(f.graph, *list, ranges).ok());
  // conv1's and conv2's outputs are live at once (concurrent groups); sharing bytes is a race.
  ValueId out1 = f.graph.nodes[f.b1].outputs[0];
  ValueId out2 = f.graph.nodes[f.b2].outputs[0];
  ranges[out2] = {ranges[out1].first + 32, ranges[out1].second + 32};
  Status status = CheckCommandListOrdering(f.graph, *list, ranges);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("memory reuse"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("'conv1:0'"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("'conv2:0'"), std::string::npos) << status.message();
  // Touching but not overlapping ranges are fine.
  ranges[out2] = {ranges[out1].second, ranges[out1].second + 64};
  ValueId other = f.graph.nodes[f.b4].outputs[0];
  ranges[other] = {ranges[out1].second + 64, ranges[out1].second + 128};
  for (size_t v = 0; v < ranges.size(); ++v) {  // move everything else out of the way
    if (static_cast<ValueId>(v) != out1 && static_cast<ValueId>(v) != out2 &&
        static_cast<ValueId>(v) != other && ranges[v].first >= 0)
      ranges[v] = {100000 + ranges[v].first, 100000 + ranges[v].second};
  }
  EXPECT_TRUE(CheckCommandListOrdering(f.graph, *list, ranges).ok());
  // Reuse across stages is ordered by the join: conv0's output may share with gap's output.
  ranges = DisjointRanges(f.graph);
  ranges[f.graph.nodes[f.gap].outputs[0]] = ranges[f.graph.nodes[f.c0].outputs[0]];
  EXPECT_TRUE(CheckCommandListOrdering(f.graph, *list, ranges).ok());
  // A wrong-sized range table is an error, not a crash.
  EXPECT_FALSE(CheckCommandListOrdering(f.graph, *list, {{0, 1}}).ok());
}

TEST(RaceCheckerTest, RejectsWaitsThatCanNeverBeSatisfied) {
  FanGraph f = MakeFanGraph();
  CommandList never;
  never.num_events = 1;
  never.streams = {{Op(f.c0, 1), Wait(0)}};
  Status status = CheckCommandListLiveness(never);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("no stream records"), std::string::npos) << status.message();

  CommandList later = never;  // waits on its own later record
  later.streams[0].push_back(Record(0));
  status = CheckCommandListLiveness(later);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("same stream records later"), std::string::npos)
      << status.message();

  CommandList cycle;  // stream 0 waits on stream 1, which waits on stream 0
  cycle.num_events = 2;
  cycle.streams = {{Wait(1), Op(f.c0, 1), Record(0)}, {Wait(0), Op(f.b1, 1), Record(1)}};
  status = CheckCommandListOrdering(f.graph, cycle, {});
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("deadlock"), std::string::npos) << status.message();

  CommandList three;  // a longer cycle through three streams, after some progress
  three.num_events = 4;
  three.streams = {
      {Record(3), Wait(2), Record(0)}, {Wait(3), Wait(0), Record(1)}, {Wait(1), Record(2)}};
  EXPECT_FALSE(CheckCommandListLiveness(three).ok());

  CommandList fine;  // a wait on an earlier record of the same stream is fine
  fine.num_events = 1;
  fine.streams = {{Record(0), Wait(0), Op(f.c0, 1)}};
  EXPECT_TRUE(CheckCommandListLiveness(fine).ok());

  CommandList bad_op;
  bad_op.streams = {{Op(999, 1)}};
  EXPECT_FALSE(CheckCommandListOrdering(f.graph, bad_op, {}).ok());
}

}  // namespace
}  // namespace ios
