#include "ops/op_registry.h"

namespace ios {

const OpRegistry& OpRegistry::Global() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterConvOps(*r);
    RegisterNormalizationOps(*r);
    RegisterActivationOps(*r);
    RegisterElementwiseOps(*r);
    RegisterPoolOps(*r);
    RegisterTensorOps(*r);
    RegisterDepthSpaceOps(*r);
    RegisterMatmulOps(*r);
    RegisterMiscOps(*r);
    RegisterReductionOps(*r);
    RegisterResizeOps(*r);
    RegisterScatterOps(*r);
    return r;
  }();
  return *registry;
}

void OpRegistry::Register(OpSchema schema) {
  std::string key = schema.op_type;
  schemas_[key] = std::move(schema);
}

const OpSchema* OpRegistry::Find(const std::string& op_type) const {
  auto it = schemas_.find(op_type);
  return it == schemas_.end() ? nullptr : &it->second;
}

std::vector<std::string> OpRegistry::OpTypes() const {
  std::vector<std::string> types;
  for (const auto& entry : schemas_) types.push_back(entry.first);
  return types;
}

namespace {

std::string NodeContext(const Graph& graph, const Node& node) {
  return graph.source_path + ": node '" + node.name + "' (" + node.op_type + ", opset " +
         std::to_string(node.opset) + ")";
}

}  // namespace

Status InferNode(Graph& graph, NodeId id) {
  Node& node = graph.nodes[id];
  const OpSchema* schema = OpRegistry::Global().Find(node.op_type);
  if (schema == nullptr) return Unsupported(NodeContext(graph, node) + ": unsupported op");
  const int num_inputs = static_cast<int>(node.inputs.size());
  const int num_outputs = static_cast<int>(node.outputs.size());
  if (num_inputs < schema->min_inputs ||
      (schema->max_inputs >= 0 && num_inputs > schema->max_inputs)) {
    return InvalidInput(NodeContext(graph, node) + ": has " + std::to_string(num_inputs) +
                        " inputs, expected " + std::to_string(schema->min_inputs) + ".." +
                        (schema->max_inputs < 0 ? "n" : std::to_string(schema->max_inputs)));
  }
  if (num_outputs < schema->min_outputs ||
      (schema->max_outputs >= 0 && num_outputs > schema->max_outputs)) {
    return InvalidInput(NodeContext(graph, node) + ": has " + std::to_string(num_outputs) +
                        " outputs, expected " + std::to_string(schema->min_outputs) + ".." +
                        (schema->max_outputs < 0 ? "n" : std::to_string(schema->max_outputs)));
  }
  std::vector<InferInput> inputs(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    ValueId vid = node.inputs[i];
    if (vid == kNoValue) continue;
    const Value& value = graph.values[vid];
    if (!value.has_shape) {
      return Internal(NodeContext(graph, node) + ": input '" + value.name +
                      "' has no inferred shape");
    }
    inputs[i].present = true;
    inputs[i].type = TensorType{value.dtype, value.dims};
    inputs[i].constant = value.constant ? &*value.constant : nullptr;
  }
  std::vector<TensorType> outputs(node.outputs.size());
  Status status = schema->infer(node, inputs, &outputs);
  if (!status.ok()) return status.WithContext(NodeContext(graph, node));
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i] == kNoValue) continue;
    for (int64_t d : outputs[i].dims) {
      if (d < 0) {
        return InvalidInput(NodeContext(graph, node) + ": output '" +
                            graph.values[node.outputs[i]].name + "' would have shape " +
                            DimsToString(outputs[i].dims) + " with a negative dimension");
      }
    }
    if (CheckedNumBytes(outputs[i].dtype, outputs[i].dims) < 0) {
      return InvalidInput(NodeContext(graph, node) + ": output '" +
                          graph.values[node.outputs[i]].name + "' would have shape " +
                          DimsToString(outputs[i].dims) + ", whose size overflows 64 bits");
    }
    Value& value = graph.values[node.outputs[i]];
    value.dtype = outputs[i].dtype;
    value.dims = outputs[i].dims;
    value.has_shape = true;
  }
  return Status::Ok();
}

OpCost NodeCost(const Graph& graph, NodeId id) {
  const Node& node = graph.nodes[id];
  const OpSchema* schema = OpRegistry::Global().Find(node.op_type);
  if (schema == nullptr || !schema->cost) return OpCost{};
  std::vector<TensorType> inputs, outputs;
  for (ValueId vid : node.inputs) {
    if (vid == kNoValue) {
      inputs.push_back(TensorType{});
      continue;
    }
    inputs.push_back(TensorType{graph.values[vid].dtype, graph.values[vid].dims});
  }
  for (ValueId vid : node.outputs) {
    if (vid == kNoValue) {
      outputs.push_back(TensorType{});
      continue;
    }
    outputs.push_back(TensorType{graph.values[vid].dtype, graph.values[vid].dims});
  }
  return schema->cost(node, inputs, outputs);
}

}  // namespace ios
