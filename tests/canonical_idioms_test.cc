// One form for what exporters spell several ways (issue 50): each rewrite computes the same as
// the subgraph it replaces (the reference kernels evaluate both graphs), keeps the graph outputs'
// names, and leaves alone what it must (other axes, other constants, values read twice,
// parameters computed at run time).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/reference/reference_graph.h"
#include "passes/eliminate_identity.h"
#include "passes/fold_batchnorm.h"
#include "tensor_compare.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::CountOps;
using testing::GraphBuilder;
using testing::MaxAbsDiff;

ValueId Ints(GraphBuilder& b, const std::string& name, const std::vector<int64_t>& values) {
  return b.Constant(name, Tensor::FromInt64(values, {static_cast<int64_t>(values.size())}));
}

std::vector<std::string> OutputNames(const Graph& g) {
  std::vector<std::string> names;
  for (ValueId id : g.outputs) names.push_back(g.values[id].name);
  return names;
}

// Runs `pass` and checks that it reported `expected` rewrites, that the graph outputs keep their
// names, and that every output is the same (within `tolerance`) on an input of `dims` (uniform in
// [-scale, scale)).
void ExpectRewrittenSame(Graph g, const std::function<int(Graph&)>& pass, int expected,
                         const Dims& dims, float tolerance = 1e-6f, float scale = 5.f) {
  GraphBuilder inputs(13);
  Tensor x = inputs.Random(dims);
  for (int64_t i = 0; i < x.num_elements(); ++i) x.data<float>()[i] *= scale;
  const std::vector<std::string> names = OutputNames(g);
  auto before = EvaluateGraphReference(g, {x});
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(pass(g), expected);
  EXPECT_EQ(OutputNames(g), names);
  auto after = EvaluateGraphReference(g, {x});
  ASSERT_TRUE(after.ok()) << after.status().message();
  ASSERT_EQ(before.value().size(), after.value().size());
  for (size_t i = 0; i < before.value().size(); ++i)
    EXPECT_LT(MaxAbsDiff(before.value()[i], after.value()[i]), tolerance) << "output " << i;
}

// ---- copies: a full Slice, a one-input Concat, a Reshape to the same dims --------------------

TEST(EliminateIdentityTest, RemovesOpsThatCopyTheirInput) {
  // GhostNet's x[:, :c] of all c channels (TorchScript), DenseNet's one-input Concat.
  GraphBuilder b(13);
  ValueId x = b.Input("x", {1, 4, 3, 3});
  ValueId relu = b.Op("Relu", {x});
  ValueId sliced = b.Op("Slice", {relu, Ints(b, "starts", {0}), Ints(b, "ends", {4}),
                                  Ints(b, "axes", {1}), Ints(b, "steps", {1})});
  AttributeMap axis1;
  axis1.Set("axis", int64_t{1});
  ValueId concat = b.Op("Concat", {sliced}, axis1);
  ValueId same = b.Op("Reshape", {concat, Ints(b, "shape", {1, 4, 3, 3})});
  ValueId out = b.Op("Sigmoid", {same});
  Graph g = b.Finish({out});
  ExpectRewrittenSame(g, EliminateIdentities, 3, {1, 4, 3, 3});
  EliminateIdentities(g);
  EXPECT_EQ(g.nodes.size(), 2u);
}

TEST(EliminateIdentityTest, KeepsSlicesThatReverseOrCut) {
  GraphBuilder b(13);
  ValueId x = b.Input("x", {1, 4, 3, 3});
  // All four channels, reversed: a negative step.
  ValueId reversed = b.Op("Slice", {x, Ints(b, "starts", {-1}), Ints(b, "ends", {-5}),
                                    Ints(b, "axes", {1}), Ints(b, "steps", {-1})});
  ValueId cut =
      b.Op("Slice", {x, Ints(b, "starts", {0}), Ints(b, "ends", {2}), Ints(b, "axes", {1})});
  Graph g = b.Finish({reversed, cut});
  EXPECT_EQ(EliminateIdentities(g), 0);
  EXPECT_EQ(CountOps(g, "Slice"), 2);
}

TEST(EliminateIdentityTest, AFullSliceThatWritesAGraphOutputKeepsItsName) {
  GraphBuilder b(13);
  ValueId x = b.Input("x", {1, 4, 3, 3});
  ValueId sliced = b.Op(
      "Slice",
      {b.Op("Relu", {x}), Ints(b, "starts", {0}), Ints(b, "ends", {100}), Ints(b, "axes", {1})}, {},
      "head");
  Graph g = b.Finish({sliced});
  ExpectRewrittenSame(g, EliminateIdentities, 1, {1, 4, 3, 3});
}

// ---- BatchNormalization after ConvTranspose --------------------------------------------------

// ConvTranspose (Cin 4, Cout 6, `group` groups, 3x3, stride 2) -> BatchNormalization.
Graph ConvTransposeBn(GraphBuilder& b, int64_t group, bool bias, bool constant_gamma) {
  ValueId x = b.Input("x", {2, 4, 5, 5});
  AttributeMap attrs;
  attrs.Set("kernel_shape", std::vector<int64_t>{3, 3});
  attrs.Set("strides", std::vector<int64_t>{2, 2});
  attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  attrs.Set("output_padding", std::vector<int64_t>{1, 1});
  attrs.Set("group", group);
  std::vector<ValueId> inputs = {x, b.Constant("w", b.Random({4, 6 / group, 3, 3}))};
  if (bias) inputs.push_back(b.Constant("b", b.Random({6})));
  ValueId up = b.Op("ConvTranspose", inputs, attrs);
  Tensor var = b.Random({6});
  for (int64_t i = 0; i < 6; ++i) var.data<float>()[i] = std::fabs(var.data<float>()[i]) + 0.2f;
  ValueId gamma = constant_gamma ? b.Constant("gamma", b.Random({6})) : b.Input("gamma", {6});
  ValueId bn = b.Op("BatchNormalization",
                    {up, gamma, b.Constant("beta", b.Random({6})),
                     b.Constant("mean", b.Random({6})), b.Constant("var", std::move(var))});
  return b.Finish({bn});
}

TEST(FoldBatchNormTest, FoldsIntoTheConvTransposeBeforeWithGroups) {
  for (int64_t group : {1, 2}) {
    for (bool bias : {true, false}) {
      GraphBuilder b(13);
      Graph g = ConvTransposeBn(b, group, bias, true);
      SCOPED_TRACE("group " + std::to_string(group) + (bias ? " bias" : " no bias"));
      ExpectRewrittenSame(
          g, [](Graph& graph) { return FoldBatchNormIntoConv(graph).value(); }, 1, {2, 4, 5, 5},
          1e-5f, 1.f);
      ASSERT_TRUE(FoldBatchNormIntoConv(g).ok());
      EXPECT_EQ(CountOps(g, "BatchNormalization"), 0);
      EXPECT_EQ(CountOps(g, "ConvTranspose"), 1);
    }
  }
}

TEST(FoldBatchNormTest, LeavesAConvTransposeBatchNormWithARunTimeParameter) {
  GraphBuilder b(13);
  Graph g = ConvTransposeBn(b, 1, true, false);
  auto folded = FoldBatchNormIntoConv(g);
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(folded.value(), 0);
  EXPECT_EQ(CountOps(g, "BatchNormalization"), 1);
}

}  // namespace
}  // namespace ios
