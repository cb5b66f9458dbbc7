// A small plan for the GPU session tests: conv+Relu -> {conv | maxpool} -> Concat -> conv, with
// a greedy schedule (the middle stage runs two groups on two streams) or a sequential one.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "../test_graph_builder.h"
#include "passes/canonicalize.h"
#include "plan/memory_plan.h"
#include "plan/plan_builder.h"
#include "plan/plan_loader.h"
#include "sched/blocks.h"

namespace ios::testing {

inline LoadedPlan SmallCudaPlan(bool greedy) {
  GraphBuilder b;
  ValueId x = b.Input("x", {2, 3, 16, 16});
  ValueId a = b.Conv(x, 8, 3, 1, 1, 1, "conv_a");
  ValueId act = b.Op("Relu", {a}, {}, "relu");
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

  auto blocks = PartitionIntoBlocks(graph, BlockOptions{});
  EXPECT_TRUE(blocks.ok()) << blocks.status().message();
  Schedule schedule =
      greedy ? GreedySchedule(blocks.value(), 0) : SequentialSchedule(blocks.value());
  auto memory = PlanMemory(graph, schedule);
  EXPECT_TRUE(memory.ok()) << memory.status().message();
  PlanMetadata meta;
  meta.batch = 2;
  meta.device.set_kind("sim");
  meta.device.set_sim_model("A100");
  auto plan = BuildPlan(graph, schedule, memory.value(), meta);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  auto loaded = LoadPlan(plan.value(), "small.iosplan");
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  return std::move(loaded).value();
}

}  // namespace ios::testing
