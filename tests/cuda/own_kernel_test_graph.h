// A graph of one node for the CUDA kernel tests (the builder is ../one_node_graph.h), the CUDA
// kernel context of that node, and the kernel-table tests' checks of what the kernel factory
// makes of it (no device needed).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../one_node_graph.h"
#include "runtime/cuda/kernels/cuda_kernel.h"

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

using KernelOr = StatusOr<std::unique_ptr<CudaKernel>>;

// The kernel for g's node, g built first (a failed build fails the test). Input `runtime_input`,
// when >= 0, reaches the factory as a value computed at run time (it is a constant in the graph
// only for shape inference).
inline KernelOr CreateKernel(OneNodeGraph& g, int runtime_input = -1) {
  Status built = g.Build();
  EXPECT_TRUE(built.ok()) << built.message();
  CudaKernelContext context = g.Context();
  if (runtime_input >= 0) context.constants.at(runtime_input) = nullptr;
  return CreateCudaKernel(context);
}

// The factory makes a kernel of g's node, and it needs no workspace.
inline void ExpectAccepted(OneNodeGraph& g, int runtime_input = -1) {
  KernelOr kernel = CreateKernel(g, runtime_input);
  EXPECT_TRUE(kernel.ok()) << g.node().op_type << ": " << kernel.status().message();
  if (kernel.ok()) {
    EXPECT_EQ((*kernel)->WorkspaceBytes(), 0u) << g.node().op_type;
  }
}

// `kernel` was refused with `code`, by a message that names `node` and its op and says `what`.
inline void ExpectRefused(const KernelOr& kernel, const Node& node, StatusCode code,
                          const std::string& what) {
  ASSERT_FALSE(kernel.ok()) << node.op_type;
  const std::string& message = kernel.status().message();
  EXPECT_EQ(kernel.status().code(), code) << message;
  EXPECT_NE(message.find("'" + node.name + "'"), std::string::npos) << message;
  EXPECT_NE(message.find("(" + node.op_type + ")"), std::string::npos) << message;
  EXPECT_NE(message.find(what), std::string::npos) << message;
}

inline void ExpectRefused(const CudaKernelContext& context, StatusCode code,
                          const std::string& what) {
  ExpectRefused(CreateCudaKernel(context), *context.node, code, what);
}

// Builds g first: its node exists only then.
inline void ExpectRefused(OneNodeGraph& g, StatusCode code, const std::string& what,
                          int runtime_input = -1) {
  KernelOr kernel = CreateKernel(g, runtime_input);
  ExpectRefused(kernel, g.node(), code, what);
}

inline Tensor Zeros(Dims dims, DType dtype = DType::kFloat32) {
  Tensor t(dtype, std::move(dims));
  for (size_t b = 0; b < t.num_bytes(); ++b) t.raw()[b] = 0;
  return t;
}

// A 1-D int64 tensor of `values`.
inline Tensor Ints(const std::vector<int64_t>& values) {
  return Tensor::FromInt64(values, {static_cast<int64_t>(values.size())});
}

}  // namespace ios::testing
