// CudaSession on a real device: the same plan gives the CPU session's outputs, with a CUDA
// Graph and with replayed commands, on one stream and on several, run after run.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "../small_cuda_plan.h"
#include "gpu_test_util.h"
#include "runtime/cpu/cpu_session.h"
#include "runtime/cuda/cuda_session.h"

namespace ios {
namespace {

using testing::SmallCudaPlan;

std::vector<Tensor> RandomInputs(const Graph& graph, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<Tensor> inputs;
  for (ValueId id : graph.inputs) {
    Tensor t(graph.values[id].dtype, graph.values[id].dims);
    for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = dist(rng);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

std::vector<Tensor> RunOnCpu(const std::vector<Tensor>& inputs, bool greedy) {
  auto session = CpuSession::Create(SmallCudaPlan(greedy), CpuSessionOptions{});
  EXPECT_TRUE(session.ok()) << session.status().message();
  EXPECT_TRUE((*session)->SetInputs(inputs).ok());
  EXPECT_TRUE((*session)->Run().ok());
  return (*session)->GetOutputs();
}

void ExpectClose(const std::vector<Tensor>& got, const std::vector<Tensor>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t o = 0; o < got.size(); ++o) {
    ASSERT_EQ(got[o].dims(), expected[o].dims());
    for (int64_t i = 0; i < got[o].num_elements(); ++i) {
      const float g = got[o].data<float>()[i], e = expected[o].data<float>()[i];
      ASSERT_LE(std::fabs(g - e), 1e-4f + 1e-4f * std::fabs(e))
          << "output " << o << " element " << i;
    }
  }
}

std::unique_ptr<CudaSession> MakeSession(bool greedy, bool use_cuda_graph, int max_streams) {
  CudaSessionOptions options;
  options.use_cuda_graph = use_cuda_graph;
  options.max_streams = max_streams;
  auto session = CudaSession::Create(SmallCudaPlan(greedy), options);
  EXPECT_TRUE(session.ok()) << session.status().message();
  return session.ok() ? std::move(session).value() : nullptr;
}

TEST(CudaSessionGpuTest, MatchesTheCpuSessionWithAndWithoutCudaGraph) {
  IOS_SKIP_WITHOUT_GPU();
  for (bool greedy : {true, false}) {
    for (bool use_graph : {true, false}) {
      SCOPED_TRACE(std::string(greedy ? "greedy" : "sequential") +
                   (use_graph ? ", CUDA Graph" : ", replayed"));
      std::unique_ptr<CudaSession> session = MakeSession(greedy, use_graph, 0);
      ASSERT_NE(session, nullptr);
      EXPECT_EQ(session->uses_cuda_graph(), use_graph);
      if (greedy) {
        EXPECT_GT(session->commands().streams.size(), 1u);
      }
      // Two different inputs in a row: the second run must not see the first one's data.
      for (unsigned seed : {1u, 2u}) {
        std::vector<Tensor> inputs = RandomInputs(session->graph(), seed);
        ASSERT_TRUE(session->SetInputs(inputs).ok());
        ASSERT_TRUE(session->Run().ok());
        auto outputs = session->GetOutputs();
        ASSERT_TRUE(outputs.ok()) << outputs.status().message();
        ExpectClose(outputs.value(), RunOnCpu(inputs, greedy));
      }
    }
  }
}

TEST(CudaSessionGpuTest, CaptureAndReplayGiveTheSameOutputsOnOneOrManyStreams) {
  IOS_SKIP_WITHOUT_GPU();
  std::vector<Tensor> reference;
  for (int max_streams : {1, 2}) {
    for (bool use_graph : {true, false}) {
      std::unique_ptr<CudaSession> session = MakeSession(true, use_graph, max_streams);
      ASSERT_NE(session, nullptr);
      EXPECT_EQ(static_cast<int>(session->commands().streams.size()), max_streams);
      ASSERT_TRUE(session->SetInputs(RandomInputs(session->graph(), 7)).ok());
      for (int run = 0; run < 3; ++run) ASSERT_TRUE(session->Run().ok());
      auto outputs = session->GetOutputs();
      ASSERT_TRUE(outputs.ok()) << outputs.status().message();
      if (reference.empty()) {
        reference = outputs.value();
      } else {
        ExpectClose(outputs.value(), reference);
      }
    }
  }
}

TEST(CudaSessionGpuTest, TimesComputeWithEvents) {
  IOS_SKIP_WITHOUT_GPU();
  std::unique_ptr<CudaSession> session = MakeSession(true, true, 0);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->SetInputs(RandomInputs(session->graph(), 3)).ok());
  ASSERT_TRUE(session->RecordComputeStart().ok());
  ASSERT_TRUE(session->Run().ok());
  ASSERT_TRUE(session->RecordComputeStop().ok());
  auto ms = session->ComputeMilliseconds();
  ASSERT_TRUE(ms.ok()) << ms.status().message();
  EXPECT_GT(ms.value(), 0.0);
  EXPECT_LT(ms.value(), 1000.0);
}

// iosrun --trace on a GPU: a traced replay times every command of every stream, in order, within
// the run; waits end after their records; and the outputs are still right.
TEST(CudaSessionGpuTest, TracedRunTimesEveryCommandAndKeepsTheOutputs) {
  IOS_SKIP_WITHOUT_GPU();
  std::unique_ptr<CudaSession> session = MakeSession(true, true, 0);
  ASSERT_NE(session, nullptr);
  const std::vector<Tensor> inputs = RandomInputs(session->graph(), 5);
  ASSERT_TRUE(session->SetInputs(inputs).ok());
  RunTrace trace;
  Status traced = session->RunTraced(&trace);
  ASSERT_TRUE(traced.ok()) << traced.message();
  const CommandList& commands = session->commands();
  ASSERT_EQ(trace.streams.size(), commands.streams.size());
  std::vector<int64_t> recorded(static_cast<size_t>(commands.num_events), -1);
  for (size_t s = 0; s < commands.streams.size(); ++s) {
    ASSERT_EQ(trace.streams[s].size(), commands.streams[s].size()) << "stream " << s;
    int64_t previous = trace.begin_ns;
    for (const TraceSpan& span : trace.streams[s]) {
      EXPECT_GE(span.begin_ns, previous);
      EXPECT_GE(span.end_ns, span.begin_ns);
      EXPECT_LE(span.end_ns, trace.end_ns);
      previous = span.end_ns;
      if (span.kind == CommandKind::kRecordEvent) recorded[span.event] = span.begin_ns;
    }
  }
  for (const auto& stream : trace.streams) {
    for (const TraceSpan& span : stream) {
      if (span.kind != CommandKind::kWaitEvent) continue;
      EXPECT_GE(span.end_ns, recorded[span.event]) << "event " << span.event;
    }
  }
  auto outputs = session->GetOutputs();
  ASSERT_TRUE(outputs.ok()) << outputs.status().message();
  ExpectClose(*outputs, RunOnCpu(inputs, true));
}

// ios::Session::RunOnDevice: the caller's device buffers, in order with the caller's stream
// (one it made, then the legacy default stream), with and without the CUDA Graph.
TEST(CudaSessionGpuTest, RunsOnTheCallersDeviceBuffersInOrderWithTheCallersStream) {
  IOS_SKIP_WITHOUT_GPU();
  for (bool use_graph : {true, false}) {
    SCOPED_TRACE(use_graph ? "CUDA Graph" : "replayed");
    std::unique_ptr<CudaSession> session = MakeSession(true, use_graph, 0);
    ASSERT_NE(session, nullptr);
    const Graph& graph = session->graph();
    std::vector<DeviceBuffer> in, out;
    for (ValueId id : graph.inputs) {
      auto buffer = DeviceBuffer::Allocate(static_cast<size_t>(ValueBytes(graph.values[id])));
      ASSERT_TRUE(buffer.ok());
      in.push_back(std::move(buffer).value());
    }
    std::vector<std::pair<size_t, void*>> outputs;
    for (size_t o = 0; o < graph.outputs.size(); ++o) {
      auto buffer =
          DeviceBuffer::Allocate(static_cast<size_t>(ValueBytes(graph.values[graph.outputs[o]])));
      ASSERT_TRUE(buffer.ok());
      out.push_back(std::move(buffer).value());
      outputs.emplace_back(o, out.back().data());
    }
    std::vector<const void*> inputs;
    for (const DeviceBuffer& buffer : in) inputs.push_back(buffer.data());
    cudaStream_t mine = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking), cudaSuccess);
    for (cudaStream_t stream : {mine, static_cast<cudaStream_t>(nullptr)}) {
      for (unsigned seed : {21u, 22u}) {
        const std::vector<Tensor> host = RandomInputs(graph, seed);
        // The inputs reach the device on the caller's stream, and are not waited for: the
        // session must wait for them on the GPU.
        for (size_t i = 0; i < host.size(); ++i) {
          ASSERT_EQ(cudaMemcpyAsync(in[i].data(), host[i].raw(), host[i].num_bytes(),
                                    cudaMemcpyHostToDevice, stream),
                    cudaSuccess);
        }
        Status run = session->RunOnStream(inputs, outputs, stream);
        ASSERT_TRUE(run.ok()) << run.message();
        std::vector<Tensor> got;
        for (size_t o = 0; o < graph.outputs.size(); ++o) {
          const Value& value = graph.values[graph.outputs[o]];
          Tensor t(value.dtype, value.dims);
          ASSERT_EQ(cudaMemcpyAsync(t.raw(), out[o].data(), t.num_bytes(),
                                    cudaMemcpyDeviceToHost, stream),
                    cudaSuccess);
          got.push_back(std::move(t));
        }
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        ExpectClose(got, RunOnCpu(host, true));
      }
    }
    ASSERT_EQ(cudaStreamDestroy(mine), cudaSuccess);

    // Pageable host memory is refused, naming the input.
    std::vector<float> pageable(static_cast<size_t>(ValueBytes(graph.values[graph.inputs[0]])));
    std::vector<const void*> wrong = inputs;
    wrong[0] = pageable.data();
    Status refused = session->RunOnStream(wrong, outputs, nullptr);
    EXPECT_EQ(refused.code(), StatusCode::kInvalidInput);
    EXPECT_NE(refused.message().find("is not device memory"), std::string::npos)
        << refused.message();
  }
}

TEST(CudaSessionGpuTest, RefusesInputsOfTheWrongShape) {
  IOS_SKIP_WITHOUT_GPU();
  std::unique_ptr<CudaSession> session = MakeSession(false, true, 0);
  ASSERT_NE(session, nullptr);
  Status status = session->SetInputs({Tensor(DType::kFloat32, {1, 3, 16, 16})});
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
  EXPECT_NE(status.message().find("float32[2,3,16,16]"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace ios
