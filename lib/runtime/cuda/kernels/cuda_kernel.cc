#include "runtime/cuda/kernels/cuda_kernel.h"

#include <algorithm>

#include "plan/tensor_views.h"
#include "runtime/node_types.h"

namespace ios {
namespace {

const std::vector<CudaKernelEntry>& KernelTable() {
  static const std::vector<CudaKernelEntry> table = [] {
    std::vector<CudaKernelEntry> entries;
    AddLibraryCudaKernels(entries);
    AddOwnCudaKernels(entries);
    return entries;
  }();
  return table;
}

const CudaKernelEntry* FindEntry(const std::string& op_type) {
  for (const CudaKernelEntry& entry : KernelTable())
    if (entry.op_type == op_type) return &entry;
  return nullptr;
}

}  // namespace

CudaKernelContext MakeCudaKernelContext(const Graph& graph, const Node& node) {
  // The node's types and constants, gathered as for the CPU backend.
  NodeTypes types = GatherNodeTypes(graph, node);
  CudaKernelContext context;
  context.node = types.node;
  context.input_types = std::move(types.input_types);
  context.output_types = std::move(types.output_types);
  context.constants = std::move(types.constants);
  return context;
}

StatusOr<std::unique_ptr<CudaKernel>> CreateCudaKernel(const CudaKernelContext& context) {
  const CudaKernelEntry* entry = FindEntry(context.node->op_type);
  if (entry == nullptr) {
    return Unsupported("node '" + context.node->name + "' (" + context.node->op_type +
                       "): the CUDA backend has no kernel for " + context.node->op_type);
  }
  // Only some kernels take strided views (plan/tensor_views.h: TakesStridedBatchSlice).
  if (context.batch_strides.any() && !OpTakesStridedBatchSlices(context.node->op_type)) {
    return Internal("node '" + context.node->name + "' (" + context.node->op_type +
                    "): its CUDA kernel cannot take a strided view");
  }
  return entry->factory(context);
}

bool CudaSupportsOp(const std::string& op_type) { return FindEntry(op_type) != nullptr; }

std::vector<std::string> CudaSupportedOps() {
  std::vector<std::string> ops;
  for (const CudaKernelEntry& entry : KernelTable()) ops.push_back(entry.op_type);
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace ios
