// Removes the nodes that copy their input: Identity, inference-time Dropout (whose mask output
// nobody reads), a Concat of one input, and a Slice, Reshape, Flatten, Squeeze or Unsqueeze whose
// output has its input's dims (a Slice only with constant positive steps). Exporters differ in
// which of these they leave: the TorchScript exporter keeps GhostNet's x[:, :c] of all c channels
// and DenseNet's one-input Concat, the dynamo exporter drops them.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of nodes removed.
int EliminateIdentities(Graph& graph);

}  // namespace ios
