// Turns a plan back into the objects the runtime uses: the graph (node id = op index, value id =
// tensor index, constants from the weights), the schedule and the memory plan.
#pragma once

#include <string>

#include "iosplan.pb.h"
#include "ir/graph.h"
#include "plan/memory_plan.h"
#include "plan/plan_io.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

struct LoadedPlan {
  Graph graph;
  Schedule schedule;
  MemoryPlan memory;
  plan::Plan meta;  // the plan without weight bytes (Weight.data cleared, Weight.bytes kept)
};

// Validates the plan (ValidatePlan), converts it, then checks the schedule's order
// (ValidateSchedule) and the memory plan (CheckMemoryPlan, its in-place outputs against
// `kernels`, the table of the backend that will run it) against the graph. Every error is
// InvalidInput prefixed by `source`. Weight tensors that only node attributes reference (they
// follow the graph's values in the plan) do not become values of the graph.
StatusOr<LoadedPlan> LoadPlan(plan::Plan plan, const std::string& source,
                              const KernelCapsTable& kernels);
// The same from an opened plan file, whose weights' bytes go from the file straight into the
// graph's tensors: a plan is held once, however large.
StatusOr<LoadedPlan> LoadPlanFile(PlanFile file, const KernelCapsTable& kernels);

}  // namespace ios
