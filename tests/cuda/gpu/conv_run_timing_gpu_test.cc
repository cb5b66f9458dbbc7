// Conv algorithms timed as the plan runs them (profile/cuda/conv_run_timing.h): a conv with a
// bias and a fused ReLU, timed with cudnnFind's first algorithm and with the heuristic's, gives
// positive, repeatable times; SelectConvAlgorithms records one of the candidates it timed.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "../../test_graph_builder.h"
#include "gpu_test_util.h"
#include "ir/fused_activation.h"
#include "profile/cuda/conv_algorithm_selection.h"
#include "profile/cuda/conv_run_timing.h"
#include "runtime/cuda/cuda_streams.h"
#include "runtime/cuda/kernels/conv_algorithm.h"
#include "runtime/cuda/kernels/cuda_kernel_table.h"
#include "sched/blocks.h"

namespace ios {
namespace {

Graph ConvBiasRelu() {
  testing::GraphBuilder b;
  ValueId x = b.Input("x", {1, 64, 35, 35});
  Graph g = b.Finish({b.Conv(x, 64, 3, 1)});
  SetFusedActivation(g.nodes[0].attrs, {ActivationKind::kRelu, 0.f, 0.f});
  return g;
}

DeviceBuffer Allocate(size_t bytes) {
  auto buffer = DeviceBuffer::Allocate(bytes);
  EXPECT_TRUE(buffer.ok()) << buffer.status().message();
  return buffer.ok() ? std::move(buffer.value()) : DeviceBuffer();
}

struct Uploaded {
  DeviceBuffer x, w, bias, y, workspace;
};

Uploaded Upload(const Graph& g, cudaStream_t stream) {
  Uploaded u;
  const Node& conv = g.nodes[0];
  const Value& x = g.values[static_cast<size_t>(conv.inputs[0])];
  std::vector<float> ones(static_cast<size_t>(NumElements(x.dims)), 0.5f);
  u.x = Allocate(ones.size() * sizeof(float));
  EXPECT_EQ(testing::UploadOn(stream, u.x.data(), ones.data(), u.x.bytes()), cudaSuccess);
  for (auto [index, buffer] : {std::pair{1, &u.w}, std::pair{2, &u.bias}}) {
    const Tensor& t = *g.values[static_cast<size_t>(conv.inputs[static_cast<size_t>(index)])]
                           .constant;
    *buffer = Allocate(t.num_bytes());
    EXPECT_EQ(testing::UploadOn(stream, buffer->data(), t.raw(), t.num_bytes()), cudaSuccess);
  }
  const Value& y = g.values[static_cast<size_t>(conv.outputs[0])];
  u.y = Allocate(static_cast<size_t>(NumElements(y.dims)) * sizeof(float));
  u.workspace = Allocate(size_t{64} << 20);
  return u;
}

TEST(ConvRunTimingGpuTest, FindsAndHeuristicsChoicesTimePositiveAndRepeatably) {
  IOS_SKIP_WITHOUT_GPU();
  const Graph g = ConvBiasRelu();
  const Node& conv = g.nodes[0];
  auto streams = CudaStreamSet::Create(CudaStreamSetOptions{});
  ASSERT_TRUE(streams.ok()) << streams.status().message();
  const CudaStreamContext& context = (*streams)->stream(0);
  Uploaded u = Upload(g, context.stream);
  auto d = BuildConvDescriptors(conv, g.values[0].dims,
                                g.values[static_cast<size_t>(conv.inputs[1])].dims,
                                g.values[static_cast<size_t>(conv.outputs[0])].dims,
                                ConvMathType(true), WindowBatchStrides{});
  ASSERT_TRUE(d.ok()) << d.status().message();
  ConvMeasureBuffers measure{u.x.data(), u.w.data(), u.y.data(), u.workspace.data(),
                             u.workspace.bytes()};
  auto found = FindConvAlgorithms(context.cudnn, *d, 0, true, measure);
  ASSERT_TRUE(found.ok()) << found.status().message();
  ASSERT_FALSE(found->empty());
  auto heuristic = ChooseConvAlgorithmByHeuristic(context.cudnn, *d, true);
  ASSERT_TRUE(heuristic.ok()) << heuristic.status().message();

  auto timer = ConvRunTimer::Create();
  ASSERT_TRUE(timer.ok()) << timer.status().message();
  ConvRunBuffers run{u.x.data(), u.w.data(), u.bias.data(), u.y.data()};
  for (const plan::ConvAlgorithm& algorithm :
       {found->front(), ToPlanConvAlgorithm(*heuristic, 0)}) {
    std::vector<double> times;
    for (int i = 0; i < 3; ++i) {
      auto ms = (*timer)->Time(g, 0, WindowBatchStrides{}, algorithm, true, **streams, run);
      ASSERT_TRUE(ms.ok()) << ms.status().message();
      EXPECT_GT(*ms, 0);
      EXPECT_LT(*ms, 100) << "a 64-channel 3x3 conv at 35x35";
      times.push_back(*ms);
    }
    const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
    EXPECT_LT(*hi, 1.5 * *lo) << "algorithm " << algorithm.algo();
  }
}

TEST(ConvRunTimingGpuTest, SelectionRecordsOneOfTheCandidatesItTimed) {
  IOS_SKIP_WITHOUT_GPU();
  const Graph g = ConvBiasRelu();
  auto blocks = PartitionIntoBlocks(g, BlockOptions{});
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  auto memory = PlanMemory(g, SequentialSchedule(*blocks), CudaKernelCaps());
  ASSERT_TRUE(memory.ok()) << memory.status().message();
  ConvAlgorithmSelectionOptions untimed;
  untimed.time_as_run = false;
  auto first = SelectConvAlgorithms(g, *memory, untimed);
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto timed = SelectConvAlgorithms(g, *memory, ConvAlgorithmSelectionOptions{});
  ASSERT_TRUE(timed.ok()) << timed.status().message();
  ASSERT_EQ(timed->conv_algorithms_size(), 1);
  EXPECT_EQ(timed->conv_algorithms(0).op(), 0);
  // cudnnFind's order varies from run to run on near ties, so the check is that the choice is
  // an algorithm cuDNN offers within the workspace limit, with its reported math type.
  EXPECT_GE(timed->conv_algorithms(0).algo(), 0);
  EXPECT_LT(timed->conv_algorithms(0).algo(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  EXPECT_LE(timed->conv_algorithms(0).workspace_bytes(), int64_t{64} << 20);
  EXPECT_EQ(first->conv_algorithms_size(), 1);
}

}  // namespace
}  // namespace ios
