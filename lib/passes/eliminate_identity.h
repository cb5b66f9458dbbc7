// Removes Identity nodes and inference-time Dropout (whose mask output nobody reads).
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of nodes removed.
int EliminateIdentities(Graph& graph);

}  // namespace ios
