#include "runtime/session_inputs.h"

#include <string>

namespace ios {

Status CheckSessionInputs(const Graph& graph, const std::vector<Tensor>& inputs) {
  if (inputs.size() != graph.inputs.size()) {
    return InvalidInput("the plan takes " + std::to_string(graph.inputs.size()) +
                        " input(s), got " + std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& value = graph.values[graph.inputs[i]];
    if (inputs[i].dtype() != value.dtype || inputs[i].dims() != value.dims) {
      return InvalidInput("input " + std::to_string(i) + " ('" + value.name + "') must be " +
                          DTypeName(value.dtype) + DimsToString(value.dims) + ", got " +
                          DTypeName(inputs[i].dtype()) + DimsToString(inputs[i].dims()));
    }
  }
  return Status::Ok();
}

}  // namespace ios
