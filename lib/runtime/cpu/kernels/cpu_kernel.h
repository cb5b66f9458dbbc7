// CPU kernels: one per op, created once per plan node (weights prepacked then), run many times.
// Buffers are dense, row-major or channels-last as the context's layouts say (ir/layout.h; only
// the kernels that the registry lists as taking them see channels-last tensors, the others run
// behind a layout adapter), except strided views (context.batch_strides, taken only by the
// kernels that plan/tensor_views.h lists); `threads` is the intra-op share of the cores.
#pragma once

#include <memory>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "ops/kernel_caps.h"
#include "ops/op_schema.h"
#include "runtime/kernel_path.h"
#include "runtime/strided_views.h"
#include "util/status.h"

namespace ios {

class CpuKernel {
 public:
  virtual ~CpuKernel() = default;
  // inputs[i] is null for an omitted optional input; constant inputs are also passed here.
  virtual Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                     int threads) = 0;
  // True when the kernel took a copy of its constant input `input` when it was made (prepacked
  // weights, a bias of its own) and never reads the graph's bytes again: a session may free them.
  virtual bool CopiedConstantInput(size_t input) const { return false; }
};

struct CpuKernelContext {
  const Node* node = nullptr;
  std::vector<TensorType> input_types;
  std::vector<TensorType> output_types;
  std::vector<const Tensor*> constants;  // per input: the constant value, or null
  // Batch strides of strided views (runtime/strided_views.h); empty or all 0 when dense.
  NodeBatchStrides batch_strides;
  // Per input and output: how its buffer is stored (an omitted input: row-major). Empty or
  // short vectors mean row-major for the rest.
  std::vector<Layout> input_layouts;
  std::vector<Layout> output_layouts;
  Layout input_layout(size_t i) const {
    return i < input_layouts.size() ? input_layouts[i] : Layout::kRowMajor;
  }
  Layout output_layout(size_t i) const {
    return i < output_layouts.size() ? output_layouts[i] : Layout::kRowMajor;
  }
  // Whether any tensor is stored other than row-major (channels-last or channels-blocked).
  bool any_non_row_major() const;
  bool any_channels_blocked() const;
};

// The context for a node of `graph`: its types, and its constant inputs (for prepacking).
CpuKernelContext MakeCpuKernelContext(const Graph& graph, const Node& node);

// For a one-input elementwise op: true when its input and output are float32 of one size (an own
// kernel runs it), false for another dtype (the reference kernel does), InvalidInput when the
// output does not match the input.
StatusOr<bool> IsFloat32Elementwise(const CpuKernelContext& context);

// The fast kernel for the node when there is one, else a wrapper around the reference kernel;
// either behind a layout adapter (runtime/cpu/kernels/layout_adapter_cpu.h) when the node has
// channels-last or channels-blocked tensors that the kernel does not take (only Conv takes
// channels-blocked ones).
StatusOr<std::unique_ptr<CpuKernel>> CreateCpuKernel(const CpuKernelContext& context);
// True when the fast kernel for the node takes its tensors in the context's layouts (any node
// whose tensors are all row-major does).
bool CpuKernelTakesLayouts(const CpuKernelContext& context);
// The CPU kernel table's capabilities (ops/kernel_caps.h): what the memory planner, the layout
// pass and the runtime ask of the CPU backend. Find(op) is null where CreateCpuKernel runs the
// reference kernel.
const KernelCapsTable& CpuKernelCaps();
// How a kernel CreateCpuKernel made runs its node (runtime/kernel_path.h).
KernelPath CpuKernelPathOf(const CpuKernel& kernel);
// The path of every node of `graph` (its layouts assigned), per NodeId (dead nodes: own
// kernel), found by making each node's kernel as a session would.
StatusOr<std::vector<KernelPath>> CpuKernelPaths(const Graph& graph);

}  // namespace ios
