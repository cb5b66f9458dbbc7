// The builder of a one-node graph shared by the CPU and CUDA kernel tests: runtime inputs (with
// their host values, for the reference kernel and for uploading), constants, omitted inputs and
// attributes. AddNode gives the output types by the op registry's shape inference, as in a
// real plan. `Self` is the test class deriving from it, so that chained calls keep its type.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ops/op_registry.h"

namespace ios::testing {

template <typename Self>
class OneNodeBuilder {
 public:
  OneNodeBuilder(std::string op_type, int64_t opset, const std::string& source_path) {
    graph_.opset = opset;
    graph_.source_path = source_path;
    node_.name = op_type + "_node";
    node_.op_type = std::move(op_type);
    node_.opset = opset;
  }

  Self& Input(Tensor value, bool constant = false) {
    Value v;
    v.name = "in" + std::to_string(node_.inputs.size());
    v.dtype = value.dtype();
    v.dims = value.dims();
    v.has_shape = true;
    if (constant) v.constant = value;
    node_.inputs.push_back(graph_.AddValue(std::move(v)));
    values_.push_back(std::move(value));
    return self();
  }
  Self& Constant(Tensor value) { return Input(std::move(value), /*constant=*/true); }
  Self& Omitted() {
    node_.inputs.push_back(kNoValue);
    values_.emplace_back();
    return self();
  }
  Self& Attr(const std::string& name, AttributeValue value) {
    node_.attrs.Set(name, std::move(value));
    return self();
  }
  Self& Outputs(int count) {
    outputs_ = count;
    return self();
  }

  // Per input: the host value (empty for an omitted input).
  const std::vector<Tensor>& values() const { return values_; }

 protected:
  // Adds the outputs and the node to `graph` (a copy of the inputs' graph_) and infers the
  // output types.
  Status AddNode(Graph& graph, NodeId* id) const {
    Node node = node_;
    for (int i = 0; i < outputs_; ++i) {
      Value out;
      out.name = "out" + std::to_string(i);
      node.outputs.push_back(graph.AddValue(std::move(out)));
    }
    *id = graph.AddNode(node);
    return InferNode(graph, *id);
  }

  Self& self() { return static_cast<Self&>(*this); }

  Graph graph_;  // the inputs (and, once built by a subclass, the node)
  Node node_;
  std::vector<Tensor> values_;
  int outputs_ = 1;
};

}  // namespace ios::testing
