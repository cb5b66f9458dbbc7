// A graph of one node for the CUDA kernel tests: runtime inputs (with their host values, for
// uploading and for the reference kernel), constants, omitted inputs and attributes; output
// types come from the op registry's shape inference, as in a real plan.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ops/op_registry.h"
#include "runtime/cuda/cuda_kernel.h"

namespace ios::testing {

class OneNodeGraph {
 public:
  explicit OneNodeGraph(std::string op_type, int64_t opset = 13) {
    graph_.opset = opset;
    graph_.source_path = "own_kernels_test";
    node_.name = op_type + "_node";
    node_.op_type = std::move(op_type);
    node_.opset = opset;
  }

  OneNodeGraph& Input(Tensor value, bool constant = false) {
    Value v;
    v.name = "in" + std::to_string(node_.inputs.size());
    v.dtype = value.dtype();
    v.dims = value.dims();
    v.has_shape = true;
    if (constant) v.constant = value;
    node_.inputs.push_back(graph_.AddValue(std::move(v)));
    values_.push_back(std::move(value));
    return *this;
  }
  OneNodeGraph& Constant(Tensor value) { return Input(std::move(value), /*constant=*/true); }
  OneNodeGraph& Omitted() {
    node_.inputs.push_back(kNoValue);
    values_.emplace_back();
    return *this;
  }
  OneNodeGraph& Attr(const std::string& name, AttributeValue value) {
    node_.attrs.Set(name, std::move(value));
    return *this;
  }
  OneNodeGraph& Outputs(int count) {
    outputs_ = count;
    return *this;
  }

  // Adds the node and infers its output types.
  Status Build() {
    for (int i = 0; i < outputs_; ++i) {
      Value out;
      out.name = "out" + std::to_string(i);
      node_.outputs.push_back(graph_.AddValue(std::move(out)));
    }
    id_ = graph_.AddNode(node_);
    return InferNode(graph_, id_);
  }

  const Graph& graph() const { return graph_; }
  const Node& node() const { return graph_.nodes[id_]; }
  // Per input: the host value (empty for an omitted input).
  const std::vector<Tensor>& values() const { return values_; }
  CudaKernelContext Context() const { return MakeCudaKernelContext(graph_, node()); }

 private:
  Graph graph_;
  Node node_;
  NodeId id_ = kNoNode;
  std::vector<Tensor> values_;
  int outputs_ = 1;
};

}  // namespace ios::testing
