// The key of a block part up to renaming: two parts with equal keys are the same DAG of the same
// units (by StageKeyer unit key, stage_signature.h) with the same pattern of tensor sharing, unit
// by unit in the same local order. Every stage of one then has the same groups, the same stage
// keys and the same merge eligibility (CanMergeStage asks for one shared input, which the
// sharing pattern fixes) as the corresponding stage of the other, so the IOS dynamic program
// gives both the same stages. NasNet's repeated cells are such parts: the search runs once per
// distinct cell.
#pragma once

#include <cstdint>
#include <vector>

#include "sched/stage_signature.h"
#include "ir/graph.h"
#include "sched/ios_endings.h"
#include "sched/units.h"

namespace ios {

// Per local unit, in bit order: its unit key, its direct successors in the part, and for each of
// its ops every input and output as a canonical tensor number (numbered by first appearance
// across the part; -1 for an omitted input).
std::vector<int64_t> PartKey(const Graph& graph, const UnitGraph& units, const PartDag& dag,
                             const StageKeyer& keyer);

}  // namespace ios
