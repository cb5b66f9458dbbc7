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
#include "ops/kernel_caps.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

struct TensorPlacement {
  ValueId value = kNoValue;
  int64_t offset = 0;
  int64_t bytes = 0;
  // A slice that lives inside another value's bytes (plan/tensor_views.h), or kNoValue. A view's
  // bytes lie inside its base's range; the base is live whenever the view is.
  ValueId view_of = kNoValue;
  // A strided view: its batch items' slices start `pitch` bytes apart (each holding bytes / N),
  // from `offset` on. 0: the view is contiguous (as is every tensor that is not a view).
  int64_t pitch = 0;
};

// The byte ranges [begin, end) that a placement occupies: one, or one per batch item of a
// strided view.
struct ByteRange {
  int64_t begin = 0;
  int64_t end = 0;
};
std::vector<ByteRange> PlacedRanges(const TensorPlacement& placement, const Value& value);

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

// Per value: its live interval, or nullopt-like {-1,-1} for constants and dead values. Graph
// inputs and outputs live to the last stage.
std::vector<LiveInterval> ComputeLiveIntervals(const Graph& graph, const Schedule& schedule);

// `slice_views`: place zero-copy slices (plan/tensor_views.h); off, every tensor owns its bytes
// and every Concat and Split copies (for comparison). `in_place`: an elementwise op whose input
// dies with it writes its output over that input (plan/in_place.h), which the input's last
// reader in an earlier stage has finished with.
// `kernels`: the kernel table of the backend that runs the plan, which says which kernels take
// strided views and which may run in place (ops/kernel_caps.h).
StatusOr<MemoryPlan> PlanMemory(const Graph& graph, const Schedule& schedule,
                                const KernelCapsTable& kernels, int64_t alignment = 256,
                                bool slice_views = true, bool in_place = false);

// The checker the tests run: every non-constant value is placed inside the arena, aligned, and
// no two values whose live intervals overlap share a byte, except a view and its base, which
// must hold the view's bytes while the view is live, and an in-place output and its input, which
// may hold the same bytes in the stage of the node that writes one over the other; a strided
// view's pitch is the base's bytes per batch item, and its slices of the items lie inside the
// base. An in-place pair must be one that `kernels` allows (the backend that runs the plan).
Status CheckMemoryPlan(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                       const KernelCapsTable& kernels);

}  // namespace ios
