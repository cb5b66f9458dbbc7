#include "plan/in_place.h"

#include <string>

#include "ir/fused_activation.h"

namespace ios {

namespace {

bool IsTwoInputElementwise(const Node& node) {
  static const char* const kOps[] = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Sum"};
  bool elementwise = false;
  for (const char* op : kOps) elementwise = elementwise || node.op_type == op;
  return elementwise && node.inputs.size() == 2;
}

// A standalone activation's input X (Relu, Clip, Sigmoid, ...: ActivationKindFromOpType), when
// Clip's bounds are other values.
bool IsActivationInput(const Node& node, size_t input_index) {
  if (input_index != 0 || !ActivationKindFromOpType(node.op_type)) return false;
  for (size_t i = 1; i < node.inputs.size(); ++i)
    if (node.inputs[i] == node.inputs[0]) return false;
  return true;
}

// A Conv's fused residual (input 3) that the conv reads nowhere else.
bool IsOnlyResidual(const Node& node, size_t input_index) {
  if (node.op_type != "Conv" || !HasFusedResidual(node) || input_index != 3 ||
      node.inputs.size() != 4)
    return false;
  for (size_t i = 0; i < 3; ++i)
    if (node.inputs[i] == node.inputs[3]) return false;
  return true;
}

// An inference BatchNormalization's X, which it reads nowhere else: the CPU kernel maps element
// i to element i with per-channel factors (runtime/cpu/kernels/batchnorm_cpu.cc), which it reads first.
bool IsBatchNormInput(const Node& node, size_t input_index) {
  if (node.op_type != "BatchNormalization" || input_index != 0) return false;
  StatusOr<int64_t> training = node.attrs.GetInt("training_mode", 0);
  if (!training.ok() || training.value() != 0) return false;
  for (size_t i = 1; i < node.inputs.size(); ++i)
    if (node.inputs[i] == node.inputs[0]) return false;
  return true;
}

}  // namespace

bool MayRunInPlace(const Graph& graph, const Node& node, size_t input_index) {
  if (node.outputs.size() != 1 || input_index >= node.inputs.size() ||
      (!IsTwoInputElementwise(node) && !IsActivationInput(node, input_index) &&
       !IsOnlyResidual(node, input_index) && !IsBatchNormInput(node, input_index)))
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
