// The CPU session as a server uses it: inputs set once, then run again (a retry, a benchmark's
// repeated runs) give the same outputs, bit for bit, because no tensor of the plan reuses the
// inputs' bytes (plan/memory_plan.h).
#include "runtime/cpu/cpu_session.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/reference/reference_graph.h"
#include "plan/plan_builder.h"
#include "plan/plan_loader.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "small_fork_join_model.h"
#include "tensor_compare.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

// A CPU session running `compiled` as a plan of batch `batch` would.
StatusOr<std::unique_ptr<CpuSession>> SessionOf(const testing::ScheduledGraph& compiled,
                                                int64_t batch, const CpuSessionOptions& options) {
  PlanMetadata meta;
  meta.batch = batch;
  meta.device.set_kind("cpu");
  IOS_ASSIGN_OR_RETURN(plan::Plan plan,
                       BuildPlan(compiled.graph, compiled.schedule, compiled.memory, meta));
  IOS_ASSIGN_OR_RETURN(LoadedPlan loaded, LoadPlan(std::move(plan), "test", CpuKernelCaps()));
  return CpuSession::Create(std::move(loaded), options);
}

TEST(CpuSessionTest, RunningAgainOnTheSameInputsGivesTheSameOutputs) {
  for (bool greedy : {false, true}) {
    SCOPED_TRACE(greedy ? "greedy" : "sequential");
    // A chain long enough for the arena to reuse bytes: every tensor after the first conv could
    // sit where the input was.
    testing::ScheduledGraph compiled =
        testing::ScheduleWithMemory(testing::SmallForkJoinGraph({2, 3, 16, 16}, "Relu"), greedy);
    CpuSessionOptions options;
    options.threads = 2;
    auto session = SessionOf(compiled, 2, options);
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

// The session frees each constant that every op reading it copied when its kernel was made
// (prepacked conv weights, the bias), and keeps those an op reads where they live.
TEST(CpuSessionTest, HoldsOnlyTheConstantsItsKernelsRead) {
  testing::GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 8, 8});
  ValueId c1 = b.Conv(x, 4, 3, 1);  // weights w0 [4,4,3,3], bias b1
  ValueId c2 = b.Conv(c1, 4, 1);    // w2 [4,4,1,1], b3
  const ValueId w0 = b.graph().FindValue("w0");
  const ValueId w2 = b.graph().FindValue("w2");
  ASSERT_NE(w0, kNoValue);
  ASSERT_NE(w2, kNoValue);
  ValueId read = b.Op("Relu", {w0});  // w0 is also read as it is
  testing::ScheduledGraph compiled = testing::ScheduleWithMemory(b.Finish({c2, read}), false);
  Tensor input(DType::kFloat32, {1, 4, 8, 8});
  for (int64_t i = 0; i < input.num_elements(); ++i)
    input.data<float>()[i] = static_cast<float>((i * 29) % 13) / 6.0f - 1.0f;
  auto expected = EvaluateGraphReference(compiled.graph, {input});
  ASSERT_TRUE(expected.ok()) << expected.status().message();

  auto session = SessionOf(compiled, 1, CpuSessionOptions{});
  ASSERT_TRUE(session.ok()) << session.status().message();
  const Graph& held = (*session)->graph();
  EXPECT_TRUE(held.values[w0].constant.has_value()) << "the Relu reads w0";
  EXPECT_FALSE(held.values[w2].constant.has_value());
  // b1, w2 and b3: 4 + 16 + 4 floats.
  EXPECT_EQ((*session)->released_constant_bytes(), int64_t{24 * 4});

  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE((*session)->SetInputs({input}).ok());
    ASSERT_TRUE((*session)->Run().ok());
    const std::vector<Tensor> outputs = (*session)->GetOutputs();
    ASSERT_EQ(outputs.size(), expected->size());
    for (size_t o = 0; o < outputs.size(); ++o) {
      SCOPED_TRACE("output " + std::to_string(o) + ", run " + std::to_string(run));
      testing::ExpectTensorsNear((*expected)[o], outputs[o], 1e-4, 0);
    }
  }
}

// A plan whose memory plan lets two concurrent groups write the same bytes is refused when the
// session is made, naming the race (runtime/plan_ordering.h), unless the check is turned off.
TEST(CpuSessionTest, RefusesAPlanWhoseConcurrentGroupsShareBytes) {
  testing::ScheduledGraph compiled =
      testing::ScheduleWithMemory(testing::SmallForkJoinGraph({2, 3, 16, 16}, "Relu"), true);
  auto output_of = [&](const std::string& name) {
    for (const Node& node : compiled.graph.nodes)
      if (node.name == name && !node.dead) return node.outputs[0];
    return kNoValue;
  };
  const ValueId left = output_of("conv_left");
  const ValueId right = output_of("pool_right");
  ASSERT_NE(left, kNoValue);
  ASSERT_NE(right, kNoValue);
  PlanMetadata meta;
  meta.batch = 2;
  meta.device.set_kind("cpu");
  auto plan = BuildPlan(compiled.graph, compiled.schedule, compiled.memory, meta);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  for (bool check : {true, false}) {
    auto loaded = LoadPlan(*plan, "test", CpuKernelCaps());
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    // The two groups of the middle stage: the pool now writes its own tensor where the conv
    // writes its slice of the Concat.
    TensorPlacement* left_at = nullptr;
    TensorPlacement* right_at = nullptr;
    for (TensorPlacement& p : loaded->memory.placements) {
      if (p.value == left) left_at = &p;
      if (p.value == right) right_at = &p;
    }
    ASSERT_TRUE(left_at != nullptr && right_at != nullptr);
    right_at->offset = left_at->offset;
    right_at->view_of = kNoValue;
    right_at->pitch = 0;
    CpuSessionOptions options;
    options.threads = 2;
    options.check_ordering = check;
    auto session = CpuSession::Create(std::move(*loaded), options);
    if (check) {
      ASSERT_FALSE(session.ok());
      EXPECT_NE(session.status().message().find("race"), std::string::npos)
          << session.status().message();
      EXPECT_NE(session.status().message().find("pool_right"), std::string::npos)
          << session.status().message();
    } else {
      EXPECT_TRUE(session.ok()) << session.status().message();
    }
  }
}

}  // namespace
}  // namespace ios
