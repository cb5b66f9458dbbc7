// ReduceMean and ReduceMax over every spatial axis (2 .. rank-1) of a float32 N x C x spatial
// tensor are GlobalAveragePool and GlobalMaxPool: the dynamo exporter writes adaptive pooling to
// 1x1 and squeeze-excite pooling as ReduceMean over H and W, the TorchScript exporter as
// GlobalAveragePool. With keepdims=1 the node becomes the pool; with keepdims=0 the pool then a
// Flatten (axis 1) that writes the reduction's output, whose name is kept either way. The axes
// must be constant; a reduction over other axes, or over none, is left alone.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of reductions replaced. Shapes must be inferred.
int ReduceToGlobalPool(Graph& graph);

}  // namespace ios
