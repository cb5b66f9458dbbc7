// A node as every backend's kernels see it: its input and output types and its constant inputs
// (for prepacking weights), gathered from the graph in one place for the CPU and CUDA backends.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ops/op_schema.h"

namespace ios {

struct NodeTypes {
  const Node* node = nullptr;
  std::vector<TensorType> input_types;   // an omitted optional input: TensorType{}
  std::vector<TensorType> output_types;
  std::vector<const Tensor*> constants;  // per input: the constant value, or null
};

NodeTypes GatherNodeTypes(const Graph& graph, const Node& node);

}  // namespace ios
