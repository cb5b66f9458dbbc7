// Blocks and parts: the pieces the IOS dynamic program runs on.
//
// A cut unit is one that every path from the graph's inputs to its outputs passes through. The
// units between two consecutive cut units, the latter included, form a segment. Then:
//   - a segment of one aggregation unit is the exit of the block before it and joins it (the
//     reference ends a block with an explicit aggregation, as in RandWire's stages);
//   - consecutive other one-unit segments form one chain block, whose ops all become units of
//     their own (a chain has no concurrency, so compounds buy nothing there);
//   - every other segment is a block.
// A block with more units than the part limit is cut into consecutive parts at every position of
// smallest width (tensors live across), recursively until every part fits the limit.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "sched/units.h"
#include "util/status.h"

namespace ios {

struct BlockOptions {
  int part_limit = 50;  // the reference implementation's value; 0 means no limit
};

struct BlockPart {
  std::vector<UnitId> units;  // consecutive, in topological order
  int width = 0;
};

struct Block {
  std::vector<UnitId> units;  // consecutive, in topological order
  int width = 0;
  bool chain = false;
  std::vector<BlockPart> parts;
};

struct BlockStructure {
  UnitGraph unit_graph;
  std::vector<Block> blocks;
};

StatusOr<BlockStructure> PartitionIntoBlocks(const Graph& graph, const BlockOptions& options);

// Exposed for tests: the cut units of a unit graph, in order.
std::vector<UnitId> FindCutUnits(const Graph& graph, const UnitGraph& unit_graph);

}  // namespace ios
