#include "passes/reshape_to_flatten.h"

#include <optional>
#include <vector>

namespace ios {
namespace {

int64_t Product(const Dims& dims, size_t begin, size_t end) {
  int64_t product = 1;
  for (size_t i = begin; i < end; ++i) product *= dims[i];
  return product;
}

// The Flatten axis that gives `out` from `in`, or nullopt.
std::optional<int64_t> FlattenAxis(const Dims& in, const Dims& out) {
  if (out.size() != 2) return std::nullopt;
  std::vector<int64_t> fits;
  for (size_t k = 0; k <= in.size(); ++k)
    if (Product(in, 0, k) == out[0] && Product(in, k, in.size()) == out[1])
      fits.push_back(static_cast<int64_t>(k));
  if (fits.empty()) return std::nullopt;
  for (int64_t k : fits)
    if (k == 1) return k;
  return fits.front();
}

}  // namespace

int ReshapeToFlatten(Graph& graph) {
  int replaced = 0;
  for (Node& node : graph.nodes) {
    if (node.dead || node.op_type != "Reshape" || node.inputs.size() != 2 ||
        node.outputs.size() != 1 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue)
      continue;
    const Value& x = graph.values[node.inputs[0]];
    const Value& shape = graph.values[node.inputs[1]];
    const Value& y = graph.values[node.outputs[0]];
    if (!shape.constant || !x.has_shape || !y.has_shape) continue;
    const std::optional<int64_t> axis = FlattenAxis(x.dims, y.dims);
    if (!axis) continue;
    node.op_type = "Flatten";
    node.inputs = {node.inputs[0]};
    node.attrs = AttributeMap();
    node.attrs.Set("axis", *axis);
    ++replaced;
  }
  graph.RebuildUses();
  graph.Compact();
  return replaced;
}

}  // namespace ios
