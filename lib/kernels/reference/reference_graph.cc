#include "kernels/reference/reference_graph.h"

#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/reference_util.h"

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

Tensor WidenToFloat64(const Tensor& tensor) {
  if (tensor.dtype() == DType::kFloat16) {
    Tensor wide(DType::kFloat64, tensor.dims());
    const auto* bits = reinterpret_cast<const uint16_t*>(tensor.raw());
    for (int64_t i = 0; i < tensor.num_elements(); ++i)
      wide.data<double>()[i] = HalfBitsToDouble(bits[i]);
    return wide;
  }
  if (tensor.dtype() != DType::kFloat32) return tensor;
  Tensor wide(DType::kFloat64, tensor.dims());
  for (int64_t i = 0; i < tensor.num_elements(); ++i)
    wide.data<double>()[i] = static_cast<double>(tensor.data<float>()[i]);
  return wide;
}

StatusOr<std::vector<Tensor>> EvaluateGraphInFloat64(const Graph& graph,
                                                     const std::vector<Tensor>& inputs) {
  Graph wide = graph;
  for (Value& value : wide.values) {
    if (value.dtype == DType::kFloat32 || value.dtype == DType::kFloat16)
      value.dtype = DType::kFloat64;
    if (value.constant) value.constant = WidenToFloat64(*value.constant);
  }
  constexpr int64_t kOnnxFloat = 1, kOnnxFloat16 = 10, kOnnxDouble = 11;
  for (Node& node : wide.nodes) {
    if (node.op_type == "Cast" && node.attrs.Has("to")) {
      IOS_ASSIGN_OR_RETURN(int64_t to, node.attrs.GetInt("to", 0));
      if (to == kOnnxFloat || to == kOnnxFloat16) node.attrs.Set("to", kOnnxDouble);
    } else if (node.op_type == "ConstantOfShape") {
      if (const Tensor* value = node.attrs.GetTensor("value"))
        node.attrs.Set("value", WidenToFloat64(*value));
    }
  }
  std::vector<Tensor> wide_inputs;
  wide_inputs.reserve(inputs.size());
  for (const Tensor& input : inputs) wide_inputs.push_back(WidenToFloat64(input));
  return EvaluateGraphReference(wide, wide_inputs);
}

}  // namespace ios
