// Strided views on the CUDA backend, without a device: for the benchmark networks at batch 2, the
// memory plan's strided views reach only convs (runtime/strided_views.h), the CUDA conv kernel is
// created for each of them with descriptors that carry the view's batch stride, and cuDNN
// accepts those descriptors and agrees on the output dims. Kernels that take no strided view
// refuse one.
#include <gtest/gtest.h>

#include <string>

#include "../benchmark_network.h"
#include "../test_graph_builder.h"
#include "plan/memory_plan.h"
#include "plan/tensor_views.h"
#include "runtime/cuda/kernels/conv_algorithm.h"
#include "runtime/cuda/kernels/cuda_kernel.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"
#include "runtime/strided_views.h"
#include "sched/blocks.h"
#include "sched/schedule.h"

namespace ios {
namespace {

// What iosc records after measuring (IMPLICIT_GEMM runs every 2-D conv); with no cuDNN handle,
// the kernel factory builds its descriptors and needs no device.
plan::ConvAlgorithm RecordedAlgorithm() {
  plan::ConvAlgorithm recorded;
  recorded.set_algo(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
  recorded.set_math_type(CUDNN_DEFAULT_MATH);
  return recorded;
}

Dims StridesOf(cudnnTensorDescriptor_t descriptor) {
  auto info = ReadTensorDescriptor(descriptor);
  EXPECT_TRUE(info.ok()) << info.status().message();
  return info.ok() ? info->strides : Dims{};
}

// Descriptors must carry the batch strides: x's, y's, and y_full's, which is the view itself
// unless a crop goes through dense workspace; cuDNN's output dims must be the planned ones.
template <typename Descriptors>
void ExpectStridedDescriptors(const Descriptors& d, const Dims& x, const WindowBatchStrides& batch,
                              const StatusOr<Dims>& cudnn_dims, const std::string& name) {
  Dims x_strides = DenseStrides(PadToCudnnRank(x));
  if (batch.x != 0) x_strides[0] = batch.x;
  EXPECT_EQ(StridesOf(d.x.get()), x_strides) << name;
  Dims y_strides = DenseStrides(d.geometry.output);
  if (batch.y != 0) y_strides[0] = batch.y;
  EXPECT_EQ(StridesOf(d.y.get()), y_strides) << name;
  EXPECT_EQ(StridesOf(d.y_full.get()),
            d.geometry.cropped() ? DenseStrides(d.geometry.full_output) : y_strides)
      << name;
  ASSERT_TRUE(cudnn_dims.ok()) << cudnn_dims.status().message();
  EXPECT_EQ(cudnn_dims.value(), d.geometry.full_output) << name;
}

struct StridedKernelCounts {
  int convs = 0;
  int pools = 0;
  int elementwise = 0;
};

// Plans `graph` greedily with views, checks every kernel that touches a strided view (convs,
// pools and elementwise ops, and nothing else), and counts them.
StridedKernelCounts CheckKernelsOnStridedViews(Graph& graph) {
  StridedKernelCounts counts;
  auto blocks = PartitionIntoBlocks(graph, BlockOptions{});
  EXPECT_TRUE(blocks.ok()) << blocks.status().message();
  if (!blocks.ok()) return counts;
  const Schedule schedule = GreedySchedule(*blocks, 0);
  auto memory = PlanMemory(graph, schedule, CudaKernelCaps());
  EXPECT_TRUE(memory.ok()) << memory.status().message();
  if (!memory.ok()) return counts;

  const std::vector<std::vector<bool>> in_place = SlicesInPlace(graph, *memory);
  const std::vector<bool> redundant = OpsMadeRedundantByViews(in_place);
  const std::vector<int64_t> value_strides = BatchStridesOfValues(graph, *memory);
  const plan::ConvAlgorithm recorded = RecordedAlgorithm();
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.dead) continue;
    auto strides = BatchStridesOfNode(graph, static_cast<NodeId>(n), value_strides, in_place[n],
                                      CudaKernelCaps());
    EXPECT_TRUE(strides.ok()) << strides.status().message();
    if (!strides.ok() || redundant[n] || !strides->any()) continue;
    const bool conv = node.op_type == "Conv";
    const bool pool = node.op_type == "MaxPool" || node.op_type == "AveragePool";
    EXPECT_NE(CudaKernelCaps().Find(node.op_type)->strided, StridedSlices::kNone) << node.name;
    ++(conv ? counts.convs : pool ? counts.pools : counts.elementwise);

    CudaKernelContext context = MakeCudaKernelContext(graph, node);
    context.batch_strides = *strides;
    context.conv_algorithm = &recorded;
    auto kernel = CreateCudaKernel(context);
    EXPECT_TRUE(kernel.ok()) << node.name << ": " << kernel.status().message();

    if (!conv && !pool) continue;  // elementwise kernels have no descriptors
    const Dims& x = context.input_types[0].dims;
    const Dims& y = context.output_types[0].dims;
    const WindowBatchStrides batch{strides->inputs[0], strides->outputs[0]};
    if (conv) {
      auto d =
          BuildConvDescriptors(node, x, context.input_types[1].dims, y, ConvMathType(false), batch);
      EXPECT_TRUE(d.ok()) << d.status().message();
      if (d.ok())
        ExpectStridedDescriptors(*d, x, batch, CudnnConvOutputDims(*d, d->geometry.output.size()),
                                 node.name);
    } else {
      auto d = BuildPoolDescriptors(node, x, y, batch);
      EXPECT_TRUE(d.ok()) << d.status().message();
      if (d.ok())
        ExpectStridedDescriptors(*d, x, batch, CudnnPoolOutputDims(*d, d->geometry.output.size()),
                                 node.name);
    }
  }
  return counts;
}

class StridedViewNetworkTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StridedViewNetworkTest, EveryKernelOnAStridedViewGetsStridedDescriptors) {
  StatusOr<Graph> graph = testing::LoadBenchmarkNetwork(GetParam(), 2);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  const StridedKernelCounts counts = CheckKernelsOnStridedViews(*graph);
  std::cout << "[ checked  ] " << GetParam() << " batch 2: " << counts.convs << " convs, "
            << counts.pools << " pools and " << counts.elementwise
            << " elementwise ops on strided views\n";
  EXPECT_GT(counts.convs, 0) << "no strided view in " << GetParam();
}

// A merged conv's Split at batch 3: the readers' X is the strided view.
TEST(StridedViewKernelTest, ConvsReadingASplitsSlicesGetStridedInputs) {
  testing::GraphBuilder b;
  ValueId x = b.Input("x", {3, 3, 5, 5});
  ValueId wide = b.Conv(x, 12, 3, 1, 1, 1, "wide");
  std::vector<ValueId> slices = b.Split(wide, {4, 8}, 1, "split");
  Graph graph =
      b.Finish({b.Conv(slices[0], 2, 1, 0, 1, 1, "a"), b.Conv(slices[1], 2, 3, 1, 1, 1, "b")});
  EXPECT_EQ(CheckKernelsOnStridedViews(graph).convs, 2);
}

INSTANTIATE_TEST_SUITE_P(Networks, StridedViewNetworkTest,
                         ::testing::Values("inception_v3", "squeezenet", "nasnet"));

TEST(StridedViewKernelTest, ACroppedConvWritesItsViewFromDenseWorkspace) {
  testing::GraphBuilder b;
  ValueId x = b.Input("x", {2, 3, 7, 7});
  ValueId y = b.Conv(x, 4, 2, 0, 1, 1, "conv");  // pads set below
  Graph graph = b.Finish({y});
  Node& conv = graph.nodes.back();
  conv.attrs.Set("pads", std::vector<int64_t>{0, 0, 1, 1});  // asymmetric: cropped
  ASSERT_TRUE(InferNode(graph, static_cast<NodeId>(graph.nodes.size() - 1)).ok());
  const Dims y_dims = graph.values[y].dims;
  const int64_t y_stride = 3 * NumElements(y_dims) / 2;  // a slice of a 12-channel tensor
  auto d = BuildConvDescriptors(conv, {2, 3, 7, 7}, {4, 3, 2, 2}, y_dims, ConvMathType(false),
                                WindowBatchStrides{0, y_stride});
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_TRUE(d->geometry.cropped());
  EXPECT_EQ(StridesOf(d->y_full.get()), DenseStrides(d->geometry.full_output));
  Dims y_strides = DenseStrides(PadToCudnnRank(y_dims));
  y_strides[0] = y_stride;
  EXPECT_EQ(StridesOf(d->y.get()), y_strides);
  // A batch stride smaller than an item would make items overlap.
  EXPECT_FALSE(BuildConvDescriptors(conv, {2, 3, 7, 7}, {4, 3, 2, 2}, y_dims, ConvMathType(false),
                                    WindowBatchStrides{5, 0})
                   .ok());
}

TEST(StridedViewKernelTest, ElementwiseKernelsRefuseAStridedViewWithBroadcasting) {
  testing::GraphBuilder b;
  ValueId x = b.Input("x", {2, 4, 3, 3});
  ValueId bias = b.Constant("bias", b.Random({1, 4, 1, 1}));
  Graph graph = b.Finish({b.Op("Add", {x, bias}, {}, "add")});
  CudaKernelContext context = MakeCudaKernelContext(graph, graph.nodes.back());
  context.batch_strides.inputs = {8 * 9, 0};
  context.batch_strides.outputs = {0};
  auto kernel = CreateCudaKernel(context);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("broadcasting"), std::string::npos)
      << kernel.status().message();
}

TEST(StridedViewKernelTest, KernelsThatTakeNoStridedViewRefuseOne) {
  testing::GraphBuilder b;
  ValueId x = b.Input("x", {2, 4, 3, 3});
  ValueId y = b.Op("Relu", {x}, {}, "relu");
  Graph graph = b.Finish({y});
  CudaKernelContext context = MakeCudaKernelContext(graph, graph.nodes.back());
  ASSERT_TRUE(CreateCudaKernel(context).ok());
  context.batch_strides.inputs = {8 * 9};
  context.batch_strides.outputs = {0};
  auto kernel = CreateCudaKernel(context);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("strided view"), std::string::npos)
      << kernel.status().message();
}

}  // namespace
}  // namespace ios
