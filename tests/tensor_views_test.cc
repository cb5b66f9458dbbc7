// Zero-copy slices (plan/tensor_views.h): which Concat/Split slices become views, how the memory
// planner places them, what the checker refuses, and that a plan with views computes the same
// outputs on the CPU backend as the reference evaluator.
#include "plan/tensor_views.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ir/fused_activation.h"
#include "kernels/reference/reference_graph.h"
#include "plan/memory_plan.h"
#include "plan/plan_builder.h"
#include "plan/plan_loader.h"
#include "runtime/cpu/cpu_session.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "sched/blocks.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::GraphBuilder;

AttributeMap Axis(int64_t axis) {
  AttributeMap attrs;
  attrs.Set("axis", axis);
  return attrs;
}

NodeId FindNode(const Graph& graph, const std::string& name) {
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    if (graph.nodes[n].name == name) return static_cast<NodeId>(n);
  return kNoNode;
}

// x -> {conv 8ch, conv 4ch} -> Concat -> conv; `extra_reader` also reads the first branch. The
// branch convs carry activations: Relu (a oneDNN post-op) and a Clip whose min exceeds its max
// (which the CPU kernel applies after the primitive).
Graph ConcatGraph(int64_t batch, bool extra_reader = false) {
  GraphBuilder b;
  ValueId x = b.Input("x", {batch, 3, 6, 6});
  ValueId left = b.Conv(x, 8, 3, 1, 1, 1, "left");
  ValueId right = b.Conv(x, 4, 1, 0, 1, 1, "right");
  SetFusedActivation(b.graph().nodes[FindNode(b.graph(), "left")].attrs,
                     {ActivationKind::kRelu, 0.f, 0.f});
  SetFusedActivation(b.graph().nodes[FindNode(b.graph(), "right")].attrs,
                     {ActivationKind::kClip, 0.5f, -0.5f});
  ValueId cat = b.Op("Concat", {left, right}, Axis(1), "concat");
  ValueId out = b.Conv(cat, 2, 1, 0, 1, 1, "out");
  std::vector<ValueId> outputs = {out};
  if (extra_reader) outputs.push_back(b.Op("Relu", {left}, {}, "extra"));
  return b.Finish(outputs);
}

// x -> conv 12ch -> Split [4, 8] -> a conv on each slice.
Graph SplitGraph(int64_t batch) {
  GraphBuilder b;
  ValueId x = b.Input("x", {batch, 3, 5, 5});
  ValueId wide = b.Conv(x, 12, 3, 1, 1, 1, "wide");
  std::vector<ValueId> slices = b.Split(wide, {4, 8}, 1, "split");
  ValueId first = b.Conv(slices[0], 2, 1, 0, 1, 1, "first");
  ValueId second = b.Conv(slices[1], 2, 3, 1, 1, 1, "second");
  return b.Finish({first, second});
}

struct Planned {
  Graph graph;
  Schedule schedule;
  MemoryPlan memory;
};

Planned PlanGraph(Graph graph, bool greedy) {
  Planned p;
  p.graph = std::move(graph);
  auto blocks = PartitionIntoBlocks(p.graph, BlockOptions{});
  EXPECT_TRUE(blocks.ok()) << blocks.status().message();
  p.schedule = greedy ? GreedySchedule(*blocks, 0) : SequentialSchedule(*blocks);
  auto memory = PlanMemory(p.graph, p.schedule, CpuKernelCaps());
  EXPECT_TRUE(memory.ok()) << memory.status().message();
  p.memory = *memory;
  return p;
}

// The index of `value`'s placement, or placements.size() when it has none.
size_t PlacementIndex(const MemoryPlan& memory, ValueId value) {
  for (size_t i = 0; i < memory.placements.size(); ++i)
    if (memory.placements[i].value == value) return i;
  return memory.placements.size();
}

const TensorPlacement& PlacementOf(const MemoryPlan& memory, ValueId value) {
  for (const TensorPlacement& p : memory.placements)
    if (p.value == value) return p;
  ADD_FAILURE() << "value " << value << " is not placed";
  return memory.placements.front();
}

TEST(TensorViewsTest, ConcatInputsAtBatchOneAreViewsOfTheOutput) {
  Planned p = PlanGraph(ConcatGraph(1), /*greedy=*/true);
  const Node& concat = p.graph.nodes[FindNode(p.graph, "concat")];
  std::vector<TensorView> views = FindSliceViews(p.graph, CpuKernelCaps());
  ASSERT_EQ(views.size(), 2u);
  EXPECT_EQ(views[0].value, concat.inputs[0]);
  EXPECT_EQ(views[0].byte_offset, 0);
  EXPECT_EQ(views[1].value, concat.inputs[1]);
  EXPECT_EQ(views[1].byte_offset, 8 * 6 * 6 * 4);  // after the 8 channels of the first input

  ASSERT_TRUE(CheckMemoryPlan(p.graph, p.schedule, p.memory, CpuKernelCaps()).ok());
  const TensorPlacement& whole = PlacementOf(p.memory, concat.outputs[0]);
  const TensorPlacement& second = PlacementOf(p.memory, concat.inputs[1]);
  EXPECT_EQ(second.view_of, concat.outputs[0]);
  EXPECT_EQ(second.offset, whole.offset + 8 * 6 * 6 * 4);
  std::vector<bool> redundant = OpsMadeRedundantByViews(SlicesInPlace(p.graph, p.memory));
  EXPECT_TRUE(redundant[FindNode(p.graph, "concat")]);
  EXPECT_FALSE(redundant[FindNode(p.graph, "left")]);
}

TEST(TensorViewsTest, ConcatInputsAtBatchTwoAreStridedViewsWrittenByTheirConvs) {
  Planned p = PlanGraph(ConcatGraph(2), /*greedy=*/true);
  const Node& concat = p.graph.nodes[FindNode(p.graph, "concat")];
  const int64_t pitch = 12 * 6 * 6 * 4;  // the whole's bytes per batch item
  std::vector<TensorView> views = FindSliceViews(p.graph, CpuKernelCaps());
  ASSERT_EQ(views.size(), 2u);
  EXPECT_EQ(views[0].byte_offset, 0);
  EXPECT_EQ(views[1].byte_offset, 8 * 6 * 6 * 4);  // one item's 8 channels of the first input
  EXPECT_EQ(views[0].pitch, pitch);
  EXPECT_EQ(views[1].pitch, pitch);

  ASSERT_TRUE(CheckMemoryPlan(p.graph, p.schedule, p.memory, CpuKernelCaps()).ok());
  const TensorPlacement& whole = PlacementOf(p.memory, concat.outputs[0]);
  const TensorPlacement& second = PlacementOf(p.memory, concat.inputs[1]);
  EXPECT_EQ(second.view_of, concat.outputs[0]);
  EXPECT_EQ(second.pitch, pitch);
  std::vector<ByteRange> ranges = PlacedRanges(second, p.graph.values[concat.inputs[1]]);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[1].begin, whole.offset + pitch + 8 * 6 * 6 * 4);
  EXPECT_EQ(ranges[1].end, whole.offset + 2 * pitch);
  EXPECT_TRUE(
      OpsMadeRedundantByViews(SlicesInPlace(p.graph, p.memory))[FindNode(p.graph, "concat")]);
}

// x -> {conv 8ch, `branch_op` 4ch} -> Concat -> Split [4, 8] -> {MaxPool, AveragePool
// counting padding}: a Concat input and Split slices that a pool writes or reads, or (with a
// Relu branch) a Concat input written by a kernel that cannot take a strided view.
Graph PoolGraph(int64_t batch, const std::string& branch_op) {
  GraphBuilder b;
  ValueId x = b.Input("x", {batch, 4, 6, 6});
  ValueId conv = b.Conv(x, 8, 3, 1, 1, 1, "conv");
  AttributeMap window;
  window.Set("kernel_shape", std::vector<int64_t>{3, 3});
  window.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  ValueId branch = b.Op(branch_op, {x}, branch_op == "Relu" ? AttributeMap{} : window, "branch");
  ValueId cat = b.Op("Concat", {conv, branch}, Axis(1), "concat");
  std::vector<ValueId> slices = b.Split(cat, {4, 8}, 1, "split");
  AttributeMap average = window;
  average.Set("count_include_pad", int64_t{1});
  average.Set("strides", std::vector<int64_t>{2, 2});
  return b.Finish({b.Op("MaxPool", {slices[0]}, window, "max"),
                   b.Op("AveragePool", {slices[1]}, average, "average")});
}

// x -> {Add(conv 8ch, conv 8ch), conv 4ch} -> Concat -> conv 12ch -> Split [6, 6] ->
// Sum(slice 0, slice 1, slice 0): elementwise ops writing a Concat's slice and reading a Split's.
Graph ElementwiseGraph(int64_t batch) {
  GraphBuilder b;
  ValueId x = b.Input("x", {batch, 3, 6, 6});
  ValueId added = b.Op("Add", {b.Conv(x, 8, 3, 1), b.Conv(x, 8, 1)}, {}, "add");
  ValueId cat = b.Op("Concat", {added, b.Conv(x, 4, 1)}, Axis(1), "concat");
  std::vector<ValueId> slices = b.Split(b.Conv(cat, 12, 1), {6, 6}, 1, "split");
  return b.Finish({b.Op("Sum", {slices[0], slices[1], slices[0]}, {}, "sum")});
}

TEST(TensorViewsTest, ElementwiseOpsOfSameShapeOperandsTakeStridedViews) {
  Graph graph = ElementwiseGraph(2);
  std::vector<TensorView> views = FindSliceViews(graph, CpuKernelCaps());
  ASSERT_EQ(views.size(), 4u);  // the Concat's two inputs, the Split's two outputs
  for (const TensorView& view : views) EXPECT_GT(view.pitch, 0);
  const Node& sum = graph.nodes[FindNode(graph, "sum")];
  EXPECT_TRUE(TakesStridedBatchSlice(graph, sum, sum.inputs[0], CpuKernelCaps()));
  // A broadcasting Add does not take them.
  GraphBuilder b;
  ValueId x = b.Input("x", {2, 4, 3, 3});
  ValueId bias = b.Constant("bias", b.Random({1, 4, 1, 1}));
  ValueId y = b.Op("Add", {x, bias}, {}, "add");
  Graph broadcast = b.Finish({y});
  EXPECT_FALSE(TakesStridedBatchSlice(broadcast, broadcast.nodes.back(), y, CpuKernelCaps()));
}

TEST(TensorViewsTest, PoolsWriteAndReadStridedViews) {
  Planned p = PlanGraph(PoolGraph(2, "MaxPool"), /*greedy=*/true);
  std::vector<TensorView> views = FindSliceViews(p.graph, CpuKernelCaps());
  // The Concat's inputs; the Split's whole is the Concat's output, already a base.
  ASSERT_EQ(views.size(), 2u);
  for (const TensorView& view : views) EXPECT_EQ(view.pitch, 12 * 6 * 6 * 4);
  ASSERT_TRUE(CheckMemoryPlan(p.graph, p.schedule, p.memory, CpuKernelCaps()).ok());
}

// Slices with another reader, or touched by a kernel that needs dense tensors, are no views; the
// op's other slices still are (a partial view), and the op copies only the former.
TEST(TensorViewsTest, PartialViewsWhereSomeSlicesCannotBeViews) {
  for (int64_t batch : {1, 2}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Planned p = PlanGraph(ConcatGraph(batch, /*extra_reader=*/true), true);
    const Node& concat = p.graph.nodes[FindNode(p.graph, "concat")];
    std::vector<TensorView> views = FindSliceViews(p.graph, CpuKernelCaps());
    ASSERT_EQ(views.size(), 1u);  // the branch that only the Concat reads
    EXPECT_EQ(views[0].value, concat.inputs[1]);
    EXPECT_EQ(views[0].byte_offset, 8 * 6 * 6 * 4);
    ASSERT_TRUE(CheckMemoryPlan(p.graph, p.schedule, p.memory, CpuKernelCaps()).ok());
    const NodeId id = FindNode(p.graph, "concat");
    EXPECT_EQ(SlicesInPlace(p.graph, p.memory)[id], (std::vector<bool>{false, true}));
    EXPECT_FALSE(OpsMadeRedundantByViews(SlicesInPlace(p.graph, p.memory))[id]);
  }
  // A Relu branch at batch 2: the conv's slice is a strided view, the Relu's is copied; the
  // Split's whole is then a base already, so its slices are copied too.
  EXPECT_EQ(FindSliceViews(PoolGraph(1, "Relu"), CpuKernelCaps()).size(), 2u);
  Planned p = PlanGraph(PoolGraph(2, "Relu"), true);
  const Node& concat = p.graph.nodes[FindNode(p.graph, "concat")];
  EXPECT_EQ(PlacementOf(p.memory, concat.inputs[0]).view_of, concat.outputs[0]);
  EXPECT_EQ(PlacementOf(p.memory, concat.inputs[1]).view_of, kNoValue);
  std::vector<TensorView> views = FindSliceViews(p.graph, CpuKernelCaps());
  ASSERT_EQ(views.size(), 1u);
  EXPECT_EQ(views[0].pitch, 12 * 6 * 6 * 4);
}

TEST(TensorViewsTest, OnlyAConvsDataInputAndOutputTakeStridedSlices) {
  Graph graph = ConcatGraph(2);
  const Node& left = graph.nodes[FindNode(graph, "left")];
  EXPECT_TRUE(TakesStridedBatchSlice(graph, left, left.inputs[0], CpuKernelCaps()));
  EXPECT_TRUE(TakesStridedBatchSlice(graph, left, left.outputs[0], CpuKernelCaps()));
  EXPECT_FALSE(
      TakesStridedBatchSlice(graph, left, left.inputs[1], CpuKernelCaps()));  // the weights
  const Node& concat = graph.nodes[FindNode(graph, "concat")];
  EXPECT_FALSE(TakesStridedBatchSlice(graph, concat, concat.inputs[0], CpuKernelCaps()));
}

TEST(TensorViewsTest, SplitOutputsAreViewsOfTheInput) {
  for (int64_t batch : {1, 3}) {
    Planned p = PlanGraph(SplitGraph(batch), true);
    std::vector<TensorView> views = FindSliceViews(p.graph, CpuKernelCaps());
    ASSERT_EQ(views.size(), 2u) << "batch " << batch;
    EXPECT_EQ(views[1].byte_offset, 4 * 5 * 5 * 4);
    EXPECT_EQ(views[1].pitch, batch == 1 ? 0 : 12 * 5 * 5 * 4);
    ASSERT_TRUE(CheckMemoryPlan(p.graph, p.schedule, p.memory, CpuKernelCaps()).ok());
    EXPECT_TRUE(
        OpsMadeRedundantByViews(SlicesInPlace(p.graph, p.memory))[FindNode(p.graph, "split")]);
  }
}

TEST(TensorViewsTest, CheckerRefusesBrokenStridedViews) {
  Planned p = PlanGraph(ConcatGraph(2), true);
  const Node& concat = p.graph.nodes[FindNode(p.graph, "concat")];
  auto index_of = [&](ValueId value) { return PlacementIndex(p.memory, value); };
  const size_t second = index_of(concat.inputs[1]);
  ASSERT_LT(second, p.memory.placements.size());

  MemoryPlan wrong_pitch = p.memory;
  wrong_pitch.placements[second].pitch += 16;
  Status status = CheckMemoryPlan(p.graph, p.schedule, wrong_pitch, CpuKernelCaps());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("pitch"), std::string::npos) << status.message();

  // Moved one channel plane (144 bytes) down: the second view's items overlap the first's.
  MemoryPlan overlap = p.memory;
  overlap.placements[second].offset -= 6 * 6 * 4;
  status = CheckMemoryPlan(p.graph, p.schedule, overlap, CpuKernelCaps());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("another view of the same base"), std::string::npos)
      << status.message();

  // Past its share of a batch item: the first item's slice would spill into the second item.
  MemoryPlan spill = p.memory;
  spill.placements[second].offset += 16;
  status = CheckMemoryPlan(p.graph, p.schedule, spill, CpuKernelCaps());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("not inside its base"), std::string::npos) << status.message();
}

TEST(TensorViewsTest, CheckerRefusesBrokenViews) {
  Planned p = PlanGraph(ConcatGraph(1), true);
  const Node& concat = p.graph.nodes[FindNode(p.graph, "concat")];
  auto index_of = [&](ValueId value) { return PlacementIndex(p.memory, value); };
  const size_t first = index_of(concat.inputs[0]);
  const size_t second = index_of(concat.inputs[1]);
  ASSERT_LT(second, p.memory.placements.size());

  MemoryPlan outside = p.memory;
  outside.placements[second].offset += 4 * 6 * 6 * 4;  // past the end of the base
  outside.arena_bytes += 1 << 16;
  Status status = CheckMemoryPlan(p.graph, p.schedule, outside, CpuKernelCaps());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("not inside its base"), std::string::npos) << status.message();

  MemoryPlan siblings = p.memory;
  siblings.placements[second].offset = siblings.placements[first].offset;
  status = CheckMemoryPlan(p.graph, p.schedule, siblings, CpuKernelCaps());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("another view of the same base"), std::string::npos);

  // The input x is live with the branches: moving it onto the concat output's bytes is caught,
  // although the concat output itself is written only later (its views are live earlier).
  MemoryPlan clash = p.memory;
  const size_t input = index_of(p.graph.inputs[0]);
  clash.placements[input].offset = PlacementOf(p.memory, concat.outputs[0]).offset;
  status = CheckMemoryPlan(p.graph, p.schedule, clash, CpuKernelCaps());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("overlaps"), std::string::npos) << status.message();
}

// Runs the graph's plan on the CPU backend and compares with the reference evaluator.
void ExpectCpuMatchesReference(Graph graph, bool greedy) {
  Planned p = PlanGraph(std::move(graph), greedy);
  PlanMetadata meta;
  meta.batch = p.graph.values[p.graph.inputs[0]].dims[0];
  meta.device.set_kind("cpu");
  auto built = BuildPlan(p.graph, p.schedule, p.memory, meta);
  ASSERT_TRUE(built.ok()) << built.status().message();
  auto loaded = LoadPlan(*built, "views.iosplan", CpuKernelCaps());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  bool has_view = false;
  for (const TensorPlacement& placement : loaded->memory.placements)
    has_view |= placement.view_of != kNoValue;
  EXPECT_TRUE(has_view) << "the plan lost its views in the round trip";

  GraphBuilder inputs_builder;
  std::vector<Tensor> inputs = {inputs_builder.Random(p.graph.values[p.graph.inputs[0]].dims)};
  auto expected = EvaluateGraphReference(p.graph, inputs);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  CpuSessionOptions options;
  options.threads = 2;
  auto session = CpuSession::Create(std::move(*loaded), options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  ASSERT_TRUE((*session)->SetInputs(inputs).ok());
  ASSERT_TRUE((*session)->Run().ok());
  std::vector<Tensor> outputs = (*session)->GetOutputs();
  ASSERT_EQ(outputs.size(), expected->size());
  for (size_t o = 0; o < outputs.size(); ++o) {
    ASSERT_EQ(outputs[o].num_elements(), (*expected)[o].num_elements());
    for (int64_t i = 0; i < outputs[o].num_elements(); ++i)
      ASSERT_NEAR(outputs[o].data<float>()[i], (*expected)[o].data<float>()[i], 1e-4)
          << "output " << o << " element " << i;
  }
}

TEST(TensorViewsTest, PlansWithViewsComputeTheSameOutputsOnTheCpu) {
  ExpectCpuMatchesReference(ConcatGraph(1), /*greedy=*/true);
  ExpectCpuMatchesReference(ConcatGraph(1), /*greedy=*/false);
  ExpectCpuMatchesReference(SplitGraph(1), /*greedy=*/true);
}

// Strided views: the convs write and read channel slices of the wider tensor at batch > 1,
// through oneDNN's blocked and plain-layout paths (large and small outputs), with fused and
// separately applied activations.
TEST(TensorViewsTest, PlansWithStridedViewsComputeTheSameOutputsOnTheCpu) {
  ExpectCpuMatchesReference(ConcatGraph(2), /*greedy=*/true);
  ExpectCpuMatchesReference(ConcatGraph(3), /*greedy=*/false);
  ExpectCpuMatchesReference(SplitGraph(2), /*greedy=*/true);
  ExpectCpuMatchesReference(SplitGraph(3), /*greedy=*/false);
  ExpectCpuMatchesReference(PoolGraph(2, "MaxPool"), /*greedy=*/true);
  ExpectCpuMatchesReference(PoolGraph(3, "AveragePool"), /*greedy=*/false);
  ExpectCpuMatchesReference(PoolGraph(2, "Relu"), /*greedy=*/true);
  ExpectCpuMatchesReference(ElementwiseGraph(2), /*greedy=*/true);
  ExpectCpuMatchesReference(ElementwiseGraph(3), /*greedy=*/false);
}

// Partial views: the Concat copies only the slice that is not in place, contiguous and strided.
TEST(TensorViewsTest, PlansWithPartialViewsComputeTheSameOutputsOnTheCpu) {
  ExpectCpuMatchesReference(ConcatGraph(1, /*extra_reader=*/true), /*greedy=*/true);
  ExpectCpuMatchesReference(ConcatGraph(2, /*extra_reader=*/true), /*greedy=*/false);
  ExpectCpuMatchesReference(PoolGraph(3, "Relu"), /*greedy=*/true);
}

}  // namespace
}  // namespace ios
