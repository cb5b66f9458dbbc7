#include "plan/memory_plan.h"

#include <gtest/gtest.h>

#include <random>

#include "ir/fused_activation.h"
#include "passes/canonicalize.h"
#include "passes/fuse_residual_add.h"
#include "plan/in_place.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "sched/blocks.h"
#include "sched/schedule.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::GraphBuilder;

AttributeMap Axis1() {
  AttributeMap attrs;
  attrs.Set("axis", int64_t{1});
  return attrs;
}

// x -> conv -> conv -> conv -> conv, all of one size.
Graph Chain() {
  GraphBuilder b;
  ValueId v = b.Input("x", {1, 8, 16, 16});
  for (int i = 0; i < 4; ++i) v = b.Conv(v, 8, 3, 1);
  return b.Finish({v});
}

// conv -> {conv | conv -> conv} -> Add -> conv
Graph Diamond() {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 12, 12});
  ValueId top = b.Conv(x, 8, 3, 1);
  ValueId left = b.Conv(top, 8, 1);
  ValueId right = b.Conv(b.Conv(top, 8, 3, 1), 8, 1);
  ValueId sum = b.Op("Add", {left, right});
  return b.Finish({b.Conv(sum, 4, 1)});
}

// Two rails with rungs: left[i+1] = conv(left[i]), right[i+1] = conv(right[i] + left[i]).
Graph Ladder() {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 10, 10});
  ValueId left = b.Conv(x, 8, 3, 1);
  ValueId right = b.Conv(x, 8, 1);
  for (int i = 0; i < 4; ++i) {
    ValueId next_left = b.Conv(left, 8, 3, 1);
    right = b.Conv(b.Op("Add", {right, left}), 8, 1);
    left = next_left;
  }
  return b.Finish({b.Op("Concat", {left, right}, Axis1())});
}

// One conv fanning out into eight branches of different widths and depths, joined by a Concat.
Graph FanOutFanIn() {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 3, 16, 16});
  ValueId stem = b.Conv(x, 16, 3, 1);
  std::vector<ValueId> branches;
  for (int i = 0; i < 8; ++i) {
    ValueId v = b.Conv(stem, 4 + 2 * i, i % 2 == 0 ? 1 : 3, i % 2 == 0 ? 0 : 1);
    for (int depth = 0; depth < i % 3; ++depth) v = b.Conv(v, 4 + 2 * i, 3, 1);
    branches.push_back(v);
  }
  ValueId cat = b.Op("Concat", branches, Axis1());
  return b.Finish({b.Op("GlobalAveragePool", {cat})});
}

// A random DAG: each node reads one or two earlier values (a Concat joins two) and convolves.
Graph RandomDag(unsigned seed) {
  std::mt19937 rng(seed);
  GraphBuilder b;
  std::vector<ValueId> values = {b.Input("x", {1, 4, 8, 8})};
  for (int i = 0; i < 24; ++i) {
    std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
    ValueId in = values[pick(rng)];
    if (rng() % 2 == 0 && values.size() > 1) {
      ValueId other = values[pick(rng)];
      if (other != in) in = b.Op("Concat", {in, other}, Axis1());
    }
    bool wide = rng() % 2 == 0;  // 3x3 with padding 1 or 1x1: the spatial size stays 8x8
    values.push_back(b.Conv(in, 2 + static_cast<int64_t>(rng() % 12), wide ? 3 : 1, wide ? 1 : 0));
  }
  // Every value that nothing reads is an output, so that no branch is dead.
  Graph g = b.Finish({});
  std::vector<ValueId> outputs;
  for (ValueId v : values)
    if (g.values[v].consumers.empty()) outputs.push_back(v);
  g.outputs = outputs;
  g.RebuildUses();
  return g;
}

struct Scheduled {
  Graph graph;
  BlockStructure blocks;
};

// The schedules the whole-graph tests plan: sequential, and greedy with no stream limit and 2.
std::vector<Schedule> SchedulesOf(const BlockStructure& blocks) {
  return {SequentialSchedule(blocks), GreedySchedule(blocks, 0), GreedySchedule(blocks, 2)};
}

Scheduled Prepare(Graph graph) {
  Status status = Canonicalize(graph, CanonicalizeOptions{}, nullptr);
  EXPECT_TRUE(status.ok()) << status.message();
  auto blocks = PartitionIntoBlocks(graph, BlockOptions{});
  EXPECT_TRUE(blocks.ok()) << blocks.status().message();
  return {std::move(graph), std::move(blocks).value()};
}

MemoryPlan PlanOrFail(const Graph& graph, const Schedule& schedule) {
  auto plan = PlanMemory(graph, schedule, CpuKernelCaps());
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return {};
  Status check = CheckMemoryPlan(graph, schedule, plan.value(), CpuKernelCaps());
  EXPECT_TRUE(check.ok()) << schedule.kind << ": " << check.message();
  return plan.value();
}

// Byte ranges of two placements intersect.
bool Intersect(const TensorPlacement& a, const TensorPlacement& b) {
  return a.bytes > 0 && b.bytes > 0 && a.offset < b.offset + b.bytes &&
         b.offset < a.offset + a.bytes;
}

// Every tensor a group reads or writes is disjoint from those that the other groups of its stage
// read or write.
void ExpectConcurrentGroupsDisjoint(const Graph& graph, const Schedule& schedule,
                                    const MemoryPlan& plan) {
  std::vector<const TensorPlacement*> placement(graph.values.size(), nullptr);
  for (const TensorPlacement& p : plan.placements) placement[p.value] = &p;
  auto touched = [&](const ScheduleGroup& group) {
    std::vector<ValueId> values;
    for (NodeId n : group.nodes) {
      for (ValueId v : graph.nodes[n].inputs)
        if (v != kNoValue && placement[v] != nullptr) values.push_back(v);
      for (ValueId v : graph.nodes[n].outputs)
        if (v != kNoValue && placement[v] != nullptr) values.push_back(v);
    }
    return values;
  };
  for (const ScheduleBlock& block : schedule.blocks) {
    for (const ScheduleStage& stage : block.stages) {
      for (size_t g = 0; g < stage.groups.size(); ++g) {
        for (size_t h = g + 1; h < stage.groups.size(); ++h) {
          for (ValueId a : touched(stage.groups[g])) {
            for (ValueId c : touched(stage.groups[h])) {
              if (a == c) continue;  // both groups read the same input
              EXPECT_FALSE(Intersect(*placement[a], *placement[c]))
                  << graph.values[a].name << " and " << graph.values[c].name;
            }
          }
        }
      }
    }
  }
}

int MaxGroups(const Schedule& schedule) {
  size_t groups = 0;
  for (const ScheduleBlock& block : schedule.blocks)
    for (const ScheduleStage& stage : block.stages) groups = std::max(groups, stage.groups.size());
  return static_cast<int>(groups);
}

TEST(MemoryPlanTest, LiveIntervalsOfAChain) {
  Scheduled s = Prepare(Chain());
  Schedule schedule = SequentialSchedule(s.blocks);
  std::vector<LiveInterval> live = ComputeLiveIntervals(s.graph, schedule);
  // The input lives to the end, as the output does: a session can run again on it.
  ValueId x = s.graph.inputs[0];
  EXPECT_EQ(live[x].first, 0);
  EXPECT_EQ(live[x].last, 3);
  ValueId out = s.graph.outputs[0];
  EXPECT_EQ(live[out].first, 3);
  EXPECT_EQ(live[out].last, 3);
  for (const Node& node : s.graph.nodes) {
    const Value& w = s.graph.values[node.inputs[1]];
    ASSERT_TRUE(w.constant.has_value());
    EXPECT_EQ(live[node.inputs[1]].first, -1);
    EXPECT_EQ(live[node.inputs[1]].last, -1);
  }
  // The first conv's output is written in stage 0 and read in stage 1.
  ValueId c1 = s.graph.nodes[0].outputs[0];
  EXPECT_EQ(live[c1].first, 0);
  EXPECT_EQ(live[c1].last, 1);
}

TEST(MemoryPlanTest, SequentialChainReusesMemory) {
  Scheduled s = Prepare(Chain());
  Schedule schedule = SequentialSchedule(s.blocks);
  MemoryPlan plan = PlanOrFail(s.graph, schedule);
  const int64_t tensor = 1 * 8 * 16 * 16 * 4;
  EXPECT_EQ(plan.total_tensor_bytes, 5 * tensor);
  EXPECT_EQ(plan.placements.size(), 5u);
  // The input, kept for the whole run, and at most two other tensors at once.
  EXPECT_EQ(plan.arena_bytes, 3 * tensor);
  EXPECT_LT(plan.arena_bytes, plan.total_tensor_bytes);
}

TEST(MemoryPlanTest, SchedulesOfSeveralGraphsPassTheChecker) {
  std::vector<std::pair<std::string, Graph>> graphs = {
      {"chain", Chain()}, {"diamond", Diamond()}, {"ladder", Ladder()}, {"fan", FanOutFanIn()}};
  for (auto& [name, graph] : graphs) {
    SCOPED_TRACE(name);
    Scheduled s = Prepare(std::move(graph));
    for (const Schedule& schedule : SchedulesOf(s.blocks)) {
      SCOPED_TRACE(schedule.kind);
      ASSERT_TRUE(ValidateSchedule(s.graph, schedule).ok());
      MemoryPlan plan = PlanOrFail(s.graph, schedule);
      EXPECT_LE(plan.arena_bytes, plan.total_tensor_bytes + plan.alignment);
      for (const TensorPlacement& p : plan.placements) EXPECT_EQ(p.offset % plan.alignment, 0);
      ExpectConcurrentGroupsDisjoint(s.graph, schedule, plan);
    }
    // Sequential schedules of these graphs all free something before the end.
    MemoryPlan sequential = PlanOrFail(s.graph, SequentialSchedule(s.blocks));
    EXPECT_LT(sequential.arena_bytes, sequential.total_tensor_bytes);
  }
}

TEST(MemoryPlanTest, GreedyFanOutRunsBranchesConcurrentlyInDisjointMemory) {
  Scheduled s = Prepare(FanOutFanIn());
  Schedule greedy = GreedySchedule(s.blocks, 0);
  ASSERT_GE(MaxGroups(greedy), 4);  // the test is only meaningful with real concurrency
  MemoryPlan plan = PlanOrFail(s.graph, greedy);
  ExpectConcurrentGroupsDisjoint(s.graph, greedy, plan);
  // Concurrency costs memory: the greedy arena is at least the sequential one.
  MemoryPlan sequential = PlanOrFail(s.graph, SequentialSchedule(s.blocks));
  EXPECT_GE(plan.arena_bytes, sequential.arena_bytes);
}

TEST(MemoryPlanTest, RandomDagsPassTheChecker) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Graph graph = RandomDag(seed);
    graph.Compact();
    Scheduled s = Prepare(std::move(graph));
    for (const Schedule& schedule :
         {SequentialSchedule(s.blocks), GreedySchedule(s.blocks, 0), GreedySchedule(s.blocks, 3)}) {
      MemoryPlan plan = PlanOrFail(s.graph, schedule);
      ExpectConcurrentGroupsDisjoint(s.graph, schedule, plan);
    }
  }
}

// Two placed values whose live intervals overlap, or false.
bool FindLiveTogether(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                      size_t* a, size_t* b) {
  std::vector<LiveInterval> live = ComputeLiveIntervals(graph, schedule);
  for (size_t i = 0; i < plan.placements.size(); ++i) {
    for (size_t j = i + 1; j < plan.placements.size(); ++j) {
      const LiveInterval& p = live[plan.placements[i].value];
      const LiveInterval& q = live[plan.placements[j].value];
      if (p.first <= q.last && q.first <= p.last) {
        *a = i;
        *b = j;
        return true;
      }
    }
  }
  return false;
}

TEST(MemoryPlanTest, CheckerCatchesAPlantedOverlap) {
  Scheduled s = Prepare(Diamond());
  Schedule schedule = GreedySchedule(s.blocks, 0);
  MemoryPlan plan = PlanOrFail(s.graph, schedule);
  size_t a = 0, b = 0;
  ASSERT_TRUE(FindLiveTogether(s.graph, schedule, plan, &a, &b));
  MemoryPlan bad = plan;
  bad.placements[b].offset = bad.placements[a].offset;  // onto a live neighbour
  bad.arena_bytes = std::max(bad.arena_bytes, bad.placements[b].offset + bad.placements[b].bytes);
  Status status = CheckMemoryPlan(s.graph, schedule, bad, CpuKernelCaps());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("overlaps"), std::string::npos) << status.message();

  // A shift by one alignment unit into the neighbour is caught too.
  bad = plan;
  const TensorPlacement& target = bad.placements[a];
  bad.placements[b].offset = target.offset + (target.bytes > plan.alignment ? plan.alignment : 0);
  bad.arena_bytes += bad.placements[b].bytes + plan.alignment;
  EXPECT_FALSE(CheckMemoryPlan(s.graph, schedule, bad, CpuKernelCaps()).ok());
}

TEST(MemoryPlanTest, CheckerCatchesOtherBrokenPlans) {
  Scheduled s = Prepare(Chain());
  Schedule schedule = SequentialSchedule(s.blocks);
  MemoryPlan plan = PlanOrFail(s.graph, schedule);

  MemoryPlan misaligned = plan;
  misaligned.placements[0].offset += 4;
  misaligned.arena_bytes += 256;
  EXPECT_FALSE(CheckMemoryPlan(s.graph, schedule, misaligned, CpuKernelCaps()).ok());

  MemoryPlan outside = plan;
  outside.placements[0].offset = outside.arena_bytes;
  EXPECT_FALSE(CheckMemoryPlan(s.graph, schedule, outside, CpuKernelCaps()).ok());

  MemoryPlan missing = plan;
  missing.total_tensor_bytes -= missing.placements.back().bytes;
  missing.placements.pop_back();
  Status status = CheckMemoryPlan(s.graph, schedule, missing, CpuKernelCaps());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("no placement"), std::string::npos) << status.message();

  MemoryPlan wrong_size = plan;
  wrong_size.placements[0].bytes -= 4;
  wrong_size.total_tensor_bytes -= 4;
  EXPECT_FALSE(CheckMemoryPlan(s.graph, schedule, wrong_size, CpuKernelCaps()).ok());

  // Sharing one buffer between every tensor of a chain breaks the producer/reader pairs.
  MemoryPlan shared = plan;
  for (TensorPlacement& p : shared.placements) p.offset = 0;
  EXPECT_FALSE(CheckMemoryPlan(s.graph, schedule, shared, CpuKernelCaps()).ok());
}

TEST(MemoryPlanTest, OutputsStayLiveToTheEnd) {
  // The first conv's output is also a graph output: no later tensor may reuse its bytes.
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 16, 16});
  ValueId first = b.Conv(x, 8, 3, 1);
  ValueId v = first;
  for (int i = 0; i < 3; ++i) v = b.Conv(v, 8, 3, 1);
  Scheduled s = Prepare(b.Finish({first, v}));
  Schedule schedule = SequentialSchedule(s.blocks);
  MemoryPlan plan = PlanOrFail(s.graph, schedule);
  const TensorPlacement* out = nullptr;
  for (const TensorPlacement& p : plan.placements)
    if (p.value == s.graph.outputs[0]) out = &p;
  ASSERT_NE(out, nullptr);
  for (const TensorPlacement& p : plan.placements) {
    if (p.value != out->value) {
      EXPECT_FALSE(Intersect(p, *out)) << s.graph.values[p.value].name;
    }
  }
}

// ---- In-place elementwise ops --------------------------------------------------------------

// A squeeze-excite block: x -> conv c -> GAP -> conv -> Sigmoid -> Mul(c, gate) -> conv. The Mul
// is c's last reader, after the pool in an earlier stage.
Graph SqueezeExcite() {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 16, 16});
  ValueId c = b.Conv(x, 8, 3, 1);
  ValueId gate = b.Op("Sigmoid", {b.Conv(b.Op("GlobalAveragePool", {c}), 8, 1)});
  ValueId scaled = b.Op("Mul", {c, gate});
  return b.Finish({b.Conv(scaled, 8, 1)});
}

const TensorPlacement& PlacementOf(const MemoryPlan& plan, ValueId value) {
  for (const TensorPlacement& p : plan.placements)
    if (p.value == value) return p;
  ADD_FAILURE() << "value " << value << " has no placement";
  return plan.placements.front();
}

// The value that node `op_type` writes, and its input `index`.
std::pair<ValueId, ValueId> OutputAndInput(const Graph& graph, const std::string& op_type,
                                           size_t index) {
  for (const Node& node : graph.nodes)
    if (!node.dead && node.op_type == op_type) return {node.outputs[0], node.inputs[index]};
  ADD_FAILURE() << "no " << op_type;
  return {kNoValue, kNoValue};
}

TEST(MemoryPlanTest, AnElementwiseOpWritesOverTheInputItsStageKills) {
  Scheduled s = Prepare(SqueezeExcite());
  const Schedule schedule = SequentialSchedule(s.blocks);
  const auto [scaled, c] = OutputAndInput(s.graph, "Mul", 0);
  auto in_place = PlanMemory(s.graph, schedule, CpuKernelCaps(), 256, true, /*in_place=*/true);
  ASSERT_TRUE(in_place.ok()) << in_place.status().message();
  Status check = CheckMemoryPlan(s.graph, schedule, *in_place, CpuKernelCaps());
  ASSERT_TRUE(check.ok()) << check.message();
  EXPECT_EQ(PlacementOf(*in_place, scaled).offset, PlacementOf(*in_place, c).offset);
  EXPECT_EQ(PlacementOf(*in_place, scaled).bytes, PlacementOf(*in_place, c).bytes);
  // Off, the two tensors, live together in the Mul's stage, are apart.
  MemoryPlan apart = PlanOrFail(s.graph, schedule);
  EXPECT_NE(PlacementOf(apart, scaled).offset, PlacementOf(apart, c).offset);
  EXPECT_LE(in_place->arena_bytes, apart.arena_bytes);
  // The gate ([1,8,1,1], broadcast) is never written over: its dims are not the output's.
  const auto [scaled_again, gate] = OutputAndInput(s.graph, "Mul", 1);
  EXPECT_NE(PlacementOf(*in_place, gate).offset, PlacementOf(*in_place, scaled_again).offset);
}

// The Mul's input is also read, in the Mul's own stage, by a conv in another group: writing over
// it there would race with that read. The planner keeps them apart, and the checker refuses a
// plan that shares their bytes.
TEST(MemoryPlanTest, NoInPlaceWriteOverAnInputStillReadInTheSameStage) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 16, 16});
  ValueId c = b.Conv(x, 8, 3, 1);
  ValueId d = b.Conv(x, 8, 1);
  ValueId product = b.Op("Mul", {c, d});
  ValueId side = b.Conv(c, 8, 1);
  ValueId joined = b.Op("Concat", {b.Conv(product, 8, 1), side}, Axis1());
  Scheduled s = Prepare(b.Finish({b.Conv(joined, 8, 1)}));
  const auto [mul_out, mul_in] = OutputAndInput(s.graph, "Mul", 0);
  // Stage 0: both convs of x; stage 1: the Mul beside the conv of c; then the rest in order.
  NodeId mul = -1, side_conv = -1;
  std::vector<NodeId> first, rest;
  for (size_t n = 0; n < s.graph.nodes.size(); ++n) {
    const Node& node = s.graph.nodes[n];
    if (node.dead) continue;
    const NodeId id = static_cast<NodeId>(n);
    if (node.op_type == "Mul") {
      mul = id;
    } else if (node.op_type == "Conv" && node.inputs[0] == s.graph.inputs[0]) {
      first.push_back(id);
    } else if (node.op_type == "Conv" && node.inputs[0] == mul_in) {
      side_conv = id;
    } else {
      rest.push_back(id);
    }
  }
  ASSERT_GE(mul, 0);
  ASSERT_GE(side_conv, 0);
  ASSERT_EQ(first.size(), 2u);
  Schedule schedule;
  schedule.kind = "hand";
  ScheduleBlock block;
  ScheduleStage stage0, stage1;
  for (NodeId n : first) stage0.groups.push_back(ScheduleGroup{{n}});
  stage1.groups = {ScheduleGroup{{mul}}, ScheduleGroup{{side_conv}}};
  block.stages = {stage0, stage1};
  for (NodeId n : rest) {
    ScheduleStage one;
    one.groups = {ScheduleGroup{{n}}};
    block.stages.push_back(one);
  }
  schedule.blocks = {block};
  ASSERT_TRUE(ValidateSchedule(s.graph, schedule).ok());

  auto plan = PlanMemory(s.graph, schedule, CpuKernelCaps(), 256, true, /*in_place=*/true);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_TRUE(CheckMemoryPlan(s.graph, schedule, *plan, CpuKernelCaps()).ok());
  EXPECT_FALSE(Intersect(PlacementOf(*plan, mul_out), PlacementOf(*plan, mul_in)));

  MemoryPlan shared = *plan;
  for (TensorPlacement& p : shared.placements)
    if (p.value == mul_out) p.offset = PlacementOf(*plan, mul_in).offset;
  Status refused = CheckMemoryPlan(s.graph, schedule, shared, CpuKernelCaps());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("overlaps"), std::string::npos) << refused.message();

  // Sequentially, the conv of c runs in an earlier stage or a later one; in place or not, every
  // plan passes the checker.
  for (const Schedule& other : {SequentialSchedule(s.blocks), GreedySchedule(s.blocks, 0)}) {
    auto in_place = PlanMemory(s.graph, other, CpuKernelCaps(), 256, true, /*in_place=*/true);
    ASSERT_TRUE(in_place.ok());
    Status check = CheckMemoryPlan(s.graph, other, *in_place, CpuKernelCaps());
    EXPECT_TRUE(check.ok()) << other.kind << ": " << check.message();
  }
}

// Two residual blocks as the CPU lowering fuses them (passes/fuse_residual_add.h): in the first,
// Add(conv(conv(a)), a) fuses into the second conv with `a` as its residual, which dies there:
// the conv writes over it. In the second, Add(conv(b), b) fuses with b as both X and residual;
// a conv reading X while writing over it would be wrong, so that output keeps bytes of its own.
TEST(MemoryPlanTest, AConvWritesOverItsResidualButNotOverItsInput) {
  GraphBuilder builder;
  ValueId x = builder.Input("x", {1, 8, 16, 16});
  ValueId a = builder.Op("Relu", {builder.Conv(x, 8, 3, 1)});
  ValueId b =
      builder.Op("Relu", {builder.Op("Add", {builder.Conv(builder.Conv(a, 8, 1), 8, 3, 1), a})});
  ValueId c = builder.Op("Add", {builder.Conv(b, 8, 3, 1), b});
  Graph graph = builder.Finish({builder.Conv(c, 8, 1)});
  ASSERT_TRUE(Canonicalize(graph, CanonicalizeOptions{}, nullptr).ok());
  ASSERT_EQ(FuseConvResidualAdds(graph), 2);
  auto blocks = PartitionIntoBlocks(graph, BlockOptions{});
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  std::vector<const Node*> fused;
  for (const Node& node : graph.nodes)
    if (!node.dead && HasFusedResidual(node)) fused.push_back(&node);
  ASSERT_EQ(fused.size(), 2u);
  const Node& over_residual = *fused[0];
  const Node& reads_it_twice = *fused[1];
  ASSERT_EQ(reads_it_twice.inputs[0], reads_it_twice.inputs[3]);
  ASSERT_NE(over_residual.inputs[0], over_residual.inputs[3]);
  EXPECT_TRUE(MayRunInPlace(graph, over_residual, 3, CpuKernelCaps()));
  EXPECT_FALSE(MayRunInPlace(graph, over_residual, 0, CpuKernelCaps()));
  EXPECT_FALSE(MayRunInPlace(graph, reads_it_twice, 3, CpuKernelCaps()));

  for (const Schedule& schedule : SchedulesOf(*blocks)) {
    SCOPED_TRACE(schedule.kind);
    auto plan = PlanMemory(graph, schedule, CpuKernelCaps(), 256, true, /*in_place=*/true);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    Status check = CheckMemoryPlan(graph, schedule, *plan, CpuKernelCaps());
    ASSERT_TRUE(check.ok()) << check.message();
    EXPECT_EQ(PlacementOf(*plan, over_residual.outputs[0]).offset,
              PlacementOf(*plan, over_residual.inputs[3]).offset);
    EXPECT_FALSE(Intersect(PlacementOf(*plan, reads_it_twice.outputs[0]),
                           PlacementOf(*plan, reads_it_twice.inputs[0])));
    // Off, the residual and the output are apart.
    MemoryPlan apart = PlanOrFail(graph, schedule);
    EXPECT_FALSE(Intersect(PlacementOf(apart, over_residual.outputs[0]),
                           PlacementOf(apart, over_residual.inputs[3])));
  }
}

// A standalone Relu writes over its input when the Relu is that input's last reader, not when
// a later op still reads it.
TEST(MemoryPlanTest, AnActivationWritesOverTheInputItKills) {
  GraphBuilder builder;
  ValueId x = builder.Input("x", {1, 8, 16, 16});
  ValueId sum = builder.Op("Add", {builder.Conv(x, 8, 3, 1), builder.Conv(x, 8, 1)});
  ValueId relu = builder.Op("Relu", {sum});
  ValueId c = builder.Conv(relu, 8, 3, 1);
  ValueId kept = builder.Op("Sigmoid", {c});
  Graph graph = builder.Finish({builder.Op("Mul", {builder.Conv(kept, 8, 1), c})});
  Scheduled s = Prepare(std::move(graph));
  const Node* relu_node = nullptr;
  const Node* sigmoid_node = nullptr;
  for (const Node& node : s.graph.nodes) {
    if (node.dead) continue;
    if (node.op_type == "Relu") relu_node = &node;
    if (node.op_type == "Sigmoid") sigmoid_node = &node;
  }
  ASSERT_NE(relu_node, nullptr);
  ASSERT_NE(sigmoid_node, nullptr);
  EXPECT_TRUE(MayRunInPlace(s.graph, *relu_node, 0, CpuKernelCaps()));
  for (const Schedule& schedule : SchedulesOf(s.blocks)) {
    SCOPED_TRACE(schedule.kind);
    auto plan = PlanMemory(s.graph, schedule, CpuKernelCaps(), 256, true, /*in_place=*/true);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    Status check = CheckMemoryPlan(s.graph, schedule, *plan, CpuKernelCaps());
    ASSERT_TRUE(check.ok()) << check.message();
    EXPECT_EQ(PlacementOf(*plan, relu_node->outputs[0]).offset,
              PlacementOf(*plan, relu_node->inputs[0]).offset);
    // The Sigmoid's input is read again by the Mul.
    EXPECT_FALSE(Intersect(PlacementOf(*plan, sigmoid_node->outputs[0]),
                           PlacementOf(*plan, sigmoid_node->inputs[0])));
  }
}

// In place everywhere it is allowed, the plans of the test graphs still pass the checker and
// keep concurrent groups apart.
TEST(MemoryPlanTest, InPlacePlansPassTheChecker) {
  std::vector<std::pair<std::string, Graph>> graphs = {
      {"diamond", Diamond()}, {"ladder", Ladder()}, {"squeeze-excite", SqueezeExcite()}};
  for (auto& [name, graph] : graphs) {
    SCOPED_TRACE(name);
    Scheduled s = Prepare(std::move(graph));
    for (const Schedule& schedule : SchedulesOf(s.blocks)) {
      SCOPED_TRACE(schedule.kind);
      auto plan = PlanMemory(s.graph, schedule, CpuKernelCaps(), 256, true, /*in_place=*/true);
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      Status check = CheckMemoryPlan(s.graph, schedule, *plan, CpuKernelCaps());
      EXPECT_TRUE(check.ok()) << check.message();
      ExpectConcurrentGroupsDisjoint(s.graph, schedule, *plan);
    }
  }
}

}  // namespace
}  // namespace ios
