#include "runtime/cuda/kernels/cuda_kernel.h"

#include "runtime/node_types.h"

namespace ios {

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
  const CudaKernelEntry* entry = FindCudaKernelEntry(context.node->op_type);
  if (entry == nullptr || entry->factory == nullptr) {
    return Unsupported("node '" + context.node->name + "' (" + context.node->op_type +
                       "): the CUDA backend has no kernel for " + context.node->op_type);
  }
  // Only some kernels take strided views (plan/tensor_views.h: TakesStridedBatchSlice).
  if (context.batch_strides.any() && entry->caps.strided == StridedSlices::kNone) {
    return Internal("node '" + context.node->name + "' (" + context.node->op_type +
                    "): its CUDA kernel cannot take a strided view");
  }
  return entry->factory(context);
}

}  // namespace ios
