// The graph IR: values (tensors) and nodes (ops) in flat vectors, addressed by index.
// Passes mark nodes dead and call Compact(); indices are stable until then.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/attribute.h"
#include "ir/layout.h"
#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

using ValueId = int32_t;
using NodeId = int32_t;
constexpr ValueId kNoValue = -1;  // an omitted optional input
constexpr NodeId kNoNode = -1;

struct Value {
  std::string name;
  DType dtype = DType::kUndefined;
  Dims dims;  // empty with has_shape=false until inferred
  bool has_shape = false;
  std::optional<Tensor> constant;  // initializers and folded results
  NodeId producer = kNoNode;
  std::vector<NodeId> consumers;  // rebuilt by Graph::RebuildUses
  bool is_graph_input = false;
  bool is_graph_output = false;
  // How the bytes are stored (ir/layout.h); row-major unless a backend's layout assignment
  // chose otherwise (the CPU's: runtime/cpu/cpu_layout.h). Recorded in the plan.
  Layout layout = Layout::kRowMajor;
};

struct Node {
  std::string name;
  std::string op_type;
  int64_t opset = 0;  // version of the node's domain that the model imports
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  AttributeMap attrs;
  bool dead = false;
};

// Bytes of the value's dense tensor (its dtype's size times its element count).
int64_t ValueBytes(const Value& value);

class Graph {
 public:
  std::string name;
  std::string source_path;  // the file it came from, for error messages
  int64_t opset = 0;        // default-domain opset
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<ValueId> inputs;  // runtime inputs only (not initializers)
  std::vector<ValueId> outputs;

  ValueId AddValue(Value value);
  // A constant value holding `tensor` (dtype, dims and shape from it).
  ValueId AddConstant(std::string name, Tensor tensor);
  NodeId AddNode(Node node);
  // Id of the value with that name, or kNoValue.
  ValueId FindValue(const std::string& value_name) const;

  // Recomputes producer and consumer lists from the live nodes.
  void RebuildUses();
  // Removes dead nodes and values that nothing references; renumbers ids.
  void Compact();
  // Live nodes in a topological order; an error naming a node on a cycle if there is one.
  StatusOr<std::vector<NodeId>> TopologicalOrder() const;
  // Replaces every use of `from` (by live nodes and graph outputs) with `to`.
  void ReplaceAllUses(ValueId from, ValueId to);
  // "node 'name' (OpType)" for messages.
  std::string Describe(NodeId node) const;

 private:
  mutable std::vector<int32_t> scratch_;
};

}  // namespace ios
