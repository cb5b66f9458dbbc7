// The parts of CudaSession that need no device: the op check that runs before anything is
// allocated, the stream count, and the clean failure on a machine without a GPU.
#include "runtime/cuda/cuda_session.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "small_cuda_plan.h"

namespace ios {
namespace {

using testing::SmallCudaPlan;

TEST(CudaSessionTest, RefusesAnOpTheBackendLacksNamingNodeAndOp) {
  LoadedPlan plan = SmallCudaPlan(false);
  for (Node& node : plan.graph.nodes) {
    if (node.op_type == "MaxPool") node.op_type = "NoSuchOp";
  }
  Status status = CheckCudaSupportsGraph(plan.graph);
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("'pool_right' (NoSuchOp)"), std::string::npos)
      << status.message();
  // The session refuses it the same way, before it touches the device (none is needed).
  auto session = CudaSession::Create(std::move(plan), CudaSessionOptions{});
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::kUnsupported) << session.status().message();
}

TEST(CudaSessionTest, ListsEveryMissingOpOnce) {
  LoadedPlan plan = SmallCudaPlan(false);
  int renamed = 0;
  for (Node& node : plan.graph.nodes) {
    if (node.op_type == "Conv") {
      node.op_type = "NoSuchConv";
      ++renamed;
    }
  }
  ASSERT_EQ(renamed, 3);
  Status status = CheckCudaSupportsGraph(plan.graph);
  ASSERT_FALSE(status.ok());
  for (const char* name :
       {"'conv_a' (NoSuchConv)", "'conv_left' (NoSuchConv)", "'conv_out' (NoSuchConv)"})
    EXPECT_NE(status.message().find(name), std::string::npos) << status.message();
}

TEST(CudaSessionTest, StreamsFollowTheWidestStageUpToEight) {
  Schedule schedule;
  schedule.blocks.resize(1);
  schedule.blocks[0].stages.resize(2);
  schedule.blocks[0].stages[0].groups.resize(3);
  schedule.blocks[0].stages[1].groups.resize(1);
  EXPECT_EQ(CudaSessionStreams(schedule, 0), 3);
  EXPECT_EQ(CudaSessionStreams(schedule, 5), 5);  // an explicit request wins
  schedule.blocks[0].stages[1].groups.resize(12);
  EXPECT_EQ(CudaSessionStreams(schedule, 0), kMaxAutoCudaStreams);
  EXPECT_EQ(CudaSessionStreams(Schedule{}, 0), 1);
}

TEST(CudaSessionTest, FailsCleanlyWithoutADevice) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) GTEST_SKIP() << "a device exists";
  LoadedPlan plan = SmallCudaPlan(true);
  // The op check comes first; this test is about the device, once the kernels exist.
  Status supported = CheckCudaSupportsGraph(plan.graph);
  if (!supported.ok()) GTEST_SKIP() << supported.message();
  auto session = CudaSession::Create(std::move(plan), CudaSessionOptions{});
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().message().rfind("no CUDA device", 0), 0u)
      << session.status().message();
}

}  // namespace
}  // namespace ios
