#include "kernels/reference/reference_graph.h"

#include "kernels/reference/reference_kernels.h"

namespace ios {

StatusOr<std::vector<Tensor>> EvaluateGraphReference(const Graph& graph,
                                                     const std::vector<Tensor>& inputs) {
  if (inputs.size() != graph.inputs.size()) {
    return InvalidInput("the graph has " + std::to_string(graph.inputs.size()) + " inputs, got " +
                        std::to_string(inputs.size()));
  }
  std::vector<const Tensor*> values(graph.values.size(), nullptr);
  std::vector<Tensor> computed(graph.values.size());
  for (size_t v = 0; v < graph.values.size(); ++v)
    if (graph.values[v].constant) values[v] = &*graph.values[v].constant;
  for (size_t i = 0; i < inputs.size(); ++i) values[graph.inputs[i]] = &inputs[i];
  IOS_ASSIGN_OR_RETURN(std::vector<NodeId> order, graph.TopologicalOrder());
  for (NodeId id : order) {
    const Node& node = graph.nodes[id];
    std::vector<const Tensor*> node_inputs;
    for (ValueId in : node.inputs) {
      if (in != kNoValue && values[in] == nullptr)
        return Internal(graph.Describe(id) + " reads '" + graph.values[in].name +
                        "' before it exists");
      node_inputs.push_back(in == kNoValue ? nullptr : values[in]);
    }
    std::vector<Tensor> outputs(node.outputs.size());
    IOS_RETURN_IF_ERROR(
        EvaluateReference(node, node_inputs, &outputs).WithContext(graph.Describe(id)));
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o] == kNoValue) continue;
      computed[node.outputs[o]] = std::move(outputs[o]);
      values[node.outputs[o]] = &computed[node.outputs[o]];
    }
  }
  std::vector<Tensor> result;
  for (ValueId out : graph.outputs) {
    if (values[out] == nullptr)
      return Internal("graph output '" + graph.values[out].name + "' was not computed");
    result.push_back(*values[out]);
  }
  return result;
}

}  // namespace ios
