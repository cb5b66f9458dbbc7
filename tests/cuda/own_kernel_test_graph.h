// A graph of one node for the CUDA kernel tests (the builder is ../one_node_graph.h), and the
// CUDA kernel context of that node.
#pragma once

#include <string>
#include <utility>

#include "../one_node_graph.h"
#include "runtime/cuda/cuda_kernel.h"

namespace ios::testing {

class OneNodeGraph : public OneNodeBuilder<OneNodeGraph> {
 public:
  explicit OneNodeGraph(std::string op_type, int64_t opset = 13)
      : OneNodeBuilder(std::move(op_type), opset, "own_kernels_test") {}

  // Adds the node and infers its output types.
  Status Build() { return AddNode(graph_, &id_); }

  const Graph& graph() const { return graph_; }
  const Node& node() const { return graph_.nodes[id_]; }
  CudaKernelContext Context() const { return MakeCudaKernelContext(graph_, node()); }

 private:
  NodeId id_ = kNoNode;
};

}  // namespace ios::testing
