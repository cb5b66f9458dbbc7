#include "runtime/cpu/cpu_kernel.h"

namespace ios {

CpuKernelContext MakeCpuKernelContext(const Graph& graph, const Node& node) {
  CpuKernelContext context;
  context.node = &node;
  for (ValueId in : node.inputs) {
    if (in == kNoValue) {
      context.input_types.push_back(TensorType{});
      context.constants.push_back(nullptr);
      continue;
    }
    const Value& value = graph.values[in];
    context.input_types.push_back(TensorType{value.dtype, value.dims});
    context.constants.push_back(value.constant ? &*value.constant : nullptr);
  }
  for (ValueId out : node.outputs) {
    if (out == kNoValue) {
      context.output_types.push_back(TensorType{});
      continue;
    }
    context.output_types.push_back(TensorType{graph.values[out].dtype, graph.values[out].dims});
  }
  return context;
}

StatusOr<bool> IsFloat32Elementwise(const CpuKernelContext& context) {
  if (context.input_types.empty() || context.output_types.empty())
    return InvalidInput("needs an input and an output");
  const TensorType& x = context.input_types[0];
  if (x.dtype != DType::kFloat32) return false;
  if (context.output_types[0].dtype != DType::kFloat32 ||
      NumElements(context.output_types[0].dims) != NumElements(x.dims))
    return InvalidInput("output " + DimsToString(context.output_types[0].dims) +
                        " does not match input " + DimsToString(x.dims));
  return true;
}

}  // namespace ios
