#include "plan/in_place.h"

namespace ios {

bool MayRunInPlace(const Graph& graph, const Node& node, size_t input_index,
                   const KernelCapsTable& kernels) {
  if (node.outputs.size() != 1 || input_index >= node.inputs.size()) return false;
  const KernelCaps* caps = kernels.Find(node.op_type);
  if (caps == nullptr || caps->in_place == nullptr || !caps->in_place(node, input_index))
    return false;
  const ValueId in = node.inputs[input_index];
  const ValueId out = node.outputs[0];
  if (in == kNoValue || out == kNoValue) return false;
  const Value& input = graph.values[in];
  const Value& output = graph.values[out];
  return !input.constant && input.has_shape && output.has_shape && input.dtype == DType::kFloat32 &&
         output.dtype == DType::kFloat32 && input.dims == output.dims &&
         input.layout == output.layout;
}

}  // namespace ios
