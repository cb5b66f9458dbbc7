#include "runtime/cpu/kernels/cpu_kernel.h"

#include <utility>

#include "runtime/node_types.h"

namespace ios {

CpuKernelContext MakeCpuKernelContext(const Graph& graph, const Node& node) {
  NodeTypes types = GatherNodeTypes(graph, node);
  CpuKernelContext context;
  context.node = types.node;
  context.input_types = std::move(types.input_types);
  context.output_types = std::move(types.output_types);
  context.constants = std::move(types.constants);
  for (ValueId in : node.inputs)
    context.input_layouts.push_back(in == kNoValue ? Layout::kRowMajor : graph.values[in].layout);
  for (ValueId out : node.outputs)
    context.output_layouts.push_back(out == kNoValue ? Layout::kRowMajor
                                                     : graph.values[out].layout);
  return context;
}

bool CpuKernelContext::any_non_row_major() const {
  for (Layout layout : input_layouts)
    if (layout != Layout::kRowMajor) return true;
  for (Layout layout : output_layouts)
    if (layout != Layout::kRowMajor) return true;
  return false;
}

bool CpuKernelContext::any_channels_blocked() const {
  for (Layout layout : input_layouts)
    if (layout == Layout::kChannelsBlocked8) return true;
  for (Layout layout : output_layouts)
    if (layout == Layout::kChannelsBlocked8) return true;
  return false;
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
