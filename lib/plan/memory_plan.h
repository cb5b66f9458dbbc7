// Static memory planning: every non-constant tensor (graph inputs and outputs included) gets an
// offset in one arena; zero-copy slices (plan/tensor_views.h) are placed inside their base. Two
// tensors share bytes only when the schedule can never have both live at once. A tensor is live
// from the stage of its producer (stage 0 for graph inputs) through the stage of its last reader
// (the last stage for graph outputs), with stages counted across blocks in order. Concurrent groups
// of one stage are live together; across stages, the schedule's events order them.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

struct TensorPlacement {
  ValueId value = kNoValue;
  int64_t offset = 0;
  int64_t bytes = 0;
  // A slice that lives inside another value's bytes (plan/tensor_views.h), or kNoValue. A view's
  // offset lies inside its base's range; the base is live whenever the view is.
  ValueId view_of = kNoValue;
};

struct MemoryPlan {
  int64_t arena_bytes = 0;
  int64_t alignment = 256;
  int64_t total_tensor_bytes = 0;  // sum of the placed tensors' sizes (no reuse)
  std::vector<TensorPlacement> placements;
};

// Live interval of a value in global stage indices, inclusive.
struct LiveInterval {
  int first = 0;
  int last = 0;
};

// Per value: its live interval, or nullopt-like {-1,-1} for constants and dead values.
std::vector<LiveInterval> ComputeLiveIntervals(const Graph& graph, const Schedule& schedule);

StatusOr<MemoryPlan> PlanMemory(const Graph& graph, const Schedule& schedule,
                                int64_t alignment = 256);

// The checker the tests run: every non-constant value is placed inside the arena, aligned, and
// no two values whose live intervals overlap share a byte, except a view and its base, which
// must hold the view's bytes while the view is live.
Status CheckMemoryPlan(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan);

}  // namespace ios
