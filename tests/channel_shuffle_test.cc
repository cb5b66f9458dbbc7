// The channel-shuffle rewrite of CPU plans (passes/channel_shuffle.h): which Reshape, Transpose,
// Reshape chains become a Gather of channels, the indices it writes, and that the rewritten graph
// computes what the original did (reference kernels).
#include "passes/channel_shuffle.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/reference/reference_graph.h"
#include "tensor_compare.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::CountOps;
using testing::GraphBuilder;
using testing::MaxAbsDiff;

AttributeMap Perm(std::vector<int64_t> perm) {
  AttributeMap attrs;
  attrs.Set("perm", std::move(perm));
  return attrs;
}

// Reshape `x` ([N, C, H, W]) to `middle`, transpose it by `perm`, reshape it back.
ValueId Shuffle(GraphBuilder& b, ValueId x, const std::vector<int64_t>& middle,
                const std::vector<int64_t>& perm, ValueId* transposed = nullptr) {
  const Dims d = b.graph().values[x].dims;  // a copy: adding values moves them
  const ValueId split = b.Op(
      "Reshape", {x, b.Constant("split_shape" + std::to_string(b.graph().values.size()),
                                Tensor::FromInt64(middle, {static_cast<int64_t>(middle.size())}))});
  const ValueId t = b.Op("Transpose", {split}, Perm(perm));
  if (transposed) *transposed = t;
  return b.Op("Reshape", {t, b.Constant("merge_shape" + std::to_string(b.graph().values.size()),
                                        Tensor::FromInt64(d, {4}))});
}

// The Gather nodes' index tables, in node order.
std::vector<std::vector<int64_t>> GatherIndices(const Graph& g) {
  std::vector<std::vector<int64_t>> tables;
  for (const Node& node : g.nodes) {
    if (node.dead || node.op_type != "Gather") continue;
    EXPECT_EQ(node.attrs.GetInt("axis", 0).value(), 1) << node.name;
    const Value& indices = g.values[node.inputs[1]];
    EXPECT_TRUE(indices.constant.has_value()) << node.name;
    if (indices.constant) tables.push_back(indices.constant->ToInt64Vector());
  }
  return tables;
}

TEST(ChannelShuffleTest, ShufflesBecomeGathersOfChannels) {
  GraphBuilder b;
  const ValueId x = b.Input("x", {2, 12, 3, 5});
  // ShuffleNetV2's: 2 groups, a dynamic batch written as -1; then 3 groups of 4.
  ValueId y = Shuffle(b, b.Op("Relu", {x}), {-1, 2, 6, 3, 5}, {0, 2, 1, 3, 4});
  y = Shuffle(b, y, {2, 3, 4, 3, 5}, {0, 2, 1, 3, 4});
  Graph g = b.Finish({b.Op("Relu", {y})});
  const Tensor input = b.Random({2, 12, 3, 5});
  auto before = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(before.ok()) << before.status().message();

  EXPECT_EQ(RewriteChannelShufflesAsGathers(g), 2);
  EXPECT_EQ(CountOps(g, "Reshape"), 0);
  EXPECT_EQ(CountOps(g, "Transpose"), 0);
  const std::vector<std::vector<int64_t>> tables = GatherIndices(g);
  ASSERT_EQ(tables.size(), 2u);
  // Output channel j * g + i is input channel i * C/g + j.
  EXPECT_EQ(tables[0], (std::vector<int64_t>{0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11}));
  EXPECT_EQ(tables[1], (std::vector<int64_t>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  auto after = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(MaxAbsDiff((*before)[0], (*after)[0]), 0.f);
}

TEST(ChannelShuffleTest, OtherChainsStay) {
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 8, 4, 4});
  // Another transpose of the five dims: not a permutation of the channels alone.
  const ValueId other = Shuffle(b, x, {1, 2, 4, 4, 4}, {0, 1, 2, 4, 3});
  // A shuffle whose transposed middle is also a graph output.
  ValueId middle = kNoValue;
  const ValueId read_twice = Shuffle(b, x, {1, 2, 4, 4, 4}, {0, 2, 1, 3, 4}, &middle);
  // The channels split across the spatial dims: [1, 2, 4, 4, 4] from [1, 8, 4, 4] is the only
  // split of channels; [1, 8, 2, 2, 4] splits the height.
  const ValueId spatial = Shuffle(b, x, {1, 8, 2, 2, 4}, {0, 2, 1, 3, 4});
  Graph g = b.Finish({other, read_twice, middle, spatial});
  EXPECT_EQ(RewriteChannelShufflesAsGathers(g), 0);
  EXPECT_EQ(CountOps(g, "Gather"), 0);
  EXPECT_EQ(CountOps(g, "Transpose"), 3);
}

}  // namespace
}  // namespace ios
