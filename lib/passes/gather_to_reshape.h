// A Gather whose constant indices are 0, 1, ..., n-1 (in their stored order, any shape) over an
// axis of n elements reads each element once, in order: it is a Reshape to its output's dims.
// The dynamo exporter writes torch's as_strided so (ConvNeXt's classifier: the pooled features
// flattened to [C], then gathered back to [1, C, 1, 1]). When the Gather's data is the output of
// a Reshape that nothing else reads, the new Reshape reads that Reshape's input instead (two
// Reshapes are one), so that where the result has its input's dims, eliminate-identity (the next
// pass) removes it as a copy. The Gather's output, and its name, become the Reshape's.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of Gather nodes replaced. Shapes must be inferred.
int GatherToReshape(Graph& graph);

}  // namespace ios
