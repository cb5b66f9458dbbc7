// What one backend's kernel for an op can do beyond computing dense row-major outputs from dense
// row-major inputs. Each backend declares it once, in its kernel table, beside the factory that
// makes the kernel (runtime/cpu/kernels/cpu_kernel_registry.cc,
// runtime/cuda/kernels/cuda_kernel_table.cc); the memory planner, the layout pass, the
// runtime's strided views, --list-ops and docs/operators.md ask that table through
// KernelCapsTable, and never keep a list of op types of their own.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "kernels/math/activation_math.h"

namespace ios {

// Which tensors of a node the kernel can read or write as a strided batch slice of a larger
// tensor (plan/tensor_views.h).
enum class StridedSlices {
  kNone,
  kWindow,       // a window op's data input X and its output Y (Conv, MaxPool, AveragePool)
  kElementwise,  // every operand of a same-shape elementwise op of two or more inputs
};

// Whether the kernel may write output 0 over the bytes of input `input_index` of `node`
// (plan/in_place.h checks the dims, dtype and layout, and that the input dies there).
using InPlacePredicate = bool (*)(const Node& node, size_t input_index);
// Either input of a two-input elementwise op: element i of the output is computed from
// element i of each input and nothing else is written.
bool InPlaceEitherOfTwo(const Node& node, size_t input_index);
// Input 0 of a one-to-one map (an activation) that reads it nowhere else.
bool InPlaceFirstInput(const Node& node, size_t input_index);
// Input 0 of an inference BatchNormalization (training_mode 0), which reads its per-channel
// parameters first and then maps element i to element i.
bool InPlaceInferenceFirstInput(const Node& node, size_t input_index);
// A Conv's fused residual (input 3, ir/fused_activation.h) that it reads nowhere else: added
// as a sum post-op, which reads element i of Y before writing it.
bool InPlaceFusedResidual(const Node& node, size_t input_index);

struct KernelCaps {
  StridedSlices strided = StridedSlices::kNone;
  InPlacePredicate in_place = nullptr;  // null: never in place
  // A Conv: the activations it carries fused (ir/fused_activation.h); null: none.
  bool (*fuses_activation)(ActivationKind kind) = nullptr;
};

// One backend's kernel table as the backend-neutral layers see it.
class KernelCapsTable {
 public:
  virtual ~KernelCapsTable() = default;
  // "CPU", "CUDA": for messages.
  virtual const char* backend() const = 0;
  // The capabilities of the backend's own kernel for `op_type`; null when it has none (the CPU
  // then runs the reference kernel, which takes dense row-major tensors only).
  virtual const KernelCaps* Find(const std::string& op_type) const = 0;
  // The op types with a kernel of the backend's own, sorted.
  virtual std::vector<std::string> OpTypes() const = 0;
  // Whether `node`'s kernel takes the stored layouts (ir/layout.h) that its values have now as
  // they are; false means the backend runs it on row-major copies (a layout adapter). A node
  // whose values are all row-major-alike is always true.
  virtual bool TakesAssignedLayouts(const Graph& graph, const Node& node) const = 0;
};

}  // namespace ios
