// Float16 models computed in float32. Exporters write float16 models for GPU deployment
// (`model.half()`); ios's kernels compute in float32, so the graph's float16 values become
// float32 inside while its inputs and outputs keep float16: a Cast to float32 follows each
// float16 input and a Cast to float16 precedes each float16 output. Float16 constants are
// converted exactly, Cast nodes to float16 cast to float32 instead, and a ConstantOfShape's
// float16 value becomes float32, so nothing is rounded to float16 inside the graph (results are
// at least as close to exact as a float16 runtime's).
#pragma once

#include "ir/graph.h"
#include "util/status.h"

namespace ios {

// Returns the number of values widened (0 for a graph without float16 values). Runs before
// shape inference: it sets value dtypes, and inference fills in the rest.
StatusOr<int> WidenFloat16ToFloat32(Graph& graph);

}  // namespace ios
