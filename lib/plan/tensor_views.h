// Zero-copy slices: a Concat whose inputs are written straight into their slices of its output,
// and a Split whose outputs are read straight from their slices of its input. The memory planner
// places each slice inside the whole tensor (a view), and the Concat or Split then has nothing
// left to do: the runtime skips it. Its node stays in the schedule, so the order it imposes
// (producers before readers of the whole) still holds.
//
// Two kinds of view:
// - contiguous: a slice along an axis is one byte range when every dimension before the axis is
//   1 (channel slices of an NCHW tensor at batch 1). Any kernel can read or write it.
// - strided: a channel slice (axis 1) at batch N > 1 is N ranges, one per batch item, `pitch`
//   bytes apart (the whole tensor's bytes per item). Only kernels that take a batch stride can
//   use it, so a slice becomes a strided view only when every kernel that touches it does:
//   TakesStridedBatchSlice is that contract, asked of the kernel table of the backend that runs
//   the plan (KernelCaps::strided, ops/kernel_caps.h), which refuses a strided tensor anywhere
//   else.
// Slices and whole are row-major, or all channels-blocked-8 (CPU plans, ir/layout.h) and
// contiguous: such a slice's channels are a multiple of 8, so it holds the row-major slice's
// bytes. Channels-last slices are neither kind.
//
// A value becomes a view only when that is safe whatever the schedule: it is not a graph input,
// graph output or constant; a Concat input has the Concat as its only consumer and appears in it
// once; a value is the base of at most one op's views and is never both a view and a base; the
// slice starts at a multiple of kViewAlignment bytes (vectorised CPU and GPU kernels load it),
// and so does a strided view's pitch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/kernel_caps.h"
#include "plan/memory_plan.h"

namespace ios {

inline constexpr int64_t kViewAlignment = 16;

struct TensorView {
  ValueId value = kNoValue;  // the slice
  ValueId base = kNoValue;   // the whole tensor whose bytes it shares
  int64_t byte_offset = 0;   // where the slice starts inside the base
  int64_t pitch = 0;         // strided: bytes between consecutive batch items; 0: contiguous
};

// True when `node`'s kernel in `kernels` reads (input) or writes (output) `value` as a strided
// channel slice: for a StridedSlices::kWindow kernel (Conv, MaxPool, AveragePool), the data
// input X or the output Y of a float32 1-D or 2-D window (a Conv with its weights, a MaxPool
// without Indices); for a kElementwise one (Add, Sub, Mul, Div, Max, Min, Sum), any input or the
// output of a float32 node of two or more inputs of the output's shape (rank 3 or 4).
bool TakesStridedBatchSlice(const Graph& graph, const Node& node, ValueId value,
                            const KernelCapsTable& kernels);

// The views of every Concat's and Split's slices that qualify. A slice that does not (another
// op's view already, or touched by a kernel that cannot take a strided view) is still copied by
// the op, which then copies only such slices.
std::vector<TensorView> FindSliceViews(const Graph& graph, const KernelCapsTable& kernels);

// Per NodeId: for a Concat or Split, per slice (its inputs, or its outputs), whether `memory`
// places the slice in its whole exactly where the op would copy it: a view at the slice's own
// offset and pitch. The op's kernels skip such slices (their source and destination are the
// same bytes). Empty for other ops.
std::vector<std::vector<bool>> SlicesInPlace(const Graph& graph, const MemoryPlan& memory);

// Whether operand `index` of `node` (an output when `is_output`, else an input) is a slice that
// `slices_in_place` (the node's entry of SlicesInPlace) marks: a Concat's slices are its
// inputs, a Split's its outputs. The op neither reads nor writes such a slice.
bool IsSliceInPlace(const Node& node, const std::vector<bool>& slices_in_place, bool is_output,
                    size_t index);

// Per NodeId: true for a Concat or Split whose slices are all in place (`slices_in_place` is
// SlicesInPlace's answer). Such an op copies nothing and the runtime skips it.
std::vector<bool> OpsMadeRedundantByViews(const std::vector<std::vector<bool>>& slices_in_place);

}  // namespace ios
