// Operator merge (the paper's second parallelisation strategy), applied at compile time.
//
// For every stage whose strategy is kMerge, each group a single Conv, all reading the same input
// with group = 1 and the same strides, dilations and fused activation (CanMergeStage in
// cost/stage_cost.h), ApplyMergeStages builds one merged Conv:
//   - weights concatenated along the output channels, in group order; a kernel smaller than the
//     merged one is zero-padded into it at the offset that keeps its taps aligned with its own
//     pads, which is the centre for "same"-padded convs (1x3 with 3x1, 1x1 with 3x3);
//   - biases concatenated (zeros for a conv without one, when another has one);
//   - the merged conv's kernel shape and pads as MergedConvShapeOf (sched/merge_shape.h) says;
//   - the shared fused activation;
// followed by a Split along the channels (axis 1), split sizes = each conv's output channels,
// in the form the graph's opset uses (the `split` attribute below opset 13, a constant second
// input from 13). The Split's outputs are the original convs' output values, so every consumer
// is untouched. The original convs die and the graph is compacted; the stage becomes one group
// [merged conv, split], still marked kMerge, and the schedule's node ids are renumbered.
//
// The Split copies each slice out of the merged output today. Reading the slices in place (at
// batch 1 in NCHW each conv's channel range of the merged output is contiguous; at batch > 1 it
// is a strided view) is a later memory-plan feature, as is writing Concat inputs in place.
#pragma once

#include "ir/graph.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

// The graph must be canonicalised (shapes inferred). Stages that are not kMerge are left alone;
// a kMerge stage that cannot be merged is an error naming its convs.
Status ApplyMergeStages(Graph& graph, Schedule& schedule);

}  // namespace ios
