// The CPU lowering's BatchNormalizations (passes/channel_affine.h, FuseBatchNormActivations in
// passes/fuse_activation.h): which per-channel Mul/Add pairs become inference BNs, that the
// rewritten graph computes what the original did (reference kernels, which apply a BN's fused
// activation), which activations fuse into a BN, and that a BN may write over its X
// (plan/in_place.h).
#include "passes/channel_affine.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/fused_activation.h"
#include "kernels/reference/reference_graph.h"
#include "passes/fuse_activation.h"
#include "plan/in_place.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "tensor_compare.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::CountOps;
using testing::GraphBuilder;
using testing::MaxAbsDiff;

// Mul(x, scale) then Add(shift), with the constants shaped `dims` (per channel of x or not).
ValueId Affine(GraphBuilder& b, ValueId x, const Dims& scale_dims, const Dims& shift_dims,
               bool constant_first = false) {
  const std::string id = std::to_string(b.graph().values.size());
  const ValueId scale = b.Constant("scale" + id, b.Random(scale_dims));
  const ValueId shift = b.Constant("shift" + id, b.Random(shift_dims));
  const ValueId scaled =
      b.Op("Mul", constant_first ? std::vector<ValueId>{scale, x} : std::vector<ValueId>{x, scale});
  return b.Op("Add", constant_first ? std::vector<ValueId>{shift, scaled}
                                    : std::vector<ValueId>{scaled, shift});
}

// Evaluates g before and after `rewrite`, and expects the same outputs within float rounding.
template <typename Rewrite>
void ExpectSameFunction(Graph& g, const std::vector<Tensor>& inputs, Rewrite rewrite) {
  auto before = EvaluateGraphReference(g, inputs);
  ASSERT_TRUE(before.ok()) << before.status().message();
  rewrite();
  auto after = EvaluateGraphReference(g, inputs);
  ASSERT_TRUE(after.ok()) << after.status().message();
  ASSERT_EQ(before->size(), after->size());
  for (size_t i = 0; i < before->size(); ++i)
    EXPECT_LE(MaxAbsDiff((*before)[i], (*after)[i]), 1e-6f) << "output " << i;
}

TEST(ChannelAffineTest, PerChannelMulAddPairsBecomeBatchNorms) {
  GraphBuilder b;
  const ValueId x = b.Input("x", {2, 6, 4, 5});
  // DenseNet's [C, 1, 1] parameters then a Relu; [1, C, 1, 1] with the constants first; a scalar
  // scale with a per-channel shift; a rank-2 [N, C] input with [C] parameters.
  ValueId y = b.Op("Relu", {Affine(b, x, {6, 1, 1}, {6, 1, 1})});
  y = Affine(b, y, {1, 6, 1, 1}, {1, 6, 1, 1}, /*constant_first=*/true);
  y = Affine(b, y, {}, {6, 1, 1});
  const ValueId flat = b.Op("GlobalAveragePool", {y});
  AttributeMap axis;
  axis.Set("axis", int64_t{1});
  const ValueId rows = Affine(b, b.Op("Flatten", {flat}, axis), {6}, {6});
  Graph g = b.Finish({y, rows});
  ExpectSameFunction(g, {b.Random({2, 6, 4, 5})}, [&] {
    EXPECT_EQ(RewriteChannelAffinesAsBatchNorms(g), 4);
    EXPECT_EQ(FuseBatchNormActivations(g), 1);
  });
  EXPECT_EQ(CountOps(g, "Mul"), 0);
  EXPECT_EQ(CountOps(g, "Add"), 0);
  EXPECT_EQ(CountOps(g, "Relu"), 0);
  EXPECT_EQ(CountOps(g, "BatchNormalization"), 4);
  int fused = 0;
  for (const Node& node : g.nodes) {
    if (node.dead || node.op_type != "BatchNormalization") continue;
    EXPECT_EQ(node.attrs.GetFloat("epsilon", 1e-5f).value(), 0.f);
    const Value& mean = g.values[node.inputs[3]];
    const Value& var = g.values[node.inputs[4]];
    ASSERT_TRUE(mean.constant && var.constant);
    const float* means = mean.constant->data<float>();
    const float* vars = var.constant->data<float>();
    EXPECT_EQ(std::vector<float>(means, means + 6), std::vector<float>(6, 0.f));
    EXPECT_EQ(std::vector<float>(vars, vars + 6), std::vector<float>(6, 1.f));
    fused += GetFusedActivation(node.attrs).kind == ActivationKind::kRelu;
  }
  EXPECT_EQ(fused, 1);
}

TEST(ChannelAffineTest, OtherMulAddPairsStay) {
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 4, 3, 5});
  // Parameters along the width, not the channels.
  const ValueId along_width = Affine(b, x, {5}, {5});
  // A scale that the input broadcasts to (it widens the output).
  const ValueId widening = Affine(b, x, {2, 4, 1, 1}, {4, 1, 1});
  // A run-time scale (a squeeze-and-excitation gate).
  const ValueId gate = b.Op("Sigmoid", {b.Op("GlobalAveragePool", {x})});
  const ValueId gated = b.Op("Add", {b.Op("Mul", {x, gate}), b.Constant("s", b.Random({4, 1, 1}))});
  // A Mul whose output something else reads too.
  const ValueId scaled = b.Op("Mul", {x, b.Constant("k", b.Random({4, 1, 1}))});
  const ValueId shifted = b.Op("Add", {scaled, b.Constant("t", b.Random({4, 1, 1}))});
  Graph g = b.Finish({along_width, widening, gated, scaled, shifted});
  EXPECT_EQ(RewriteChannelAffinesAsBatchNorms(g), 0);
  EXPECT_EQ(CountOps(g, "BatchNormalization"), 0);
}

TEST(ChannelAffineTest, ActivationsFuseIntoInferenceBatchNormsOnly) {
  GraphBuilder b(15);
  const ValueId x = b.Input("x", {1, 3, 4, 4});
  auto bn = [&](ValueId in, int64_t training) {
    const std::string id = std::to_string(b.graph().values.size());
    std::vector<ValueId> inputs = {in};
    for (const char* p : {"scale", "b", "mean"})
      inputs.push_back(b.Constant(p + id, b.Random({3})));
    inputs.push_back(b.Constant("var" + id, Tensor::FromFloat({0.5f, 1.f, 2.f}, {3})));
    AttributeMap attrs;
    attrs.Set("training_mode", training);
    return b.Op("BatchNormalization", inputs, attrs);
  };
  AttributeMap alpha;
  alpha.Set("alpha", 0.2f);
  const ValueId leaky = b.Op("LeakyRelu", {bn(x, 0)}, alpha);
  const ValueId training = b.Op("Relu", {bn(x, 1)});
  const ValueId shared = bn(x, 0);
  const ValueId read_twice = b.Op("Relu", {shared});
  Graph g = b.Finish({leaky, training, read_twice, shared});
  ExpectSameFunction(g, {b.Random({1, 3, 4, 4})},
                     [&] { EXPECT_EQ(FuseBatchNormActivations(g), 1); });
  EXPECT_EQ(CountOps(g, "LeakyRelu"), 0);
  EXPECT_EQ(CountOps(g, "Relu"), 2);
  const Node* fused = nullptr;
  for (const Node& node : g.nodes)
    if (!node.dead && GetFusedActivation(node.attrs).kind != ActivationKind::kNone) fused = &node;
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op_type, "BatchNormalization");
  EXPECT_EQ(GetFusedActivation(fused->attrs).alpha, 0.2f);
  // It may write over its X, not over a parameter; a training BN may not.
  EXPECT_TRUE(MayRunInPlace(g, *fused, 0, CpuKernelCaps()));
  EXPECT_FALSE(MayRunInPlace(g, *fused, 1, CpuKernelCaps()));
  for (const Node& node : g.nodes) {
    if (!node.dead && node.op_type == "BatchNormalization" &&
        node.attrs.GetInt("training_mode", 0).value() == 1) {
      EXPECT_FALSE(MayRunInPlace(g, node, 0, CpuKernelCaps()));
    }
  }
}

}  // namespace
}  // namespace ios
