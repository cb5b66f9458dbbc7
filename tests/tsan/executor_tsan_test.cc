// The stream executor under ThreadSanitizer. The runner reads and writes plain (non-atomic)
// memory per value and has no synchronisation of its own, so the executor's events are the only
// happens-before edges between ops on different streams: a missing or broken event is a data
// race that TSAN reports, whatever the timing. Values share arena memory the way a memory plan
// reuses it (a value dead after one stage is overwritten in a later stage, on another stream),
// so write-after-read across streams is exercised as well as read-after-write.
//
// DISABLED_PlantedMissingWait removes one wait and must make TSAN report a race; ctest runs it
// alone (tsan.planted_race_is_caught) and passes only on "ThreadSanitizer: data race".
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "ir/graph.h"
#include "runtime/command_list.h"
#include "runtime/executor.h"
#include "runtime/race_checker.h"
#include "sched/schedule.h"

namespace ios {
namespace {

constexpr int kWords = 16;  // int64 words per value in the arena

// x -> A -> 4 chains (B_i1 -> B_i2) -> C -> {D1(C, B_12) | D2(C) | D3(C, B_32)} -> E.
// Arena slots: every value has its own slot except three that reuse the slots of values dead by
// then: D2 takes B_31's, D3 takes B_41's (both written and read on another stream in stage B),
// and E takes A's (read by every stream in stage B).
struct TestModel {
  Graph graph;
  NodeId a = kNoNode, c = kNoNode, e = kNoNode;
  std::vector<std::vector<NodeId>> b;  // b[i] = {B_i1, B_i2}
  std::vector<NodeId> d;
  std::vector<int> slot;  // per value: arena slot, or -1 (the graph input lives outside)
  int num_slots = 0;
  Schedule schedule;
};

ValueId Output(const Graph& graph, NodeId node) { return graph.nodes[node].outputs[0]; }

NodeId AddOp(Graph& graph, const std::string& name, const std::vector<NodeId>& producers,
             ValueId graph_input = kNoValue) {
  Value out;
  out.name = name + ":0";
  ValueId out_id = graph.AddValue(out);
  Node node;
  node.name = name;
  node.op_type = "Test";
  if (graph_input != kNoValue) node.inputs.push_back(graph_input);
  for (NodeId p : producers) node.inputs.push_back(Output(graph, p));
  node.outputs = {out_id};
  return graph.AddNode(node);
}

ScheduleStage Stage(std::vector<std::vector<NodeId>> groups) {
  ScheduleStage stage;
  for (auto& nodes : groups) stage.groups.push_back({std::move(nodes)});
  return stage;
}

TestModel MakeModel() {
  TestModel m;
  Graph& g = m.graph;
  g.name = "tsan_model";
  Value x;
  x.name = "x";
  x.is_graph_input = true;
  ValueId x_id = g.AddValue(x);
  g.inputs = {x_id};
  m.a = AddOp(g, "A", {}, x_id);
  for (int i = 1; i <= 4; ++i) {
    NodeId first = AddOp(g, "B_" + std::to_string(i) + "1", {m.a});
    NodeId second = AddOp(g, "B_" + std::to_string(i) + "2", {first});
    m.b.push_back({first, second});
  }
  m.c = AddOp(g, "C", {m.b[0][1], m.b[1][1], m.b[2][1], m.b[3][1]});
  m.d.push_back(AddOp(g, "D1", {m.c, m.b[0][1]}));
  m.d.push_back(AddOp(g, "D2", {m.c}));
  m.d.push_back(AddOp(g, "D3", {m.c, m.b[2][1]}));
  m.e = AddOp(g, "E", m.d);
  g.outputs = {Output(g, m.e)};
  g.RebuildUses();

  m.slot.assign(g.values.size(), -1);
  for (size_t v = 0; v < g.values.size(); ++v)
    if (!g.values[v].is_graph_input) m.slot[v] = m.num_slots++;
  m.slot[Output(g, m.d[1])] = m.slot[Output(g, m.b[2][0])];
  m.slot[Output(g, m.d[2])] = m.slot[Output(g, m.b[3][0])];
  m.slot[Output(g, m.e)] = m.slot[Output(g, m.a)];

  ScheduleBlock block;
  block.stages.push_back(Stage({{m.a}}));
  block.stages.push_back(Stage({m.b[0], m.b[1], m.b[2], m.b[3]}));
  block.stages.push_back(Stage({{m.c}}));
  block.stages.push_back(Stage({{m.d[0]}, {m.d[1]}, {m.d[2]}}));
  block.stages.push_back(Stage({{m.e}}));
  m.schedule.kind = "hand";
  m.schedule.blocks.push_back(block);
  return m;
}

std::vector<std::pair<int64_t, int64_t>> ByteRanges(const TestModel& m) {
  std::vector<std::pair<int64_t, int64_t>> ranges(m.graph.values.size(), {-1, -1});
  const int64_t bytes = kWords * static_cast<int64_t>(sizeof(int64_t));
  for (size_t v = 0; v < ranges.size(); ++v)
    if (m.slot[v] >= 0) ranges[v] = {m.slot[v] * bytes, (m.slot[v] + 1) * bytes};
  return ranges;
}

// Reads every word of every input slot, writes every word of the output slot. Plain memory, no
// atomics, no locks.
class ArenaRunner : public OpRunner {
 public:
  explicit ArenaRunner(const TestModel& model)
      : arena(static_cast<size_t>(model.num_slots) * kWords, 0),
        runs(model.graph.nodes.size(), 0),
        model_(model) {}

  Status RunOp(NodeId op, int threads) override {
    if (sleep_ops.count(op)) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ++runs[op];  // one stream per op: never shared
    if (op == fail_op) return Internal("planted failure");
    const Node& node = model_.graph.nodes[op];
    int64_t sum = op + 1;
    for (ValueId in : node.inputs) {
      if (model_.slot[in] < 0) continue;  // the graph input
      for (int w = 0; w < kWords; ++w) sum += arena[model_.slot[in] * kWords + w];
    }
    int64_t* out = &arena[model_.slot[node.outputs[0]] * kWords];
    for (int w = 0; w < kWords; ++w) out[w] = sum + w;
    return Status::Ok();
  }

  std::vector<int64_t> arena;
  std::vector<int> runs;
  std::set<NodeId> sleep_ops;
  NodeId fail_op = kNoNode;

 private:
  const TestModel& model_;
};

// The final output word, computed by running every op on this thread in schedule order.
int64_t SequentialResult(const TestModel& m) {
  ArenaRunner runner(m);
  for (const ScheduleBlock& block : m.schedule.blocks)
    for (const ScheduleStage& stage : block.stages)
      for (const ScheduleGroup& group : stage.groups)
        for (NodeId n : group.nodes) EXPECT_TRUE(runner.RunOp(n, 1).ok());
  return runner.arena[m.slot[Output(m.graph, m.e)] * kWords];
}

TEST(ExecutorTsanTest, MultiStreamListsRunWithoutRaces) {
  TestModel m = MakeModel();
  const int64_t expected = SequentialResult(m);
  StreamExecutor executor(4);
  for (int max_streams : {4, 2, 3, 1}) {
    auto list = LowerToCommands(m.graph, m.schedule, max_streams, 4);
    ASSERT_TRUE(list.ok()) << list.status().message();
    ASSERT_TRUE(CheckForkJoin(*list).ok());
    Status ordered = CheckCommandListOrdering(m.graph, *list, ByteRanges(m));
    ASSERT_TRUE(ordered.ok()) << ordered.message();
    ArenaRunner runner(m);
    for (int run = 0; run < 40; ++run) {
      Status status = executor.Run(*list, runner);
      ASSERT_TRUE(status.ok()) << status.message();
      ASSERT_EQ(runner.arena[m.slot[Output(m.graph, m.e)] * kWords], expected)
          << "max_streams " << max_streams << " run " << run;
    }
    for (size_t n = 0; n < m.graph.nodes.size(); ++n) EXPECT_EQ(runner.runs[n], 40);
  }
}

TEST(ExecutorTsanTest, FailuresReleaseWaitersWithoutRaces) {
  TestModel m = MakeModel();
  auto list = LowerToCommands(m.graph, m.schedule, 4, 4);
  ASSERT_TRUE(list.ok());
  StreamExecutor executor(4);
  for (NodeId fail : {m.a, m.b[1][0], m.b[3][1], m.c, m.d[2], m.e}) {
    ArenaRunner runner(m);
    runner.fail_op = fail;
    Status status = executor.Run(*list, runner);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("planted failure"), std::string::npos);
    EXPECT_EQ(runner.runs[m.e], fail == m.e ? 1 : 0);
    runner.fail_op = kNoNode;
    ASSERT_TRUE(executor.Run(*list, runner).ok());
  }
}

TEST(ExecutorTsanTest, DISABLED_PlantedMissingWait) {
  TestModel m = MakeModel();
  auto list = LowerToCommands(m.graph, m.schedule, 4, 4);
  ASSERT_TRUE(list.ok());
  // Stream 1 runs chain 2 (B_21 reads A's output); drop its wait on the fork after A.
  CommandList planted = *list;
  ASSERT_EQ(planted.streams[1].front().kind, CommandKind::kWaitEvent);
  planted.streams[1].erase(planted.streams[1].begin());
  Status status = CheckCommandListOrdering(m.graph, planted, ByteRanges(m));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("node 'A' (Test) on stream 0 writes"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("node 'B_21' (Test) on stream 1 reads"), std::string::npos)
      << status.message();

  // A (origin) writes A:0 and B_21 (stream 1) reads it. The executor gives each event its own
  // lock, so the only edges between the two workers are the list's record -> wait pairs and the
  // control lock at the start and end of their streams: worker 1's last synchronisation before
  // the read is its wake-up, and worker 0 runs A right after its own wake-up and cannot finish
  // its stream before stream 1 records its join. No happens-before either way, so TSAN reports
  // the race whichever access comes first (it does so without the sleeps too); the sleeps make
  // the accesses overlap in time as well.
  StreamExecutor executor(4);
  ArenaRunner runner(m);
  runner.sleep_ops = {m.a, m.b[1][0]};
  for (int run = 0; run < 3; ++run) (void)executor.Run(planted, runner);
  ADD_FAILURE() << "expected ThreadSanitizer to stop the program at the planted race";
}

}  // namespace
}  // namespace ios
