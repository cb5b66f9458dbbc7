#include "runtime/strided_views.h"

#include "plan/tensor_views.h"

namespace ios {

bool NodeBatchStrides::any() const {
  for (int64_t s : inputs)
    if (s != 0) return true;
  for (int64_t s : outputs)
    if (s != 0) return true;
  return false;
}

std::vector<int64_t> BatchStridesOfValues(const Graph& graph, const MemoryPlan& memory) {
  std::vector<int64_t> strides(graph.values.size(), 0);
  for (const TensorPlacement& p : memory.placements) {
    if (p.view_of == kNoValue || p.pitch == 0) continue;
    const size_t element = DTypeSize(graph.values[p.value].dtype);
    if (element > 0) strides[p.value] = p.pitch / static_cast<int64_t>(element);
  }
  return strides;
}

StatusOr<NodeBatchStrides> BatchStridesOfNode(const Graph& graph, NodeId id,
                                              const std::vector<int64_t>& value_strides,
                                              const std::vector<bool>& slices_in_place,
                                              const KernelCapsTable& kernels) {
  const Node& node = graph.nodes[static_cast<size_t>(id)];
  NodeBatchStrides strides;
  auto stride_of = [&](ValueId value, bool is_output, size_t index) -> StatusOr<int64_t> {
    if (value == kNoValue || value_strides[value] == 0) return int64_t{0};
    if (IsSliceInPlace(node, slices_in_place, is_output, index)) return int64_t{0};
    if (!TakesStridedBatchSlice(graph, node, value, kernels))
      return Internal("the memory plan places '" + graph.values[value].name +
                      "' as a strided view, which the kernel of " + graph.Describe(id) +
                      " cannot take");
    return value_strides[value];
  };
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    IOS_ASSIGN_OR_RETURN(int64_t stride, stride_of(node.inputs[i], false, i));
    strides.inputs.push_back(stride);
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    IOS_ASSIGN_OR_RETURN(int64_t stride, stride_of(node.outputs[i], true, i));
    strides.outputs.push_back(stride);
  }
  return strides;
}

}  // namespace ios
