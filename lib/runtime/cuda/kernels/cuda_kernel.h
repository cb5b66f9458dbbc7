// CUDA kernels: one per op, created once per plan node when a session (or the profiler) is set
// up, then enqueued many times, also inside a CUDA Graph capture. So Enqueue must only enqueue
// work on the given stream: no allocation, no synchronising call, no default-stream use.
//
// Buffers are device pointers to dense row-major tensors (constants included: the session
// uploads every constant once), except strided views (context.batch_strides), which only the
// kernels that plan/tensor_views.h lists take. A kernel that needs a constant's values on the host
// (a Reshape shape, Pad pads, Slice starts) reads them from the context when it is created.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "iosplan.pb.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "ops/op_schema.h"
#include "runtime/cuda/kernels/cuda_kernel_table.h"
#include "runtime/strided_views.h"
#include "util/status.h"

namespace ios {

// What a kernel may use while enqueued on one stream. Each stream of a session has its own
// handles and workspace, so that no two concurrent streams share scratch memory.
struct CudaStreamContext {
  cudaStream_t stream = nullptr;
  cudnnHandle_t cudnn = nullptr;    // bound to `stream` (cudnnSetStream)
  cublasHandle_t cublas = nullptr;  // bound to `stream`, with its own workspace
  void* workspace = nullptr;        // at least the largest WorkspaceBytes() of the kernels
  size_t workspace_bytes = 0;
};

struct CudaKernelContext {
  const Node* node = nullptr;
  std::vector<TensorType> input_types;
  std::vector<TensorType> output_types;
  std::vector<const Tensor*> constants;  // per input: the constant's host value, or null
  // The conv algorithm the plan recorded for this node (iosc measured it), or null: the kernel
  // then asks cuDNN's heuristics (cudnnGetConvolutionForwardAlgorithm_v7).
  const plan::ConvAlgorithm* conv_algorithm = nullptr;
  bool allow_tf32 = false;
  // Batch strides of strided views (runtime/strided_views.h); empty or all 0 when dense.
  NodeBatchStrides batch_strides;
  // A cuDNN handle for queries made while creating the kernel (algorithm heuristics, workspace
  // sizes); not used for enqueueing.
  cudnnHandle_t cudnn = nullptr;
};

// Whether the node gives input `index`: an omitted optional input is absent or untyped.
inline bool KernelHasInput(const CudaKernelContext& context, size_t index) {
  return index < context.node->inputs.size() && context.node->inputs[index] != kNoValue &&
         index < context.input_types.size() &&
         context.input_types[index].dtype != DType::kUndefined;
}

class CudaKernel {
 public:
  virtual ~CudaKernel() = default;
  // inputs[i] is null for an omitted optional input.
  virtual Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                         const CudaStreamContext& stream) = 0;
  // Scratch the kernel needs in CudaStreamContext::workspace.
  virtual size_t WorkspaceBytes() const { return 0; }
};

// The context for a node of `graph`: its types and constant inputs. The caller fills in the
// plan-level fields (conv_algorithm, allow_tf32, cudnn).
CudaKernelContext MakeCudaKernelContext(const Graph& graph, const Node& node);

// The kernel for the node, or Unsupported naming the node and op when the CUDA backend has no
// kernel for it (or not for its dtype or attributes).
StatusOr<std::unique_ptr<CudaKernel>> CreateCudaKernel(const CudaKernelContext& context);

}  // namespace ios
