// Runs a whole graph with the reference kernels, node by node in topological order. Slow; it is
// the oracle for passes and backends on small graphs.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

// `inputs` follow graph.inputs; the result follows graph.outputs.
StatusOr<std::vector<Tensor>> EvaluateGraphReference(const Graph& graph,
                                                     const std::vector<Tensor>& inputs);

}  // namespace ios
