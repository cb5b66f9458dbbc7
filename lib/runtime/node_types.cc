#include "runtime/node_types.h"

namespace ios {

NodeTypes GatherNodeTypes(const Graph& graph, const Node& node) {
  NodeTypes types;
  types.node = &node;
  for (ValueId in : node.inputs) {
    if (in == kNoValue) {
      types.input_types.push_back(TensorType{});
      types.constants.push_back(nullptr);
      continue;
    }
    const Value& value = graph.values[in];
    types.input_types.push_back(TensorType{value.dtype, value.dims});
    types.constants.push_back(value.constant ? &*value.constant : nullptr);
  }
  for (ValueId out : node.outputs) {
    if (out == kNoValue) {
      types.output_types.push_back(TensorType{});
      continue;
    }
    types.output_types.push_back(TensorType{graph.values[out].dtype, graph.values[out].dims});
  }
  return types;
}

}  // namespace ios
