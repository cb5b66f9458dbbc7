// The check every session makes on the tensors it is given as a plan's inputs.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

// InvalidInput unless there is one tensor per graph input, each of the input's dtype and dims.
Status CheckSessionInputs(const Graph& graph, const std::vector<Tensor>& inputs);

}  // namespace ios
