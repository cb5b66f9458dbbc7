// A Reshape whose output is the 2-D [prod(dims[:k]), prod(dims[k:])] of its input is
// Flatten(axis k): the dynamo exporter writes torch.flatten(x, 1) as a Reshape to a constant
// shape, the TorchScript exporter as Flatten. Where several k fit (unit dims), k = 1 when it
// does, as torch.flatten(x, 1) exports, else the smallest. The shape must be constant.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of Reshape nodes replaced. Shapes must be inferred.
int ReshapeToFlatten(Graph& graph);

}  // namespace ios
