#include "ops/node_reading.h"

namespace ios {

std::string NodeLabel(const Node& node) {
  return node.op_type + (node.name.empty() ? std::string() : " '" + node.name + "'") + ": ";
}

StatusOr<int64_t> NormalizeAxis(const Node& node, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return InvalidInput(NodeLabel(node) + "axis " + std::to_string(axis) +
                        " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

StatusOr<std::vector<int64_t>> ReadIntsInput(const Node& node, const Tensor& tensor,
                                             const char* what) {
  if (tensor.dtype() != DType::kInt64 && tensor.dtype() != DType::kInt32)
    return InvalidInput(NodeLabel(node) + what + " must be int64 or int32, not " +
                        DTypeName(tensor.dtype()));
  return tensor.ToInt64Vector();
}

}  // namespace ios
