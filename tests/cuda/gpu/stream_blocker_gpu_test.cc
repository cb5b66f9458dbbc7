// The stream blocker on a device: work queued behind it waits until the host releases it, and
// a block that is never released ends by its timeout instead of hanging.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "gpu_test_util.h"
#include "runtime/cuda/cuda_streams.h"
#include "profile/cuda/stream_blocker.h"

namespace ios {
namespace {

struct BlockedStream {
  std::unique_ptr<CudaStreamSet> set;
  std::unique_ptr<StreamBlocker> blocker;
  cudaEvent_t after = nullptr;
};

void MakeBlockedStream(BlockedStream* b) {
  CudaStreamSetOptions options;
  auto set = CudaStreamSet::Create(options);
  ASSERT_TRUE(set.ok()) << set.status().message();
  b->set = std::move(set).value();
  auto blocker = StreamBlocker::Create();
  ASSERT_TRUE(blocker.ok()) << blocker.status().message();
  b->blocker = std::move(blocker).value();
  ASSERT_EQ(cudaEventCreateWithFlags(&b->after, cudaEventDisableTiming), cudaSuccess);
}

TEST(StreamBlockerGpuTest, WorkBehindTheBlockWaitsForTheRelease) {
  IOS_SKIP_WITHOUT_GPU();
  BlockedStream b;
  MakeBlockedStream(&b);
  const cudaStream_t stream = b.set->origin();
  for (int round = 0; round < 3; ++round) {  // the blocker is reusable
    ASSERT_TRUE(b.blocker->Block(stream, 10000.0).ok());
    ASSERT_EQ(cudaEventRecord(b.after, stream), cudaSuccess);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(cudaEventQuery(b.after), cudaErrorNotReady) << "round " << round;
    b.blocker->Release();
    ASSERT_EQ(cudaEventSynchronize(b.after), cudaSuccess);
    EXPECT_FALSE(b.blocker->timed_out());
  }
  ASSERT_EQ(cudaEventDestroy(b.after), cudaSuccess);
}

TEST(StreamBlockerGpuTest, ABlockNeverReleasedEndsByItsTimeout) {
  IOS_SKIP_WITHOUT_GPU();
  BlockedStream b;
  MakeBlockedStream(&b);
  const cudaStream_t stream = b.set->origin();
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(b.blocker->Block(stream, 20.0).ok());
  ASSERT_EQ(cudaEventRecord(b.after, stream), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(b.after), cudaSuccess);
  const double waited_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(b.blocker->timed_out());
  EXPECT_GE(waited_ms, 15.0);
  EXPECT_LT(waited_ms, 5000.0);
  b.blocker->Release();
  // A second block still works after a timed-out one.
  ASSERT_TRUE(b.blocker->Block(stream, 10000.0).ok());
  b.blocker->Release();
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_FALSE(b.blocker->timed_out());
  ASSERT_EQ(cudaEventDestroy(b.after), cudaSuccess);
}

TEST(StreamBlockerGpuTest, BlockingTwiceWithoutAReleaseIsRefused) {
  IOS_SKIP_WITHOUT_GPU();
  BlockedStream b;
  MakeBlockedStream(&b);
  ASSERT_TRUE(b.blocker->Block(b.set->origin(), 10000.0).ok());
  EXPECT_FALSE(b.blocker->Block(b.set->origin(), 10000.0).ok());
  b.blocker->Release();
  ASSERT_EQ(cudaStreamSynchronize(b.set->origin()), cudaSuccess);
  ASSERT_EQ(cudaEventDestroy(b.after), cudaSuccess);
}

}  // namespace
}  // namespace ios
