#include "passes/gather_to_reshape.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "passes/pattern_match.h"

namespace ios {
namespace {

// Whether `indices` holds 0, 1, ..., n-1 in its stored order.
bool IsIota(const Tensor& indices) {
  if (indices.dtype() != DType::kInt64 && indices.dtype() != DType::kInt32) return false;
  const std::vector<int64_t> values = indices.ToInt64Vector();
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] != static_cast<int64_t>(i)) return false;
  return true;
}

bool TryGatherToReshape(Graph& graph, NodeId id) {
  const Node& gather = graph.nodes[id];
  if (gather.inputs.size() != 2 || gather.outputs.size() != 1 || gather.inputs[0] == kNoValue ||
      gather.inputs[1] == kNoValue)
    return false;
  const Value& data = graph.values[gather.inputs[0]];
  const Value& indices = graph.values[gather.inputs[1]];
  const Value& out = graph.values[gather.outputs[0]];
  if (!data.has_shape || !out.has_shape || !indices.constant) return false;
  for (int64_t dim : out.dims)
    if (dim <= 0) return false;
  StatusOr<int64_t> axis_attr = gather.attrs.GetInt("axis", 0);
  if (!axis_attr.ok()) return false;
  const int64_t rank = static_cast<int64_t>(data.dims.size());
  const int64_t axis = axis_attr.value() < 0 ? axis_attr.value() + rank : axis_attr.value();
  if (axis < 0 || axis >= rank || indices.constant->num_elements() != data.dims[axis] ||
      !IsIota(*indices.constant))
    return false;

  ValueId source = gather.inputs[0];
  const std::optional<NodeId> reshape = ProducerOfType(graph, source, "Reshape");
  if (reshape && OnlyReadBy(graph, source, id)) {
    source = graph.nodes[*reshape].inputs[0];
    graph.nodes[*reshape].dead = true;
  }
  const Dims dims = out.dims;
  const ValueId shape = graph.AddConstant(
      gather.name + "/shape", Tensor::FromInt64(dims, {static_cast<int64_t>(dims.size())}));
  Node& node = graph.nodes[id];
  node.op_type = "Reshape";
  node.inputs = {source, shape};
  node.attrs = AttributeMap();
  return true;
}

}  // namespace

int GatherToReshape(Graph& graph) {
  graph.RebuildUses();
  int replaced = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].dead || graph.nodes[n].op_type != "Gather") continue;
    if (!TryGatherToReshape(graph, static_cast<NodeId>(n))) continue;
    ++replaced;
    graph.RebuildUses();
  }
  graph.Compact();
  return replaced;
}

}  // namespace ios
