// Schedule units: what the IOS scheduler places on streams, one or more ops that always run
// together in order. The rules (docs/architecture.md, "Schedule units"):
//   Conv         a conv with its fused activation;
//   ReluConv     a Relu whose only reader is a conv (the conv may not be depthwise+pointwise);
//   SepConv      a depthwise conv whose only reader is a pointwise (1x1, group 1) conv;
//   ReluSepConv  the same with a leading Relu whose only reader is the depthwise conv;
//   Pool         a MaxPool/AveragePool/GlobalAveragePool/GlobalMaxPool;
//   Aggregation  an Add/Sum/Concat. A Sum/Add folds into the unit that is its only reader, which
//                adds its inputs as it reads them (into a Concat unit, it sums into that slice).
//                A Concat never folds: it is a layout, which the memory plan realises by having
//                its producers write slices of one buffer, so it stays a unit of its own;
//   Op           any other op, alone.
// Block formation (blocks.h) restricts these rules through UnitOptions: nodes in
// `single_op_nodes` form units of their own and absorb nothing (chain blocks), and no unit spans
// two regions of `node_region` (a block's exit aggregation stays in its block).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "util/status.h"

namespace ios {

enum class UnitKind { kConv, kReluConv, kSepConv, kReluSepConv, kPool, kAggregation, kOp };

std::string UnitKindName(UnitKind kind);

using UnitId = int32_t;

struct Unit {
  UnitId id = 0;
  UnitKind kind = UnitKind::kOp;
  std::vector<NodeId> nodes;        // execution order: folded aggregations first, then the body
  std::vector<UnitId> predecessors;  // units whose outputs this unit reads (sorted, unique)
  std::vector<UnitId> successors;    // units that read this unit's outputs (sorted, unique)
  std::vector<ValueId> outputs;      // values read outside the unit or graph outputs
  double flops = 0;
  double bytes = 0;
};

// Units in a topological order (unit ids are positions in `units`).
struct UnitGraph {
  std::vector<Unit> units;
  std::vector<UnitId> unit_of_node;  // indexed by NodeId; -1 for dead nodes
};

struct UnitOptions {
  bool fold_aggregations = true;
  std::set<NodeId> single_op_nodes;
  std::vector<int> node_region;  // indexed by NodeId; empty means one region
};

// The graph must be canonicalised (shapes inferred, activations fused).
StatusOr<UnitGraph> FormUnits(const Graph& graph, const UnitOptions& options);

}  // namespace ios
