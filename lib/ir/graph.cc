#include "ir/graph.h"

#include <algorithm>
#include <unordered_map>

namespace ios {

int64_t ValueBytes(const Value& value) {
  return static_cast<int64_t>(DTypeSize(value.dtype)) * NumElements(value.dims);
}

ValueId Graph::AddValue(Value value) {
  values.push_back(std::move(value));
  return static_cast<ValueId>(values.size() - 1);
}

ValueId Graph::AddConstant(std::string name, Tensor tensor) {
  Value value;
  value.name = std::move(name);
  value.dtype = tensor.dtype();
  value.dims = tensor.dims();
  value.has_shape = true;
  value.constant = std::move(tensor);
  return AddValue(std::move(value));
}

NodeId Graph::AddNode(Node node) {
  nodes.push_back(std::move(node));
  return static_cast<NodeId>(nodes.size() - 1);
}

ValueId Graph::FindValue(const std::string& value_name) const {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].name == value_name) return static_cast<ValueId>(i);
  return kNoValue;
}

void Graph::RebuildUses() {
  for (Value& value : values) {
    value.producer = kNoNode;
    value.consumers.clear();
    value.is_graph_input = false;
    value.is_graph_output = false;
  }
  for (ValueId id : inputs) values[id].is_graph_input = true;
  for (ValueId id : outputs) values[id].is_graph_output = true;
  for (size_t n = 0; n < nodes.size(); ++n) {
    const Node& node = nodes[n];
    if (node.dead) continue;
    for (ValueId out : node.outputs)
      if (out != kNoValue) values[out].producer = static_cast<NodeId>(n);
    for (ValueId in : node.inputs) {
      if (in == kNoValue) continue;
      auto& consumers = values[in].consumers;
      // A node that reads a value twice is listed once.
      if (consumers.empty() || consumers.back() != static_cast<NodeId>(n))
        consumers.push_back(static_cast<NodeId>(n));
    }
  }
}

void Graph::Compact() {
  std::vector<bool> value_used(values.size(), false);
  for (ValueId id : inputs) value_used[id] = true;
  for (ValueId id : outputs) value_used[id] = true;
  for (const Node& node : nodes) {
    if (node.dead) continue;
    for (ValueId id : node.inputs)
      if (id != kNoValue) value_used[id] = true;
    for (ValueId id : node.outputs)
      if (id != kNoValue) value_used[id] = true;
  }
  std::vector<ValueId> value_map(values.size(), kNoValue);
  std::vector<Value> kept_values;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!value_used[i]) continue;
    value_map[i] = static_cast<ValueId>(kept_values.size());
    kept_values.push_back(std::move(values[i]));
  }
  std::vector<Node> kept_nodes;
  for (Node& node : nodes) {
    if (node.dead) continue;
    for (ValueId& id : node.inputs)
      if (id != kNoValue) id = value_map[id];
    for (ValueId& id : node.outputs)
      if (id != kNoValue) id = value_map[id];
    kept_nodes.push_back(std::move(node));
  }
  for (ValueId& id : inputs) id = value_map[id];
  for (ValueId& id : outputs) id = value_map[id];
  values = std::move(kept_values);
  nodes = std::move(kept_nodes);
  RebuildUses();
}

StatusOr<std::vector<NodeId>> Graph::TopologicalOrder() const {
  // Kahn's algorithm over live nodes; ties broken by original index so that the order is stable.
  std::unordered_map<ValueId, NodeId> producer;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].dead) continue;
    for (ValueId out : nodes[n].outputs)
      if (out != kNoValue) producer[out] = static_cast<NodeId>(n);
  }
  std::vector<int32_t> pending(nodes.size(), 0);
  std::vector<std::vector<NodeId>> successors(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].dead) continue;
    for (ValueId in : nodes[n].inputs) {
      auto it = in == kNoValue ? producer.end() : producer.find(in);
      if (it == producer.end()) continue;
      successors[it->second].push_back(static_cast<NodeId>(n));
      ++pending[n];
    }
  }
  std::vector<NodeId> ready;
  for (size_t n = nodes.size(); n-- > 0;)
    if (!nodes[n].dead && pending[n] == 0) ready.push_back(static_cast<NodeId>(n));
  std::vector<NodeId> order;
  while (!ready.empty()) {
    // Pop the smallest index: ready is kept sorted in descending order.
    NodeId n = ready.back();
    ready.pop_back();
    order.push_back(n);
    for (NodeId s : successors[n]) {
      if (--pending[s] == 0) {
        ready.insert(std::upper_bound(ready.begin(), ready.end(), s, std::greater<NodeId>()), s);
      }
    }
  }
  size_t live = 0;
  for (const Node& node : nodes) live += node.dead ? 0 : 1;
  if (order.size() != live) {
    for (size_t n = 0; n < nodes.size(); ++n)
      if (!nodes[n].dead && pending[n] > 0)
        return InvalidInput("the graph has a cycle through " + Describe(static_cast<NodeId>(n)));
  }
  return order;
}

void Graph::ReplaceAllUses(ValueId from, ValueId to) {
  for (Node& node : nodes) {
    if (node.dead) continue;
    std::replace(node.inputs.begin(), node.inputs.end(), from, to);
  }
  std::replace(outputs.begin(), outputs.end(), from, to);
}

std::string Graph::Describe(NodeId node) const {
  const Node& n = nodes[node];
  return "node '" + n.name + "' (" + n.op_type + ")";
}

}  // namespace ios
