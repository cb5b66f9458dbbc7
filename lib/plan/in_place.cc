#include "plan/in_place.h"

#include <string>

namespace ios {

bool MayRunInPlace(const Graph& graph, const Node& node, size_t input_index) {
  static const char* const kOps[] = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Sum"};
  bool elementwise = false;
  for (const char* op : kOps) elementwise = elementwise || node.op_type == op;
  if (!elementwise || node.inputs.size() != 2 ||
      node.outputs.size() != 1 || input_index >= node.inputs.size())
    return false;
  const ValueId in = node.inputs[input_index];
  const ValueId out = node.outputs[0];
  if (in == kNoValue || out == kNoValue) return false;
  const Value& input = graph.values[in];
  const Value& output = graph.values[out];
  return !input.constant && input.has_shape && output.has_shape &&
         input.dtype == DType::kFloat32 && output.dtype == DType::kFloat32 &&
         input.dims == output.dims && input.layout == output.layout;
}

}  // namespace ios
