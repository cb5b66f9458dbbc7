// A loaded plan's command list checked against its memory plan before it runs: every two ops on
// different streams that touch the same bytes are ordered (runtime/race_checker.h), so that a
// plan whose schedule or memory plan was edited, or written by a faulty ios, is refused instead
// of racing. The sessions run it when they lower a plan (CpuSessionOptions and
// CudaSessionOptions::check_ordering).
#pragma once

#include "ir/graph.h"
#include "plan/memory_plan.h"
#include "runtime/command_list.h"
#include "util/status.h"

namespace ios {

Status CheckPlanOrdering(const Graph& graph, const CommandList& commands, const MemoryPlan& memory);

}  // namespace ios
