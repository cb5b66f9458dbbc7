// The residual-Add fusion of CPU plans (passes/fuse_residual_add.h): which Adds fuse into which
// conv, that the fused graph computes what the original did (reference kernels), that ONNX's
// Conv still refuses a fourth input, and that --emit-onnx writes the Add out again.
#include "passes/fuse_residual_add.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/fused_activation.h"
#include "kernels/reference/reference_graph.h"
#include "onnx/onnx_exporter.h"
#include "onnx/onnx_importer.h"
#include "ops/op_registry.h"
#include "passes/fuse_activation.h"
#include "tensor_compare.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::CountOps;
using testing::GraphBuilder;
using testing::MaxAbsDiff;

int ResidualConvs(const Graph& g) {
  int n = 0;
  for (const Node& node : g.nodes) n += !node.dead && HasFusedResidual(node);
  return n;
}

// A ResNet bottleneck with an identity shortcut and one with a projection shortcut (both
// operands of its Add are convs: the main branch's last and the shortcut's one 1x1 conv of the
// block's input), each Add followed by Relu.
Graph Bottlenecks(GraphBuilder& b) {
  ValueId x = b.Input("x", {2, 8, 6, 6});
  ValueId y = b.Op("Relu", {b.Conv(x, 8, 3, 1)});
  y = b.Conv(y, 8, 1);
  y = b.Op("Relu", {b.Op("Add", {y, x})});
  ValueId main = b.Conv(b.Op("Relu", {b.Conv(y, 4, 1)}), 16, 3, 1);
  ValueId shortcut = b.Conv(y, 16, 1);
  return b.Finish({b.Op("Relu", {b.Op("Add", {shortcut, main})})});
}

TEST(FuseResidualAddTest, ShortcutsAndTheirReluFuseIntoTheConvBefore) {
  GraphBuilder b;
  Graph g = Bottlenecks(b);
  Tensor input = b.Random({2, 8, 6, 6});
  auto before = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(before.ok()) << before.status().message();
  ASSERT_EQ(FuseConvActivations(g), 2);  // the Relus after convs
  // The identity shortcut's Add fuses into the conv before it. The projection shortcut's fuses
  // into the main branch's last conv, which then reads the shortcut conv's output: that conv
  // reads only the block's input, so it can still run beside the main branch's first convs.
  EXPECT_EQ(FuseConvResidualAdds(g), 2);
  EXPECT_EQ(FuseConvActivations(g), 2);  // the Relus after the fused Adds
  EXPECT_EQ(CountOps(g, "Add"), 0);
  EXPECT_EQ(CountOps(g, "Relu"), 0);
  EXPECT_EQ(ResidualConvs(g), 2);
  // The identity shortcut's residual is the graph input; the projection's is the 1x1 shortcut
  // conv's output, never the main branch's.
  int from_input = 0, from_shortcut = 0;
  for (const Node& node : g.nodes) {
    if (!HasFusedResidual(node)) continue;
    EXPECT_EQ(GetFusedActivation(node.attrs).kind, ActivationKind::kRelu) << node.name;
    const NodeId producer = g.values[node.inputs[3]].producer;
    if (producer == kNoNode) {
      ++from_input;
      continue;
    }
    const Node& shortcut = g.nodes[producer];
    EXPECT_EQ(shortcut.op_type, "Conv") << shortcut.name;
    EXPECT_FALSE(HasFusedResidual(shortcut)) << shortcut.name;
    EXPECT_EQ(g.values[shortcut.inputs[1]].dims[2], 1) << "not the 1x1 shortcut: " << shortcut.name;
    ++from_shortcut;
  }
  EXPECT_EQ(from_input, 1);
  EXPECT_EQ(from_shortcut, 1);
  // Every fused node still infers (the residual is the output's shape).
  for (NodeId n = 0; n < static_cast<NodeId>(g.nodes.size()); ++n)
    EXPECT_TRUE(InferNode(g, n).ok()) << g.nodes[n].name;
  auto after = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_LT(MaxAbsDiff(before.value()[0], after.value()[0]), 1e-5f);

  // --emit-onnx writes Conv, Add and Relu again, computing the same.
  StatusOr<std::string> bytes = ExportOnnxBytes(g);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  StatusOr<Graph> back = ImportOnnxBytes(bytes.value(), "exported.onnx", ImportOptions{});
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(CountOps(back.value(), "Add"), 2);
  EXPECT_EQ(CountOps(back.value(), "Relu"), 4);  // every Relu of the original graph
  EXPECT_EQ(ResidualConvs(back.value()), 0);
  auto exported = EvaluateGraphReference(back.value(), {input});
  ASSERT_TRUE(exported.ok()) << exported.status().message();
  EXPECT_LT(MaxAbsDiff(before.value()[0], exported.value()[0]), 1e-5f);
}

TEST(FuseResidualAddTest, LeavesAddsItCannotFuse) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 5, 5});
  // The conv's output has a second reader.
  ValueId c1 = b.Conv(x, 4, 1);
  ValueId twice = b.Op("Add", {c1, x});
  ValueId other = b.Op("Sigmoid", {c1});
  // A broadcast operand (a per-channel bias).
  ValueId c2 = b.Conv(x, 4, 1);
  ValueId bias = b.Input("bias", {1, 4, 1, 1});
  ValueId broadcast = b.Op("Add", {c2, bias});
  // The conv already carries an activation: act(conv) + x is not conv + x.
  ValueId c3 = b.Conv(x, 4, 1);
  Graph g = b.Finish({twice, other, broadcast, c3});
  SetFusedActivation(g.nodes[g.values[c3].producer].attrs, Activation{ActivationKind::kRelu});
  EXPECT_EQ(FuseConvResidualAdds(g), 0);
  EXPECT_EQ(CountOps(g, "Add"), 2);
}

// Two independent branches of more than one op each (NasNet's and RandWire's aggregations):
// fusing their Add would order one branch's ops before the other's last, so it stays, as does
// an Add whose other operand is read by an op after the conv's branch started.
TEST(FuseResidualAddTest, AddsOfLongerIndependentBranchesStay) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 5, 5});
  ValueId left = b.Conv(b.Op("Relu", {b.Conv(x, 4, 1)}), 4, 3, 1);
  ValueId right = b.Conv(b.Op("Sigmoid", {b.Conv(x, 4, 1)}), 4, 3, 1);
  Graph g = b.Finish({b.Op("Add", {left, right})});
  EXPECT_EQ(FuseConvResidualAdds(g), 0);
  EXPECT_EQ(CountOps(g, "Add"), 1);
}

// Two convs of the same input: either could take the other's output; the later one does.
TEST(FuseResidualAddTest, OfTwoConvsOfOneInputTheLaterTakesTheResidual) {
  GraphBuilder b;
  ValueId y = b.Input("y", {1, 4, 5, 5});
  ValueId p = b.Conv(y, 4, 1);
  ValueId q = b.Conv(y, 4, 3, 1);
  Graph g = b.Finish({b.Op("Add", {p, q})});
  ASSERT_EQ(FuseConvResidualAdds(g), 1);
  for (const Node& node : g.nodes) {
    if (!node.dead && HasFusedResidual(node)) {
      EXPECT_EQ(node.inputs[3], p) << node.name;
    }
  }
}

TEST(FuseResidualAddTest, OnnxConvRefusesAFourthInputWithoutTheAttribute) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 5, 5});
  ValueId small = b.Input("small", {1, 4, 1, 1});
  ValueId y = b.Conv(x, 4, 1);
  Graph g = b.Finish({y});
  Node& conv = g.nodes[g.values[y].producer];
  conv.inputs.push_back(x);  // [X, W, B, R], R of the output's shape
  Status status = InferNode(g, g.values[y].producer);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("Conv takes at most 3 inputs"), std::string::npos)
      << status.message();
  conv.attrs.Set(kFusedResidualAttr, int64_t{1});
  EXPECT_TRUE(InferNode(g, g.values[y].producer).ok());
  conv.inputs[3] = small;
  status = InferNode(g, g.values[y].producer);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("must be the output's"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace ios
