#include "passes/eliminate_common_subexpressions.h"

#include <gtest/gtest.h>

#include "kernels/reference/reference_graph.h"
#include "op_shape_test_util.h"
#include "passes/canonicalize.h"
#include "tensor_compare.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using shape_testing::Attrs;
using shape_testing::Ints;
using testing::CountOps;
using testing::GraphBuilder;
using testing::MaxAbsDiff;

// A 3x3 pool that keeps the spatial size.
const AttributeMap kPool = Attrs({{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}});

// What the graph computes on a fixed input, by the reference kernels.
std::vector<Tensor> ReferenceOutputs(const Graph& graph, const Tensor& input) {
  auto outputs = EvaluateGraphReference(graph, {input});
  EXPECT_TRUE(outputs.ok()) << outputs.status().message();
  return outputs.ok() ? outputs.value() : std::vector<Tensor>{};
}

TEST(EliminateCommonSubexpressionsTest, RepeatedReluAndPoolChainsRunOnce) {
  // NASNet's cells: each branch applies its own ReLU (and here a pool after it) to one input.
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 6, 6});
  ValueId h = b.Conv(x, 8, 3, 1);
  ValueId left = b.Conv(b.Op("AveragePool", {b.Op("Relu", {h})}, kPool), 8, 1);
  ValueId right = b.Conv(b.Op("AveragePool", {b.Op("Relu", {h})}, kPool), 8, 3, 1);
  ValueId sum = b.Op("Add", {left, right});
  Graph g = b.Finish({sum});
  const Tensor input = b.Random({1, 8, 6, 6});
  const std::vector<Tensor> before = ReferenceOutputs(g, input);

  EXPECT_EQ(EliminateCommonSubexpressions(g), 2);
  EXPECT_EQ(CountOps(g, "Relu"), 1);
  EXPECT_EQ(CountOps(g, "AveragePool"), 1);
  EXPECT_EQ(CountOps(g, "Conv"), 3);  // different weights: different convs
  // Both branch convs now read the one pool.
  for (const Node& node : g.nodes) {
    if (node.op_type != "AveragePool") continue;
    EXPECT_EQ(g.values[node.outputs[0]].consumers.size(), 2u);
  }
  const std::vector<Tensor> after = ReferenceOutputs(g, input);
  ASSERT_EQ(before.size(), 1u);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(MaxAbsDiff(before[0], after[0]), 0.f);
}

TEST(EliminateCommonSubexpressionsTest, OtherAttributesOpsOrInputsStayApart) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 5, 5});
  ValueId y = b.Input("y", {1, 4, 5, 5});
  std::vector<ValueId> outs = {b.Op("LeakyRelu", {x}, Attrs({{"alpha", 0.1f}})),
                               b.Op("LeakyRelu", {x}, Attrs({{"alpha", 0.2f}})),
                               b.Op("AveragePool", {x}, kPool),
                               b.Op("MaxPool", {x}, kPool),
                               b.Op("Add", {x, y}),
                               b.Op("Add", {y, x}),  // no commuting
                               b.Op("Relu", {x}),
                               b.Op("Relu", {y})};
  ValueId total = outs[0];
  for (size_t i = 1; i < outs.size(); ++i) total = b.Op("Add", {total, outs[i]});
  Graph g = b.Finish({total});
  EXPECT_EQ(EliminateCommonSubexpressions(g), 0);
  EXPECT_EQ(g.nodes.size(), 15u);
}

TEST(EliminateCommonSubexpressionsTest, RandomOpsDrawApart) {
  // No backend runs them yet; the pass must not make two draws one when one does.
  GraphBuilder b;
  b.set_infer(false);
  ValueId x = b.Input("x", {2, 3});
  ValueId first = b.Op("RandomUniformLike", {x});
  ValueId second = b.Op("RandomUniformLike", {x});
  Graph g = b.Finish({b.Op("Add", {first, second})});
  EXPECT_EQ(EliminateCommonSubexpressions(g), 0);
  EXPECT_EQ(CountOps(g, "RandomUniformLike"), 2);
}

TEST(EliminateCommonSubexpressionsTest, ConstantsOfTheSameContentAreTheSameInput) {
  GraphBuilder b;
  ValueId x = b.Input("x", {2, 3});
  ValueId scaled_a = b.Op("Mul", {x, b.Constant("half_a", Tensor::FromFloat({0.5f}, {1}))});
  ValueId scaled_b = b.Op("Mul", {x, b.Constant("half_b", Tensor::FromFloat({0.5f}, {1}))});
  ValueId scaled_c = b.Op("Mul", {x, b.Constant("quarter", Tensor::FromFloat({0.25f}, {1}))});
  ValueId other_shape = b.Op("Mul", {x, b.Constant("half_v", Tensor::FromFloat({0.5f}, {}))});
  ValueId total =
      b.Op("Add", {b.Op("Add", {scaled_a, scaled_b}), b.Op("Add", {scaled_c, other_shape})});
  Graph g = b.Finish({total});
  EXPECT_EQ(EliminateCommonSubexpressions(g), 1);
  EXPECT_EQ(CountOps(g, "Mul"), 3);
  // The Add of the two merged products reads one value twice.
  bool found = false;
  for (const Node& node : g.nodes)
    found = found || (node.op_type == "Add" && node.inputs[0] == node.inputs[1]);
  EXPECT_TRUE(found);
}

TEST(EliminateCommonSubexpressionsTest, AGraphOutputKeepsItsNode) {
  // The second Relu writes a graph output of its own: its name is the model's, so it stays. The
  // third reads into a graph output through another op and merges into the first.
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 2, 3, 3});
  ValueId first = b.Op("Relu", {x}, {}, "first");
  ValueId second = b.Op("Relu", {x}, {}, "second");
  ValueId third = b.Op("Relu", {x}, {}, "third");
  ValueId squashed = b.Op("Sigmoid", {third});
  Graph g = b.Finish({first, second, squashed});
  EXPECT_EQ(EliminateCommonSubexpressions(g), 1);
  ASSERT_EQ(g.outputs.size(), 3u);
  EXPECT_EQ(g.values[g.outputs[0]].name, "first:0");
  EXPECT_EQ(g.values[g.outputs[1]].name, "second:0");
  const Node& sigmoid = g.nodes[g.values[g.outputs[2]].producer];
  EXPECT_EQ(g.values[sigmoid.inputs[0]].name, "first:0");
}

TEST(EliminateCommonSubexpressionsTest, MultiOutputOpsMergeOutputByOutput) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 6, 2, 2});
  std::vector<ValueId> a = b.Split(x, {2, 4}, 1, "split_a");
  std::vector<ValueId> c = b.Split(x, {2, 4}, 1, "split_c");  // its own sizes constant
  std::vector<ValueId> d = b.Split(x, {3, 3}, 1, "split_d");
  ValueId low = b.Op("Add", {a[0], c[0]});
  ValueId high = b.Op("Add", {a[1], c[1]});
  ValueId mid = b.Op("Add", {d[0], d[1]});
  Graph g = b.Finish({low, high, mid});
  const Tensor input = b.Random({1, 6, 2, 2});
  const std::vector<Tensor> before = ReferenceOutputs(g, input);
  EXPECT_EQ(EliminateCommonSubexpressions(g), 1);
  EXPECT_EQ(CountOps(g, "Split"), 2);
  const std::vector<Tensor> after = ReferenceOutputs(g, input);
  ASSERT_EQ(after.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(MaxAbsDiff(before[i], after[i]), 0.f);
}

TEST(EliminateCommonSubexpressionsTest, RunsByNameInTheCanonicalisation) {
  auto options = CanonicalizeOptionsForPasses({"eliminate-common-subexpressions"});
  ASSERT_TRUE(options.ok());
  EXPECT_TRUE(options->eliminate_common_subexpressions);
  EXPECT_FALSE(options->fuse_activations);

  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 4, 4});
  ValueId h = b.Conv(x, 4, 1);
  ValueId sum = b.Op("Add", {b.Op("Relu", {h}), b.Op("Relu", {h})});
  Graph g = b.Finish({sum});
  CanonicalizeStats stats;
  ASSERT_TRUE(Canonicalize(g, *options, &stats).ok());
  EXPECT_EQ(stats.common_subexpressions_eliminated, 1);
  EXPECT_EQ(CountOps(g, "Relu"), 1);

  auto off = CanonicalizeOptionsForPasses({"fold-constants"});
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->eliminate_common_subexpressions);
}

}  // namespace
}  // namespace ios
