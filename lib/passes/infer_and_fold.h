// Shape inference with constant folding, in one walk in topological order: a node whose inputs
// are all constant is evaluated with its reference kernel and disappears (this folds the
// Shape/Gather/Concat/Reshape chains that exporters emit once the input shapes are static);
// any other node gets its output types inferred.
#pragma once

#include "ir/graph.h"
#include "util/status.h"

namespace ios {

struct FoldStats {
  int nodes_folded = 0;
};

Status InferShapesAndFoldConstants(Graph& graph, FoldStats* stats);

}  // namespace ios
