#include <gtest/gtest.h>

#include "passes/canonicalize.h"
#include "sched/blocks.h"
#include "sched/dag_width.h"
#include "sched/units.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::GraphBuilder;

std::vector<std::string> Kinds(const UnitGraph& units) {
  std::vector<std::string> kinds;
  for (const Unit& u : units.units) kinds.push_back(UnitKindName(u.kind));
  return kinds;
}

UnitGraph Units(Graph& g, CanonicalizeOptions options = {}) {
  EXPECT_TRUE(Canonicalize(g, options, nullptr).ok());
  auto units = FormUnits(g, UnitOptions{});
  EXPECT_TRUE(units.ok()) << units.status().message();
  return units.value();
}

TEST(DagWidthTest, KnownShapes) {
  EXPECT_EQ(DagWidth({{1}, {2}, {}}), 1);                  // chain
  EXPECT_EQ(DagWidth({{1, 2}, {3}, {3}, {}}), 2);          // diamond
  EXPECT_EQ(DagWidth({{}, {}, {}}), 3);                    // three isolated nodes
  EXPECT_EQ(DagWidth({{2}, {2, 3}, {}, {}}), 2);           // N shape
  EXPECT_EQ(DagWidth({{1, 2, 3}, {4}, {4}, {4}, {}}), 3);  // fan-out, fan-in
}

// Two branches that each apply their own ReLU to x, as the reference's NASNet cells do.
Graph TwoReluBranches() {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 8, 8});
  ValueId a = b.Op("Relu", {x});
  ValueId dw = b.Conv(a, 8, 3, 1, /*group=*/8);
  ValueId pw = b.Conv(dw, 16, 1);
  ValueId c = b.Conv(b.Op("Relu", {x}), 16, 1);  // ReluConv on a branch point
  ValueId out = b.Op("Concat", {pw, c}, [] { AttributeMap m; m.Set("axis", int64_t{1}); return m; }());
  return b.Finish({out});
}

TEST(UnitsTest, ReluSepConvAndReluConvCompounds) {
  Graph g = TwoReluBranches();
  CanonicalizeOptions keep_repeats;
  keep_repeats.eliminate_common_subexpressions = false;
  UnitGraph units = Units(g, keep_repeats);
  EXPECT_EQ(Kinds(units), (std::vector<std::string>{"ReluSepConv", "ReluConv", "Aggregation"}));
  EXPECT_EQ(units.units[0].nodes.size(), 3u);
  EXPECT_EQ(units.units[2].predecessors, (std::vector<UnitId>{0, 1}));
}

TEST(UnitsTest, AMergedReluThatBranchesIsAUnitBeforeTheBranches) {
  // The default canonicalisation merges the two ReLUs: the one left feeds both branches.
  Graph g = TwoReluBranches();
  UnitGraph units = Units(g);
  EXPECT_EQ(Kinds(units), (std::vector<std::string>{"Op", "SepConv", "Conv", "Aggregation"}));
  EXPECT_EQ(units.units[1].predecessors, (std::vector<UnitId>{0}));
  EXPECT_EQ(units.units[2].predecessors, (std::vector<UnitId>{0}));
  EXPECT_EQ(units.units[3].predecessors, (std::vector<UnitId>{1, 2}));
}

TEST(UnitsTest, SumFoldsIntoItsReaderButConcatDoesNotFoldIntoASum) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 6, 6});
  ValueId p = b.Conv(x, 4, 1);
  ValueId q = b.Conv(x, 4, 3, 1);
  ValueId sum = b.Op("Sum", {p, q});
  ValueId r = b.Conv(sum, 4, 1);  // Sum folds into this conv's unit
  AttributeMap axis;
  axis.Set("axis", int64_t{1});
  ValueId cat = b.Op("Concat", {r, p}, axis);
  ValueId add = b.Op("Add", {cat, b.Conv(x, 8, 1)});  // a sum of a concat stays two units
  Graph g = b.Finish({add});
  UnitGraph units = Units(g);
  EXPECT_EQ(Kinds(units), (std::vector<std::string>{"Conv", "Conv", "Conv", "Aggregation", "Conv",
                                                    "Aggregation"}));
  EXPECT_EQ(units.units[2].nodes.size(), 2u);  // Sum + Conv
}

TEST(BlocksTest, ChainsBranchesAndExits) {
  // conv0 -> {conv1 | conv2 -> conv3} -> Concat -> GlobalAveragePool
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 3, 8, 8});
  ValueId c0 = b.Conv(x, 4, 3, 1);
  ValueId c1 = b.Conv(c0, 4, 1);
  ValueId c3 = b.Conv(b.Conv(c0, 4, 1), 4, 3, 1);
  AttributeMap axis;
  axis.Set("axis", int64_t{1});
  ValueId cat = b.Op("Concat", {c1, c3}, axis);
  ValueId pool = b.Op("GlobalAveragePool", {cat});
  Graph g = b.Finish({pool});
  ASSERT_TRUE(Canonicalize(g, CanonicalizeOptions{}, nullptr).ok());
  auto blocks = PartitionIntoBlocks(g, BlockOptions{});
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  ASSERT_EQ(blocks->blocks.size(), 3u);
  EXPECT_EQ(blocks->blocks[0].units.size(), 1u);  // conv0
  EXPECT_EQ(blocks->blocks[1].units.size(), 4u);  // conv1, conv2, conv3, concat (the exit)
  EXPECT_EQ(blocks->blocks[1].width, 2);
  EXPECT_EQ(blocks->blocks[2].units.size(), 1u);  // the pool: the concat did not fold into it
  EXPECT_TRUE(blocks->blocks[2].chain);
}

TEST(BlocksTest, ChainBlocksKeepEveryOpAsAUnit) {
  // A join, then Relu -> Conv -> pool: the Relu and Conv stay separate units after the exit.
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 6, 6});
  ValueId sum = b.Op("Sum", {b.Conv(x, 4, 1), b.Conv(x, 4, 3, 1)});
  ValueId tail = b.Op("GlobalAveragePool", {b.Conv(b.Op("Relu", {sum}), 8, 1)});
  Graph g = b.Finish({tail});
  ASSERT_TRUE(Canonicalize(g, CanonicalizeOptions{}, nullptr).ok());
  auto blocks = PartitionIntoBlocks(g, BlockOptions{});
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  ASSERT_EQ(blocks->blocks.size(), 2u);
  EXPECT_EQ(blocks->blocks[0].units.size(), 3u);  // two convs and the Sum exit
  EXPECT_EQ(blocks->blocks[1].units.size(), 3u);  // Relu, Conv, pool
}

TEST(BlocksTest, LargeBlocksAreCutIntoPartsAtNarrowCuts) {
  // Ten stages, each two parallel convs joined by a Sum that both convs of the next stage read.
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 2, 4, 4});
  ValueId skip = b.Conv(x, 2, 1);
  ValueId cur = x;
  for (int stage = 0; stage < 10; ++stage) {
    ValueId s = b.Op("Sum", {b.Conv(cur, 2, 1), b.Conv(cur, 2, 3, 1), skip});
    cur = s;
  }
  Graph g = b.Finish({cur});
  ASSERT_TRUE(Canonicalize(g, CanonicalizeOptions{}, nullptr).ok());
  BlockOptions options;
  options.part_limit = 8;
  auto blocks = PartitionIntoBlocks(g, options);
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  ASSERT_EQ(blocks->blocks.size(), 1u);  // `skip` crosses every stage: no cut inside
  const Block& block = blocks->blocks[0];
  EXPECT_EQ(block.units.size(), 31u);
  size_t covered = 0;
  UnitId next = block.units.front();
  for (const BlockPart& part : block.parts) {
    EXPECT_LE(part.units.size(), 8u);
    EXPECT_EQ(part.units.front(), next);  // consecutive, no gaps
    next = part.units.back() + 1;
    covered += part.units.size();
  }
  EXPECT_EQ(covered, block.units.size());
  EXPECT_GE(block.parts.size(), 4u);  // at least ceil(31 / 8)
}

}  // namespace
}  // namespace ios
