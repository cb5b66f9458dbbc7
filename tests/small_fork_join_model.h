// The small model of the plan and session tests: conv+activation -> {conv | maxpool} -> Concat
// -> conv, canonicalized, and its schedule (greedy: the middle stage runs two groups) with
// its memory plan.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "passes/canonicalize.h"
#include "plan/memory_plan.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "sched/blocks.h"
#include "test_graph_builder.h"

namespace ios::testing {

// `input` is the NCHW input shape (3 channels); `activation` follows the first conv.
inline Graph SmallForkJoinGraph(const Dims& input, const std::string& activation,
                                const AttributeMap& activation_attrs = {}) {
  GraphBuilder b;
  ValueId x = b.Input("x", input);
  ValueId a = b.Conv(x, 8, 3, 1, 1, 1, "conv_a");
  ValueId act = b.Op(activation, {a}, activation_attrs, "act");
  ValueId left = b.Conv(act, 8, 1, 0, 1, 1, "conv_left");
  AttributeMap pool;
  pool.Set("kernel_shape", std::vector<int64_t>{3, 3});
  pool.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  pool.Set("strides", std::vector<int64_t>{1, 1});
  ValueId right = b.Op("MaxPool", {act}, pool, "pool_right");
  AttributeMap axis;
  axis.Set("axis", int64_t{1});
  ValueId cat = b.Op("Concat", {left, right}, axis, "concat");
  ValueId out = b.Conv(cat, 4, 1, 0, 1, 1, "conv_out");
  Graph graph = b.Finish({out});
  graph.name = "small";
  Status status = Canonicalize(graph, CanonicalizeOptions{}, nullptr);
  EXPECT_TRUE(status.ok()) << status.message();
  return graph;
}

struct ScheduledGraph {
  Graph graph;
  Schedule schedule;
  MemoryPlan memory;
};

// A greedy (or sequential) schedule of `graph` and its memory plan.
inline ScheduledGraph ScheduleWithMemory(Graph graph, bool greedy) {
  ScheduledGraph result;
  result.graph = std::move(graph);
  auto blocks = PartitionIntoBlocks(result.graph, BlockOptions{});
  EXPECT_TRUE(blocks.ok()) << blocks.status().message();
  result.schedule = greedy ? GreedySchedule(blocks.value(), 0) : SequentialSchedule(blocks.value());
  auto memory = PlanMemory(result.graph, result.schedule, CpuKernelCaps());
  EXPECT_TRUE(memory.ok()) << memory.status().message();
  if (memory.ok()) result.memory = memory.value();
  return result;
}

}  // namespace ios::testing
