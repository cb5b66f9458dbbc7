// The CUDA stage profiler on a device: costs follow the work, are positive and repeatable,
// kernels, constants and buffers are made once and reused, merge stages are measured, and the
// per-plan conv algorithm selection records every conv.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../../test_graph_builder.h"
#include "gpu_test_util.h"
#include "profile/cuda/conv_algorithm_selection.h"
#include "profile/cuda/cuda_stage_profiler.h"
#include "runtime/cuda/kernels/cuda_kernel_table.h"
#include "sched/blocks.h"
#include "sched/schedule.h"

namespace ios {
namespace {

using testing::GraphBuilder;

ScheduleStage StageOf(std::vector<std::vector<NodeId>> groups,
                      StageStrategy strategy = StageStrategy::kConcurrent) {
  ScheduleStage stage;
  stage.strategy = strategy;
  for (auto& nodes : groups) stage.groups.push_back(ScheduleGroup{std::move(nodes)});
  return stage;
}

std::unique_ptr<CudaStageProfiler> MakeProfiler(CudaProfilerOptions options = {}) {
  auto profiler = CudaStageProfiler::Create(options);
  EXPECT_TRUE(profiler.ok()) << profiler.status().message();
  return profiler.ok() ? std::move(profiler.value()) : nullptr;
}

TEST(CudaStageProfilerGpuTest, FingerprintIsTheDevice) {
  IOS_SKIP_WITHOUT_GPU();
  auto profiler = MakeProfiler();
  ASSERT_NE(profiler, nullptr);
  const DeviceFingerprint fingerprint = profiler->Fingerprint();
  EXPECT_EQ(fingerprint.kind, "cuda");
  EXPECT_EQ(fingerprint.gpu_name, profiler->device().name);
  EXPECT_GE(fingerprint.compute_major, 7);
  EXPECT_GT(fingerprint.multiprocessors, 0);
  EXPECT_GT(fingerprint.cudnn_version, 0);
  EXPECT_EQ(profiler->Name(), "cuda-profiler");
}

TEST(CudaStageProfilerGpuTest, TwoGroupStageIsPositiveStableAndReusesKernels) {
  IOS_SKIP_WITHOUT_GPU();
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 64, 35, 35});
  ValueId a = b.Conv(x, 96, 3, 1);                 // node 0: group 0
  ValueId c = b.Conv(b.Conv(x, 48, 1), 64, 5, 2);  // nodes 1, 2: group 1, in order
  Graph g = b.Finish({a, c});
  auto profiler = MakeProfiler();
  ASSERT_NE(profiler, nullptr);
  std::vector<double> costs;
  for (int i = 0; i < 3; ++i) {
    StatusOr<double> ms = profiler->MeasureStage(g, StageOf({{0}, {1, 2}}));
    ASSERT_TRUE(ms.ok()) << ms.status().message();
    EXPECT_GT(*ms, 0);
    costs.push_back(*ms);
    if (i == 0) {
      EXPECT_EQ(profiler->counters().kernels_created, 3);
      EXPECT_EQ(profiler->counters().kernel_cache_hits, 0);
    }
  }
  const double lo = *std::min_element(costs.begin(), costs.end());
  const double hi = *std::max_element(costs.begin(), costs.end());
  EXPECT_LT(hi, 1.5 * lo) << "costs " << costs[0] << ", " << costs[1] << ", " << costs[2];
  const CudaProfilerCounters& counters = profiler->counters();
  EXPECT_EQ(counters.kernels_created, 3) << "kernels are cached per node";
  EXPECT_EQ(counters.kernel_cache_hits, 6);
  EXPECT_EQ(counters.constants_uploaded, 6) << "three weights and three biases, once";
  EXPECT_EQ(counters.buffers_allocated, 4) << "x, and the three conv outputs";
  EXPECT_EQ(counters.stages_measured, 3);
  EXPECT_GT(counters.launch_overhead_ms, 0);
  EXPECT_LT(counters.launch_overhead_ms, 0.1) << "an empty graph launch is microseconds";
  // Three stages and the baseline, each 3 (min_repeats) to 7 (repeats) samples.
  const CudaProfilerOptions defaults;
  EXPECT_GE(counters.samples_taken, 4 * defaults.min_repeats);
  EXPECT_LE(counters.samples_taken, 4 * defaults.repeats);
}

TEST(CudaStageProfilerGpuTest, WithoutASettleToleranceEveryRepeatIsTaken) {
  IOS_SKIP_WITHOUT_GPU();
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 32, 28, 28});
  Graph g = b.Finish({b.Conv(x, 32, 3, 1)});
  CudaProfilerOptions options;
  options.settle_tolerance = 0;
  auto profiler = MakeProfiler(options);
  ASSERT_NE(profiler, nullptr);
  ASSERT_TRUE(profiler->MeasureStage(g, StageOf({{0}})).ok());
  EXPECT_EQ(profiler->counters().samples_taken, 2 * options.repeats) << "the stage and baseline";
}

TEST(CudaStageProfilerGpuTest, BigConvCostsMoreThanSmallConv) {
  IOS_SKIP_WITHOUT_GPU();
  GraphBuilder b;
  ValueId x = b.Input("x", {8, 128, 56, 56});
  ValueId big = b.Conv(x, 256, 3, 1);   // 7.4 G multiply-adds
  ValueId small = b.Conv(x, 16, 1, 0);  // 51 M
  Graph g = b.Finish({big, small});
  auto profiler = MakeProfiler();
  ASSERT_NE(profiler, nullptr);
  StatusOr<double> big_ms = profiler->MeasureStage(g, StageOf({{0}}));
  StatusOr<double> small_ms = profiler->MeasureStage(g, StageOf({{1}}));
  ASSERT_TRUE(big_ms.ok()) << big_ms.status().message();
  ASSERT_TRUE(small_ms.ok()) << small_ms.status().message();
  EXPECT_GT(*big_ms, 4 * *small_ms) << "big " << *big_ms << " ms, small " << *small_ms << " ms";
}

TEST(CudaStageProfilerGpuTest, MeasuresMergeStagesAndCachesTheScratchGraph) {
  IOS_SKIP_WITHOUT_GPU();
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 64, 17, 17});
  ValueId a = b.Conv(x, 32, 1);     // node 0
  ValueId c = b.Conv(x, 48, 3, 1);  // node 1
  Graph g = b.Finish({a, c});
  auto profiler = MakeProfiler();
  ASSERT_NE(profiler, nullptr);
  StatusOr<double> first = profiler->MeasureStage(g, StageOf({{0}, {1}}, StageStrategy::kMerge));
  ASSERT_TRUE(first.ok()) << first.status().message();
  const int64_t created = profiler->counters().kernels_created;
  EXPECT_EQ(created, 2) << "the merged conv and its split";
  StatusOr<double> second = profiler->MeasureStage(g, StageOf({{0}, {1}}, StageStrategy::kMerge));
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_GT(*first, 0);
  EXPECT_EQ(profiler->counters().kernels_created, created);
  EXPECT_EQ(profiler->counters().merge_stages_measured, 2);
}

TEST(CudaStageProfilerGpuTest, PrepareGraphCreatesEveryKernelOnce) {
  IOS_SKIP_WITHOUT_GPU();
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 16, 20, 20});
  ValueId a = b.Conv(x, 16, 3, 1);
  ValueId c = b.Conv(a, 16, 1);
  Graph g = b.Finish({c});
  auto profiler = MakeProfiler();
  ASSERT_NE(profiler, nullptr);
  Status prepared = profiler->PrepareGraph(g);
  ASSERT_TRUE(prepared.ok()) << prepared.message();
  EXPECT_EQ(profiler->counters().kernels_created, 2);
  StatusOr<double> ms = profiler->MeasureStage(g, StageOf({{0, 1}}));
  ASSERT_TRUE(ms.ok()) << ms.status().message();
  EXPECT_EQ(profiler->counters().kernels_created, 2);
}

TEST(CudaStageProfilerGpuTest, ConvAlgorithmSelectionRecordsEveryConv) {
  IOS_SKIP_WITHOUT_GPU();
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 32, 28, 28});
  ValueId a = b.Conv(x, 32, 3, 1);  // node 0
  ValueId c = b.Conv(a, 64, 1);     // node 1
  Graph g = b.Finish({c});
  auto blocks = PartitionIntoBlocks(g, BlockOptions{});
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  auto memory = PlanMemory(g, SequentialSchedule(*blocks), CudaKernelCaps());
  ASSERT_TRUE(memory.ok()) << memory.status().message();
  for (bool tf32 : {false, true}) {
    ConvAlgorithmSelectionOptions options;
    options.allow_tf32 = tf32;
    auto cuda = SelectConvAlgorithms(g, *memory, options);
    ASSERT_TRUE(cuda.ok()) << cuda.status().message();
    EXPECT_EQ(cuda->allow_tf32(), tf32);
    ASSERT_EQ(cuda->conv_algorithms_size(), 2);
    EXPECT_EQ(cuda->conv_algorithms(0).op(), 0);
    EXPECT_EQ(cuda->conv_algorithms(1).op(), 1);
    for (const plan::ConvAlgorithm& algorithm : cuda->conv_algorithms()) {
      EXPECT_GE(algorithm.algo(), 0);
      EXPECT_LE(algorithm.workspace_bytes(), int64_t{64} << 20);
    }
  }
}

}  // namespace
}  // namespace ios
