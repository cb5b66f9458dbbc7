// The CPU session as a server uses it: inputs set once, then run again (a retry, a benchmark's
// repeated runs) give the same outputs, bit for bit, because no tensor of the plan reuses the
// inputs' bytes (plan/memory_plan.h).
#include "runtime/cpu/cpu_session.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "plan/plan_builder.h"
#include "plan/plan_loader.h"
#include "small_fork_join_model.h"

namespace ios {
namespace {

TEST(CpuSessionTest, RunningAgainOnTheSameInputsGivesTheSameOutputs) {
  for (bool greedy : {false, true}) {
    SCOPED_TRACE(greedy ? "greedy" : "sequential");
    // A chain long enough for the arena to reuse bytes: every tensor after the first conv could
    // sit where the input was.
    testing::ScheduledGraph compiled =
        testing::ScheduleWithMemory(testing::SmallForkJoinGraph({2, 3, 16, 16}, "Relu"), greedy);
    PlanMetadata meta;
    meta.batch = 2;
    meta.device.set_kind("cpu");
    auto plan = BuildPlan(compiled.graph, compiled.schedule, compiled.memory, meta);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    auto loaded = LoadPlan(std::move(*plan), "small");
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    CpuSessionOptions options;
    options.threads = 2;
    auto session = CpuSession::Create(std::move(*loaded), options);
    ASSERT_TRUE(session.ok()) << session.status().message();

    Tensor input(DType::kFloat32, {2, 3, 16, 16});
    for (int64_t i = 0; i < input.num_elements(); ++i)
      input.data<float>()[i] = static_cast<float>((i * 37) % 11) - 5.0f;
    ASSERT_TRUE((*session)->SetInputs({input}).ok());
    ASSERT_TRUE((*session)->Run().ok());
    const std::vector<Tensor> first = (*session)->GetOutputs();
    for (int again = 0; again < 3; ++again) {
      ASSERT_TRUE((*session)->Run().ok());
      const std::vector<Tensor> next = (*session)->GetOutputs();
      ASSERT_EQ(next.size(), first.size());
      for (size_t o = 0; o < first.size(); ++o) {
        ASSERT_EQ(next[o].num_bytes(), first[o].num_bytes());
        EXPECT_EQ(std::memcmp(next[o].raw(), first[o].raw(), first[o].num_bytes()), 0)
            << "output " << o << " changed on run " << again + 2;
      }
    }
  }
}

}  // namespace
}  // namespace ios
