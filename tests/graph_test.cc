#include "ir/graph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace ios {
namespace {

// a -> [n0] -> b -> [n1] -> c, plus a -> [n2] -> d; n1 and n2 consume, n0 produces.
Graph MakeDiamondGraph() {
  Graph g;
  ValueId a = g.AddValue(Value{"a"});
  ValueId b = g.AddValue(Value{"b"});
  ValueId c = g.AddValue(Value{"c"});
  ValueId d = g.AddValue(Value{"d"});
  g.inputs = {a};
  g.outputs = {c, d};
  Node n1{"n1", "Relu", 13, {b}, {c}};
  Node n0{"n0", "Relu", 13, {a}, {b}};
  Node n2{"n2", "Relu", 13, {a}, {d}};
  g.AddNode(n1);  // deliberately out of order
  g.AddNode(n0);
  g.AddNode(n2);
  g.RebuildUses();
  return g;
}

TEST(GraphTest, TopologicalOrderPutsProducersFirst) {
  Graph g = MakeDiamondGraph();
  auto order = g.TopologicalOrder();
  ASSERT_TRUE(order.ok()) << order.status().message();
  ASSERT_EQ(order->size(), 3u);
  EXPECT_EQ(g.nodes[(*order)[0]].name, "n0");
  EXPECT_EQ(g.nodes[(*order)[1]].name, "n1");
  EXPECT_EQ(g.nodes[(*order)[2]].name, "n2");
}

TEST(GraphTest, CycleIsReportedWithANodeName) {
  Graph g;
  ValueId x = g.AddValue(Value{"x"});
  ValueId y = g.AddValue(Value{"y"});
  g.AddNode(Node{"p", "Relu", 13, {x}, {y}});
  g.AddNode(Node{"q", "Relu", 13, {y}, {x}});
  auto order = g.TopologicalOrder();
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.status().message().find("cycle"), std::string::npos);
  EXPECT_NE(order.status().message().find("Relu"), std::string::npos);
}

TEST(GraphTest, CompactDropsDeadNodesAndUnusedValues) {
  Graph g = MakeDiamondGraph();
  g.nodes[2].dead = true;  // n2
  g.outputs = {g.FindValue("c")};
  g.Compact();
  EXPECT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.FindValue("d"), kNoValue);
  ValueId b = g.FindValue("b");
  ASSERT_NE(b, kNoValue);
  EXPECT_EQ(g.nodes[g.values[b].producer].name, "n0");
  ASSERT_EQ(g.values[b].consumers.size(), 1u);
  EXPECT_EQ(g.nodes[g.values[b].consumers[0]].name, "n1");
}

TEST(GraphTest, ReplaceAllUsesRewritesInputsAndOutputs) {
  Graph g = MakeDiamondGraph();
  ValueId a = g.FindValue("a"), c = g.FindValue("c"), b = g.FindValue("b");
  g.ReplaceAllUses(c, b);
  EXPECT_EQ(g.outputs[0], b);
  g.ReplaceAllUses(a, b);
  EXPECT_EQ(g.nodes[2].inputs[0], b);
}

// Float tensors read as integers (shape inputs, axes) convert as Cast does: toward zero, and
// INT64_MIN for NaN and out-of-range values instead of undefined behaviour (a fuzzer finding).
TEST(TensorTest, IntAtOfFloatsIsDefinedForEveryValue) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor f = Tensor::FromFloat({2.9f, -2.9f, std::nanf(""), inf, -inf, 1e30f}, {6});
  EXPECT_EQ(f.IntAt(0), 2);
  EXPECT_EQ(f.IntAt(1), -2);
  for (int64_t i = 2; i < 6; ++i) EXPECT_EQ(f.IntAt(i), INT64_MIN) << "element " << i;
}

}  // namespace
}  // namespace ios
