// Common subexpression elimination: a node that computes what an earlier one already does (the
// same op and opset, the same attributes, and the same inputs: the same values, or constants of
// the same dtype, shape and bytes) is removed, and its readers read the earlier node's outputs.
// Exporters repeat pure ops on one tensor: the generated NASNet applies a ReLU to a cell's input
// once per branch that reads it (88 repeated ReLUs and 22 repeated pools in 963 nodes),
// RandWire to a node's output once per successor (21 ReLUs). onnxruntime's
// CommonSubexpressionElimination merges them the same way. A node whose output is a graph output
// of its own stays (its name is the model's).
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of nodes removed.
int EliminateCommonSubexpressions(Graph& graph);

}  // namespace ios
