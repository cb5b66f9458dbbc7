// Where iosc measures each conv's cuDNN algorithm (ConvMeasureLayoutInPlan): on x and y laid out
// as the session will find them, so that a channel slice of a Concat's output, which can start
// off a 256-byte boundary and carries a batch stride at batch > 1, is measured as it runs.
// Host-only: the layout comes from the memory plan.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <set>
#include <string>

#include "../benchmark_network.h"
#include "../test_graph_builder.h"
#include "plan/memory_plan.h"
#include "profile/cuda/conv_algorithm_selection.h"
#include "runtime/cuda/kernels/cuda_kernel_table.h"
#include "runtime/strided_views.h"
#include "sched/blocks.h"
#include "sched/schedule.h"

namespace ios {
namespace {

StatusOr<MemoryPlan> GreedyMemoryPlan(const Graph& graph) {
  IOS_ASSIGN_OR_RETURN(BlockStructure blocks, PartitionIntoBlocks(graph, BlockOptions{}));
  return PlanMemory(graph, GreedySchedule(blocks, 0), CudaKernelCaps());
}

const TensorPlacement* PlacementOf(const MemoryPlan& memory, ValueId value) {
  for (const TensorPlacement& p : memory.placements)
    if (p.value == value) return &p;
  return nullptr;
}

// Two convs writing the channel slices of a Concat at batch 2: the second slice starts 400 bytes
// into each item (4 channels of 5x5 floats), which is not a 256-byte boundary.
TEST(ConvMeasureLayoutTest, AConvWritingAConcatSliceIsMeasuredAtItsOffsetAndStride) {
  testing::GraphBuilder b;
  ValueId x = b.Input("x", {2, 3, 5, 5});
  ValueId first = b.Conv(x, 4, 3, 1, 1, 1, "first");
  ValueId second = b.Conv(x, 4, 3, 1, 1, 1, "second");
  AttributeMap axis;
  axis.Set("axis", int64_t{1});
  ValueId cat = b.Op("Concat", {first, second}, axis, "cat");
  Graph graph = b.Finish({b.Op("Relu", {cat}, {}, "relu")});
  auto memory = GreedyMemoryPlan(graph);
  ASSERT_TRUE(memory.ok()) << memory.status().message();
  const TensorPlacement* base = PlacementOf(*memory, cat);
  const TensorPlacement* slice = PlacementOf(*memory, second);
  ASSERT_NE(base, nullptr);
  ASSERT_NE(slice, nullptr);
  ASSERT_EQ(slice->view_of, cat) << "the plan did not make the slice a view";
  ASSERT_EQ(slice->offset, base->offset + 400);
  ASSERT_EQ(slice->pitch, 800);  // 8 channels of 5x5 floats per batch item

  NodeId second_conv = kNoNode;
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    if (graph.nodes[n].name == "second") second_conv = static_cast<NodeId>(n);
  auto layout = ConvMeasureLayoutInPlan(graph, *memory, second_conv);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  EXPECT_EQ(layout->y_offset, (base->offset + 400) % 256);
  EXPECT_NE(layout->y_offset, 0);
  EXPECT_EQ(layout->batch_strides.y, 200);  // elements between batch items
  EXPECT_EQ(layout->y_bytes, 800 + 400);    // item 0's slice, the gap, item 1's slice
  // x is the graph input: dense, at its own placement.
  const TensorPlacement* input = PlacementOf(*memory, x);
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(layout->x_offset, input->offset % 256);
  EXPECT_EQ(layout->batch_strides.x, 0);
  EXPECT_EQ(layout->x_bytes, 2 * 3 * 25 * 4);
}

TEST(ConvMeasureLayoutTest, WithoutViewsEveryConvIsAlignedAndDense) {
  testing::GraphBuilder b;
  ValueId x = b.Input("x", {2, 3, 5, 5});
  AttributeMap axis;
  axis.Set("axis", int64_t{1});
  ValueId cat =
      b.Op("Concat", {b.Conv(x, 4, 3, 1, 1, 1, "first"), b.Conv(x, 4, 3, 1, 1, 1, "second")}, axis,
           "cat");
  Graph graph = b.Finish({b.Op("Relu", {cat}, {}, "relu")});
  auto blocks = PartitionIntoBlocks(graph, BlockOptions{});
  ASSERT_TRUE(blocks.ok());
  auto memory =
      PlanMemory(graph, GreedySchedule(*blocks, 0), CudaKernelCaps(), 256, /*slice_views=*/false);
  ASSERT_TRUE(memory.ok()) << memory.status().message();
  for (NodeId n : ConvNodesToMeasure(graph)) {
    auto layout = ConvMeasureLayoutInPlan(graph, *memory, n);
    ASSERT_TRUE(layout.ok()) << layout.status().message();
    EXPECT_EQ(layout->x_offset, 0);
    EXPECT_EQ(layout->y_offset, 0);
    EXPECT_EQ(layout->batch_strides.y, 0);
    EXPECT_EQ(layout->y_bytes, 2 * 4 * 25 * 4);
  }
}

// On a benchmark network at batch 2 every conv's layout agrees with its placement and the
// session's batch strides; NasNet's odd-sized maps put some conv outputs off the boundary.
TEST(ConvMeasureLayoutTest, NetworkConvsAreMeasuredWhereTheSessionPlacesThem) {
  StatusOr<Graph> graph = testing::LoadBenchmarkNetwork("nasnet", 2);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  auto memory = GreedyMemoryPlan(*graph);
  ASSERT_TRUE(memory.ok()) << memory.status().message();
  const std::vector<int64_t> strides = BatchStridesOfValues(*graph, *memory);
  int off_boundary = 0, strided = 0, convs = 0;
  for (NodeId n : ConvNodesToMeasure(*graph)) {
    const Node& node = graph->nodes[static_cast<size_t>(n)];
    auto layout = ConvMeasureLayoutInPlan(*graph, *memory, n);
    ASSERT_TRUE(layout.ok()) << layout.status().message();
    ++convs;
    for (auto [value, offset, stride] :
         {std::tuple{node.inputs[0], layout->x_offset, layout->batch_strides.x},
          std::tuple{node.outputs[0], layout->y_offset, layout->batch_strides.y}}) {
      const TensorPlacement* p = PlacementOf(*memory, value);
      ASSERT_NE(p, nullptr) << node.name;
      EXPECT_EQ(offset, p->offset % 256) << node.name;
      EXPECT_EQ(stride, strides[static_cast<size_t>(value)]) << node.name;
      off_boundary += offset != 0;
      strided += stride != 0;
    }
  }
  std::cout << "[ layout   ] nasnet batch 2: " << convs << " convs, " << strided << " strided and "
            << off_boundary << " off-boundary conv inputs and outputs\n";
  EXPECT_GT(strided, 0);
  EXPECT_GT(off_boundary, 0);
}

// The measurement key: convs alike in shape, window and layout share one measurement; a change
// in any of them, or in where the conv's output lies, makes another key.
TEST(ConvMeasureLayoutTest, ConvsAlikeInShapeWindowAndLayoutShareAKey) {
  testing::GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 6, 6});
  ValueId a = b.Conv(x, 8, 3, 1, 1, 1, "a");
  ValueId same = b.Conv(a, 8, 3, 1, 1, 1, "same");
  ValueId unpadded = b.Conv(same, 8, 3, 0, 1, 1, "unpadded");
  ValueId wider = b.Conv(unpadded, 16, 1, 0, 1, 1, "wider");
  Graph graph = b.Finish({wider});
  auto memory = GreedyMemoryPlan(graph);
  ASSERT_TRUE(memory.ok()) << memory.status().message();
  std::map<std::string, std::string> keys;
  for (NodeId n : ConvNodesToMeasure(graph)) {
    auto layout = ConvMeasureLayoutInPlan(graph, *memory, n);
    ASSERT_TRUE(layout.ok()) << layout.status().message();
    auto key = ConvMeasureKey(graph, n, *layout);
    ASSERT_TRUE(key.ok()) << key.status().message();
    keys[graph.nodes[static_cast<size_t>(n)].name] = *key;
  }
  ASSERT_EQ(keys.size(), 4u);
  EXPECT_EQ(keys["a"], keys["same"]);
  EXPECT_NE(keys["a"], keys["unpadded"]);
  EXPECT_NE(keys["unpadded"], keys["wider"]);

  // The same conv with its output 64 bytes past the boundary, or with a batch stride.
  const NodeId conv = ConvNodesToMeasure(graph)[0];
  auto layout = ConvMeasureLayoutInPlan(graph, *memory, conv);
  ASSERT_TRUE(layout.ok());
  ConvMeasureLayout shifted = *layout;
  shifted.y_offset += 64;
  ConvMeasureLayout strided = *layout;
  strided.batch_strides.x = 8 * 36 * 2;
  EXPECT_NE(*ConvMeasureKey(graph, conv, shifted), keys["a"]);
  EXPECT_NE(*ConvMeasureKey(graph, conv, strided), keys["a"]);
}

// NasNet's separable convs repeat shapes: far fewer keys than convs (what iosc measures).
TEST(ConvMeasureLayoutTest, NasNetHasFewerMeasurementKeysThanConvs) {
  StatusOr<Graph> graph = testing::LoadBenchmarkNetwork("nasnet", 1);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  auto memory = GreedyMemoryPlan(*graph);
  ASSERT_TRUE(memory.ok()) << memory.status().message();
  std::set<std::string> keys;
  const std::vector<NodeId> convs = ConvNodesToMeasure(*graph);
  for (NodeId n : convs) {
    auto layout = ConvMeasureLayoutInPlan(*graph, *memory, n);
    ASSERT_TRUE(layout.ok()) << layout.status().message();
    auto key = ConvMeasureKey(*graph, n, *layout);
    ASSERT_TRUE(key.ok()) << key.status().message();
    keys.insert(*key);
  }
  std::cout << "[ keys     ] nasnet batch 1: " << convs.size() << " convs, " << keys.size()
            << " measurement keys\n";
  EXPECT_LT(keys.size() * 2, convs.size());
}

}  // namespace
}  // namespace ios
