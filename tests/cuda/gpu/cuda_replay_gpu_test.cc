// ReplayCommands and CaptureCommands on a real device, with "ops" that are plain async copies
// (no kernel library involved): a two-stream fork/join list gives the right data whether it is
// replayed or captured and launched, each op goes to its stream, and a failing or malformed
// capture leaves every stream out of capture mode and the set usable; RunOnceThenCapture runs the
// list directly first and falls back (without a graph) when only the capture fails.
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../../command_list_builders.h"
#include "gpu_test_util.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/cuda_replay.h"

namespace ios {
namespace {

using testing::Op;
using testing::Record;
using testing::Wait;

// Origin: op 0, fork, op 1, join, op 3. Stream 1: op 2 between the fork and the join.
CommandList TwoStreamForkJoin() {
  CommandList list;
  list.num_events = 2;
  list.streams = {{Op(0), Record(0), Op(1), Wait(1), Op(3)}, {Wait(0), Op(2), Record(1)}};
  return list;
}

constexpr size_t kCount = 1 << 16;
constexpr size_t kBytes = kCount * sizeof(float);

// op 0: src -> a; op 1: a -> c; op 2: a -> b; op 3: b -> out[0:n], c -> out[n:2n].
class CopyOps : public CudaOpLauncher {
 public:
  Status Init() {
    for (DeviceBuffer* buffer : {&src, &a, &b, &c}) {
      IOS_ASSIGN_OR_RETURN(*buffer, DeviceBuffer::Allocate(kBytes));
    }
    IOS_ASSIGN_OR_RETURN(out, DeviceBuffer::Allocate(2 * kBytes));
    return Status::Ok();
  }

  Status Enqueue(NodeId op, const CudaStreamContext& stream) override {
    streams_used.push_back({op, stream.stream});
    if (op == fail_op) return Internal("op " + std::to_string(op) + " failed on purpose");
    // Legal when run directly, illegal inside a capture (which it invalidates), as a library's
    // first-use setup would be; the op itself does not notice.
    if (synchronize_in_op) (void)cudaStreamSynchronize(stream.stream);
    auto copy = [&](void* to, const void* from) {
      return CudaStatus(cudaMemcpyAsync(to, from, kBytes, cudaMemcpyDeviceToDevice, stream.stream),
                        "cudaMemcpyAsync", __FILE__, __LINE__);
    };
    switch (op) {
      case 0:
        return copy(a.data(), src.data());
      case 1:
        return copy(c.data(), a.data());
      case 2:
        return copy(b.data(), a.data());
      case 3:
        IOS_RETURN_IF_ERROR(copy(out.data(), b.data()));
        return copy(static_cast<float*>(out.data()) + kCount, c.data());
      default:
        return Internal("no such op");
    }
  }

  DeviceBuffer src, a, b, c, out;
  std::vector<std::pair<NodeId, cudaStream_t>> streams_used;
  NodeId fail_op = -1;
  bool synchronize_in_op = false;
};

std::unique_ptr<CudaStreamSet> MakeStreams() {
  CudaStreamSetOptions options;
  options.num_streams = 2;
  options.num_events = 2;
  options.workspace_bytes = 1 << 20;
  auto set = CudaStreamSet::Create(options);
  EXPECT_TRUE(set.ok()) << set.status().message();
  return set.ok() ? std::move(set).value() : nullptr;
}

// Fills src with `value`, clears out, runs `run`, and checks that out holds `value` twice.
void ExpectRunCopies(CudaStreamSet& streams, CopyOps& ops, float value,
                     const std::function<Status()>& run) {
  std::vector<float> host(kCount, value);
  ASSERT_EQ(cudaMemcpy(ops.src.data(), host.data(), kBytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(ops.out.data(), 0, 2 * kBytes), cudaSuccess);
  // The set's streams are non-blocking: they would not wait for the legacy stream's copies.
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  Status status = run();
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(cudaStreamSynchronize(streams.origin()), cudaSuccess);
  std::vector<float> out(2 * kCount, 0.f);
  ASSERT_EQ(cudaMemcpy(out.data(), ops.out.data(), 2 * kBytes, cudaMemcpyDeviceToHost),
            cudaSuccess);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], value) << "element " << i;
}

void ExpectNotCapturing(const CudaStreamSet& streams) {
  for (int s = 0; s < streams.num_streams(); ++s) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
    ASSERT_EQ(cudaStreamIsCapturing(streams.stream(s).stream, &status), cudaSuccess);
    EXPECT_EQ(status, cudaStreamCaptureStatusNone) << "stream " << s;
  }
}

TEST(CudaReplayGpuTest, StreamSetBindsHandlesAndWorkspacesPerStream) {
  IOS_SKIP_WITHOUT_GPU();
  std::unique_ptr<CudaStreamSet> streams = MakeStreams();
  ASSERT_NE(streams, nullptr);
  ASSERT_EQ(streams->num_streams(), 2);
  ASSERT_EQ(streams->num_events(), 2);
  EXPECT_NE(streams->stream(0).stream, streams->stream(1).stream);
  for (int s = 0; s < 2; ++s) {
    const CudaStreamContext& context = streams->stream(s);
    cudaStream_t bound = nullptr;
    ASSERT_EQ(cudnnGetStream(context.cudnn, &bound), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(bound, context.stream);
    ASSERT_EQ(cublasGetStream(context.cublas, &bound), CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(bound, context.stream);
    unsigned int flags = 0;
    ASSERT_EQ(cudaStreamGetFlags(context.stream, &flags), cudaSuccess);
    EXPECT_EQ(flags & cudaStreamNonBlocking, static_cast<unsigned>(cudaStreamNonBlocking));
    EXPECT_NE(context.workspace, nullptr);
    EXPECT_EQ(context.workspace_bytes, size_t{1} << 20);
  }
  EXPECT_NE(streams->stream(0).workspace, streams->stream(1).workspace);
  // Growing keeps the streams and gives every one the larger workspace.
  cudaStream_t origin = streams->origin();
  ASSERT_TRUE(streams->Reserve(3, 5, size_t{2} << 20).ok());
  EXPECT_EQ(streams->origin(), origin);
  EXPECT_EQ(streams->num_streams(), 3);
  EXPECT_EQ(streams->num_events(), 5);
  for (int s = 0; s < 3; ++s) EXPECT_EQ(streams->stream(s).workspace_bytes, size_t{2} << 20);
}

TEST(CudaReplayGpuTest, ReplaysAForkJoinListOntoItsStreams) {
  IOS_SKIP_WITHOUT_GPU();
  std::unique_ptr<CudaStreamSet> streams = MakeStreams();
  ASSERT_NE(streams, nullptr);
  CopyOps ops;
  ASSERT_TRUE(ops.Init().ok());
  const CommandList list = TwoStreamForkJoin();
  for (float value : {1.5f, -2.f}) {
    ExpectRunCopies(*streams, ops, value, [&] { return ReplayCommands(list, *streams, ops); });
  }
  ASSERT_EQ(ops.streams_used.size(), 8u);
  for (const auto& [op, stream] : ops.streams_used)
    EXPECT_EQ(stream, streams->stream(op == 2 ? 1 : 0).stream) << "op " << op;
}

TEST(CudaReplayGpuTest, CapturesAForkJoinListOnceAndLaunchesItRepeatedly) {
  IOS_SKIP_WITHOUT_GPU();
  std::unique_ptr<CudaStreamSet> streams = MakeStreams();
  ASSERT_NE(streams, nullptr);
  CopyOps ops;
  ASSERT_TRUE(ops.Init().ok());
  auto graph = CaptureCommands(TwoStreamForkJoin(), *streams, ops);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  ASSERT_TRUE(graph->valid());
  ExpectNotCapturing(*streams);
  EXPECT_EQ(ops.streams_used.size(), 4u);  // enqueued once, while capturing
  for (float value : {3.f, 4.f, 5.f}) {
    ExpectRunCopies(*streams, ops, value, [&] { return graph->Launch(streams->origin()); });
  }
  EXPECT_EQ(ops.streams_used.size(), 4u);  // launches do not call the launcher again
}

TEST(CudaReplayGpuTest, AFailingOpEndsTheCaptureAndLeavesTheStreamsUsable) {
  IOS_SKIP_WITHOUT_GPU();
  std::unique_ptr<CudaStreamSet> streams = MakeStreams();
  ASSERT_NE(streams, nullptr);
  CopyOps ops;
  ASSERT_TRUE(ops.Init().ok());
  ops.fail_op = 2;  // on stream 1, after it joined the capture
  auto graph = CaptureCommands(TwoStreamForkJoin(), *streams, ops);
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.status().message().find("failed on purpose"), std::string::npos)
      << graph.status().message();
  ExpectNotCapturing(*streams);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ops.fail_op = -1;
  const CommandList list = TwoStreamForkJoin();
  ExpectRunCopies(*streams, ops, 7.f, [&] { return ReplayCommands(list, *streams, ops); });
}

TEST(CudaReplayGpuTest, RunOnceThenCaptureRunsTheListDirectlyBeforeCapturingIt) {
  IOS_SKIP_WITHOUT_GPU();
  std::unique_ptr<CudaStreamSet> streams = MakeStreams();
  ASSERT_NE(streams, nullptr);
  CopyOps ops;
  ASSERT_TRUE(ops.Init().ok());
  StatusOr<CapturedCommands> captured = Status::Ok();
  // The direct run alone fills `out`: the check runs before any launch.
  ExpectRunCopies(*streams, ops, 2.5f, [&] {
    captured = RunOnceThenCapture(TwoStreamForkJoin(), *streams, ops);
    return captured.status();
  });
  ASSERT_TRUE(captured.ok());
  EXPECT_TRUE(captured->capture_status.ok()) << captured->capture_status.message();
  ASSERT_TRUE(captured->graph.valid());
  EXPECT_EQ(ops.streams_used.size(), 8u);  // four ops run directly, then four captured
  ExpectNotCapturing(*streams);
  ExpectRunCopies(*streams, ops, 6.f, [&] { return captured->graph.Launch(streams->origin()); });
}

TEST(CudaReplayGpuTest, ACaptureThatFailsAfterAGoodDirectRunFallsBackToReplay) {
  IOS_SKIP_WITHOUT_GPU();
  std::unique_ptr<CudaStreamSet> streams = MakeStreams();
  ASSERT_NE(streams, nullptr);
  CopyOps ops;
  ASSERT_TRUE(ops.Init().ok());
  ops.synchronize_in_op = true;
  auto captured = RunOnceThenCapture(TwoStreamForkJoin(), *streams, ops);
  ASSERT_TRUE(captured.ok()) << captured.status().message();
  EXPECT_FALSE(captured->graph.valid());
  EXPECT_FALSE(captured->capture_status.ok());
  ExpectNotCapturing(*streams);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  const CommandList list = TwoStreamForkJoin();
  ExpectRunCopies(*streams, ops, 8.f, [&] { return ReplayCommands(list, *streams, ops); });
}

TEST(CudaReplayGpuTest, AnOpFailingInTheDirectRunIsAnErrorAndNothingIsCaptured) {
  IOS_SKIP_WITHOUT_GPU();
  std::unique_ptr<CudaStreamSet> streams = MakeStreams();
  ASSERT_NE(streams, nullptr);
  CopyOps ops;
  ASSERT_TRUE(ops.Init().ok());
  ops.fail_op = 1;
  auto captured = RunOnceThenCapture(TwoStreamForkJoin(), *streams, ops);
  ASSERT_FALSE(captured.ok());
  EXPECT_NE(captured.status().message().find("failed on purpose"), std::string::npos)
      << captured.status().message();
  ExpectNotCapturing(*streams);
  for (const auto& used : ops.streams_used) EXPECT_NE(used.first, 3) << "the list went on";
}

TEST(CudaReplayGpuTest, RefusesAMalformedListBeforeCapturing) {
  IOS_SKIP_WITHOUT_GPU();
  std::unique_ptr<CudaStreamSet> streams = MakeStreams();
  ASSERT_NE(streams, nullptr);
  CopyOps ops;
  ASSERT_TRUE(ops.Init().ok());
  CommandList list;  // stream 1 never waits on the origin, so it would not join the capture
  list.num_events = 1;
  list.streams = {{Op(0), Wait(0)}, {Op(2), Record(0)}};
  auto graph = CaptureCommands(list, *streams, ops);
  ASSERT_FALSE(graph.ok());
  EXPECT_TRUE(ops.streams_used.empty());
  ExpectNotCapturing(*streams);
}

TEST(CudaReplayGpuTest, RefusesAListNeedingMoreStreamsThanTheSetHas) {
  IOS_SKIP_WITHOUT_GPU();
  std::unique_ptr<CudaStreamSet> streams = MakeStreams();
  ASSERT_NE(streams, nullptr);
  CopyOps ops;
  CommandList list = TwoStreamForkJoin();
  list.streams.push_back({Wait(0), Op(3)});
  Status status = ReplayCommands(list, *streams, ops);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(ops.streams_used.empty());
}

}  // namespace
}  // namespace ios
