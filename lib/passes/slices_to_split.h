// Slices of one value that tile one of its axes (each a constant [start, start + n) with step 1
// on that axis, every other axis whole; together every element once) are a Split: the
// TorchScript exporter writes ShuffleNetV2's x.chunk(2, dim=1) as two Slices, the dynamo
// exporter as one Split. The Slices' outputs (and names) become the Split's, in the axis' order.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of Split nodes made. Shapes must be inferred.
int SlicesToSplit(Graph& graph);

}  // namespace ios
