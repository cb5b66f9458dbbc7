#include "passes/reduce_to_global_pool.h"

#include <string>

#include "ops/reduce_params.h"

namespace ios {
namespace {

// Whether the reduction `node` reduces exactly the spatial axes of its rank >= 3 input.
bool ReducesSpatialAxes(const Graph& graph, const Node& node) {
  if (node.inputs.empty() || node.inputs[0] == kNoValue || node.outputs.size() != 1) return false;
  const Value& x = graph.values[node.inputs[0]];
  if (!x.has_shape || x.dtype != DType::kFloat32 || x.dims.size() < 3) return false;
  const bool axes_present = node.inputs.size() > 1 && node.inputs[1] != kNoValue;
  const Tensor* axes = nullptr;
  if (axes_present) {
    const Value& value = graph.values[node.inputs[1]];
    if (!value.constant) return false;
    axes = &*value.constant;
  }
  StatusOr<ReduceParams> params = ParseReduce(node, x.dims, axes_present, axes);
  if (!params.ok() || params.value().identity) return false;
  const std::vector<bool>& reduced = params.value().reduced;
  for (size_t d = 0; d < reduced.size(); ++d)
    if (reduced[d] != (d >= 2)) return false;
  return true;
}

// Rewrites the reduction `id` into the global pool (and a Flatten when it drops the axes).
void Rewrite(Graph& graph, NodeId id, const char* pool_op) {
  const ValueId x = graph.nodes[id].inputs[0];
  const ValueId out = graph.nodes[id].outputs[0];
  const Dims in_dims = graph.values[x].dims;
  const bool keepdims = graph.values[out].dims.size() == in_dims.size();
  ValueId pooled = out;
  if (!keepdims) {
    Value value;
    value.name = graph.values[out].name + "/pooled";
    value.dtype = DType::kFloat32;
    value.dims = Dims(in_dims.size(), 1);
    value.dims[0] = in_dims[0];
    value.dims[1] = in_dims[1];
    value.has_shape = true;
    pooled = graph.AddValue(std::move(value));
    Node flatten;
    flatten.name = graph.nodes[id].name + "/flatten";
    flatten.op_type = "Flatten";
    flatten.opset = graph.nodes[id].opset;
    flatten.inputs = {pooled};
    flatten.outputs = {out};
    flatten.attrs.Set("axis", int64_t{1});
    graph.AddNode(std::move(flatten));
  }
  Node& node = graph.nodes[id];  // AddNode may have moved the node vector
  node.op_type = pool_op;
  node.inputs = {x};
  node.outputs = {pooled};
  node.attrs = AttributeMap();
}

}  // namespace

int ReduceToGlobalPool(Graph& graph) {
  int replaced = 0;
  const size_t count = graph.nodes.size();
  for (size_t n = 0; n < count; ++n) {
    const Node& node = graph.nodes[n];
    if (node.dead) continue;
    const char* pool_op = node.op_type == "ReduceMean"  ? "GlobalAveragePool"
                          : node.op_type == "ReduceMax" ? "GlobalMaxPool"
                                                        : nullptr;
    if (pool_op == nullptr || !ReducesSpatialAxes(graph, node)) continue;
    Rewrite(graph, static_cast<NodeId>(n), pool_op);
    ++replaced;
  }
  graph.RebuildUses();
  graph.Compact();
  return replaced;
}

}  // namespace ios
