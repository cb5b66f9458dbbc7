// A canonical key for a stage: two stages with the same signature run the same kernels on the
// same shapes in the same arrangement, so they have the same latency, wherever they sit in the
// graph. CachedStageCost measures each signature once; the timing cache stores them.
//
// The signature lists, per group, its ops in execution order, each with
//   - the unit it belongs to (unit kind; a new unit starts a new bracket),
//   - op type and opset,
//   - every input: dtype and dims, and where it comes from: `@k.o` = output o of the group's
//     k-th op, or `x`/`c` (a runtime value / a constant) read n times by the whole stage (`x2`:
//     two reads, e.g. two groups sharing their input); `-` for an omitted optional input,
//   - every output's dtype and dims,
//   - every attribute (sorted by name, the fused activation's `ios.*` attributes included),
//     floats written exactly (hexadecimal), tensors by dtype, dims and SHA-256 of their bytes.
// Node, value and unit names and ids never appear. The groups are sorted (a stage is a multiset
// of groups: which stream runs which group does not matter), and the strategy comes first.
//
// Unchanged by: moving the stage elsewhere in the graph, renaming, reordering the groups.
// Changed by: any shape, dtype, attribute, activation, opset, op order, intra-group data flow,
// sharing of inputs, unit structure, or the strategy.
#pragma once

#include <string>

#include "cost/stage_cost.h"
#include "ir/graph.h"
#include "sched/units.h"

namespace ios {

std::string StageSignature(const Graph& graph, const UnitGraph& units, const StageCandidate& stage);

}  // namespace ios
