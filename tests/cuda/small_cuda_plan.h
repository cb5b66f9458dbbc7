// A small plan for the GPU session tests: conv+Relu -> {conv | maxpool} -> Concat -> conv, with
// a greedy schedule (the middle stage runs two groups on two streams) or a sequential one.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "../small_fork_join_model.h"
#include "plan/plan_builder.h"
#include "plan/plan_loader.h"
#include "runtime/cuda/kernels/cuda_kernel_table.h"

namespace ios::testing {

inline LoadedPlan SmallCudaPlan(bool greedy) {
  ScheduledGraph c = ScheduleWithMemory(SmallForkJoinGraph({2, 3, 16, 16}, "Relu"), greedy);
  PlanMetadata meta;
  meta.batch = 2;
  meta.device.set_kind("sim");
  meta.device.set_sim_model("A100");
  auto plan = BuildPlan(c.graph, c.schedule, c.memory, meta);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  auto loaded = LoadPlan(plan.value(), "small.iosplan", CudaKernelCaps());
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  return std::move(loaded).value();
}

}  // namespace ios::testing
