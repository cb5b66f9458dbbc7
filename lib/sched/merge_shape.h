// The shape of the conv that operator merge (the paper's second strategy) makes of a stage.
//
// The merged conv stacks the convs' kernels along the output channels. Its kernel is the largest
// kernel in each spatial dimension; a smaller kernel is zero-padded and centred in it, which
// needs (kmax - k) even per dimension. Every conv must keep its output exactly: output position o
// of conv i reads input rows o*stride - pad_i + dilation*[0, k_i); centred in the merged kernel,
// the same taps sit at o*stride - pad_merged + dilation*((kmax - k_i)/2 + [0, k_i)), so
//     pad_merged_begin = pad_i_begin + dilation * (kmax - k_i) / 2    must agree for every conv.
// The merged end padding is the largest pad_i_end + dilation * (kmax - k_i) / 2 (extra zeros past
// the input are only read by zero taps), and the merged conv's output size must equal every
// conv's. Convs with auto_pad are compared through their resolved pads. The weights (and biases)
// must be constant, since the merged weights are built when the plan is compiled; only 2-D convs
// are merged.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "sched/stage_candidate.h"
#include "sched/units.h"
#include "util/status.h"

namespace ios {

struct MergedConvShape {
  int64_t kh = 0;
  int64_t kw = 0;
  std::vector<int64_t> pads;  // ONNX pads of the merged conv: {top, left, bottom, right}
  int64_t out_channels = 0;   // the sum of the convs' output channels, in group order
};

// The merged conv of a stage that CanMergeStage accepts; Unsupported with the reason otherwise
// (CanMergeStage is `MergedConvShapeOf(...).ok()`). The stage's strategy is not looked at.
StatusOr<MergedConvShape> MergedConvShapeOf(const Graph& graph, const UnitGraph& units,
                                            const StageCandidate& stage);

// True when the stage can run as one merged conv (operator merge, the paper's second strategy):
// at least two groups, every group a single Conv unit without a folded input, all reading the
// same tensor with the same strides, dilations and fused activation, group = 1, and kernels whose
// zero-padded, centred union keeps every output's size.
bool CanMergeStage(const Graph& graph, const UnitGraph& units, const StageCandidate& stage);

}  // namespace ios
