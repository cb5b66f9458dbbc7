// ThreadSanitizer over the CPU session with its real kernels (scripts/sanitize.sh builds it with
// IOS_SANITIZE=thread): Inception V3's IOS plan (searched with the analytic V100 model, whose
// stages run up to several groups concurrently) runs on four stream threads, repeatedly. The
// executor's events are all that orders ops on different streams; a missing wait between a
// producer and a reader on another stream, or two concurrent writers of one arena range, is a
// TSAN report. Each op runs on its stream's thread alone (max_threads_per_op = 1): TSAN cannot
// see OpenMP's own synchronisation, and the streams are what it checks. oneDNN and the OpenMP
// runtime are not instrumented; tsan_suppressions.txt says why their calls are left out.
// The outputs must also equal a single-stream run of the same plan.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "benchmark_network.h"
#include "cost/analytic_model.h"
#include "plan/memory_plan.h"
#include "plan/plan_builder.h"
#include "plan/plan_loader.h"
#include "runtime/cpu/cpu_session.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "sched/blocks.h"
#include "sched/ios_scheduler.h"

namespace ios {
namespace {

StatusOr<LoadedPlan> InceptionIosPlan() {
  IOS_ASSIGN_OR_RETURN(Graph graph, testing::LoadBenchmarkNetwork("inception_v3", 1));
  IOS_ASSIGN_OR_RETURN(BlockStructure blocks, PartitionIntoBlocks(graph, BlockOptions{}));
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<AnalyticCostSource> sim, MakeAnalyticCostSource("V100"));
  IOS_ASSIGN_OR_RETURN(IosSearchResult search, IosSchedule(graph, blocks, *sim, IosOptions{}));
  IOS_ASSIGN_OR_RETURN(MemoryPlan memory,
                       PlanMemory(graph, search.schedule, CpuKernelCaps(), 256, true));
  PlanMetadata meta;
  meta.batch = 1;
  meta.device.set_kind("cpu");
  IOS_ASSIGN_OR_RETURN(plan::Plan plan, BuildPlan(graph, search.schedule, memory, meta));
  return LoadPlan(std::move(plan), "inception_v3 (ios)", CpuKernelCaps());
}

StatusOr<std::vector<Tensor>> RunOnStreams(LoadedPlan plan, int streams, const Tensor& input,
                                           int times) {
  CpuSessionOptions options;
  options.threads = streams;
  options.max_streams = streams;
  options.max_threads_per_op = 1;  // no OpenMP teams: TSAN cannot see their synchronisation
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<CpuSession> session,
                       CpuSession::Create(std::move(plan), options));
  IOS_RETURN_IF_ERROR(session->SetInputs({input}));
  for (int i = 0; i < times; ++i) IOS_RETURN_IF_ERROR(session->Run());
  return session->GetOutputs();
}

TEST(CpuSessionTsanTest, InceptionIosPlanOnFourStreams) {
  auto plan = InceptionIosPlan();
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  int concurrent_stages = 0;
  for (const ScheduleBlock& block : plan->schedule.blocks)
    for (const ScheduleStage& stage : block.stages) concurrent_stages += stage.groups.size() > 1;
  ASSERT_GT(concurrent_stages, 0) << "the IOS plan should run groups concurrently";

  Tensor input(DType::kFloat32, plan->graph.values[plan->graph.inputs[0]].dims);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  for (int64_t i = 0; i < input.num_elements(); ++i) input.data<float>()[i] = normal(rng);

  auto single = RunOnStreams(*plan, 1, input, 1);
  ASSERT_TRUE(single.ok()) << single.status().message();
  auto concurrent = RunOnStreams(std::move(*plan), 4, input, 3);
  ASSERT_TRUE(concurrent.ok()) << concurrent.status().message();
  ASSERT_EQ(single->size(), concurrent->size());
  for (size_t o = 0; o < single->size(); ++o) {
    const Tensor& a = (*single)[o];
    const Tensor& b = (*concurrent)[o];
    ASSERT_EQ(a.dims(), b.dims());
    double worst = 0;
    for (int64_t i = 0; i < a.num_elements(); ++i)
      worst = std::max(worst, std::fabs(double(a.data<float>()[i]) - b.data<float>()[i]));
    EXPECT_LT(worst, 1e-5) << "output " << o;
  }
  std::printf("%d stages of the IOS plan ran groups concurrently on 4 streams\n",
              concurrent_stages);
}

}  // namespace
}  // namespace ios
