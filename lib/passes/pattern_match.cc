#include "passes/pattern_match.h"

#include <cmath>
#include <string>

namespace ios {

bool OnlyReadBy(const Graph& graph, ValueId value, NodeId reader) {
  const Value& v = graph.values[value];
  return !v.is_graph_output && v.consumers.size() == 1 && v.consumers[0] == reader;
}

std::optional<NodeId> SoleReaderOfType(const Graph& graph, ValueId value, const char* op_type) {
  const Value& v = graph.values[value];
  if (v.is_graph_output || v.consumers.size() != 1) return std::nullopt;
  const Node& reader = graph.nodes[v.consumers[0]];
  if (reader.dead || reader.op_type != op_type) return std::nullopt;
  return v.consumers[0];
}

std::optional<NodeId> ProducerOfType(const Graph& graph, ValueId value, const char* op_type) {
  const NodeId producer = graph.values[value].producer;
  if (producer == kNoNode) return std::nullopt;
  const Node& node = graph.nodes[producer];
  if (node.dead || node.op_type != op_type) return std::nullopt;
  return producer;
}

bool IsScalarNear(const Graph& graph, ValueId value, double want) {
  const Value& v = graph.values[value];
  if (!v.constant || v.constant->num_elements() != 1) return false;
  const DType dtype = v.constant->dtype();
  if (dtype == DType::kBool || dtype == DType::kFloat16 || dtype == DType::kUndefined) return false;
  return std::fabs(v.constant->FloatAt(0) - want) <= 1e-5 * std::fabs(want);
}

std::optional<float> FloatScalar(const Graph& graph, ValueId value) {
  const Value& v = graph.values[value];
  if (!v.constant || v.constant->num_elements() != 1 || v.constant->dtype() != DType::kFloat32)
    return std::nullopt;
  return v.constant->data<float>()[0];
}

std::optional<ValueId> OtherInput(const Node& node, ValueId operand) {
  if (node.inputs.size() != 2 || node.inputs[0] == node.inputs[1]) return std::nullopt;
  if (node.inputs[0] == operand) return node.inputs[1];
  if (node.inputs[1] == operand) return node.inputs[0];
  return std::nullopt;
}

std::optional<ValueId> OperandBesideScalar(const Graph& graph, const Node& node, double want,
                                           bool constant_second) {
  if (node.inputs.size() != 2 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue)
    return std::nullopt;
  if (IsScalarNear(graph, node.inputs[1], want)) return node.inputs[0];
  if (!constant_second && IsScalarNear(graph, node.inputs[0], want)) return node.inputs[1];
  return std::nullopt;
}

}  // namespace ios
