#include "passes/infer_and_fold.h"

#include <algorithm>

#include "kernels/reference/reference_kernels.h"
#include "ops/op_registry.h"

namespace ios {
namespace {

// Folding a node materialises its outputs as weights in the plan; past this size we would
// rather compute at run time than bloat the plan.
constexpr int64_t kMaxFoldedBytes = 64 << 20;

bool AllInputsConstant(const Graph& graph, const Node& node) {
  for (ValueId id : node.inputs)
    if (id != kNoValue && !graph.values[id].constant) return false;
  return true;
}

int64_t OutputBytes(const Graph& graph, const Node& node) {
  int64_t bytes = 0;
  for (ValueId id : node.outputs) {
    if (id == kNoValue) continue;
    const Value& v = graph.values[id];
    bytes += NumElements(v.dims) * static_cast<int64_t>(DTypeSize(v.dtype));
  }
  return bytes;
}

// Evaluates `node` with its reference kernel and turns its outputs into constants.
Status FoldNode(Graph& graph, NodeId id) {
  Node& node = graph.nodes[id];
  std::vector<const Tensor*> inputs;
  for (ValueId in : node.inputs) inputs.push_back(in == kNoValue ? nullptr : &*graph.values[in].constant);
  std::vector<Tensor> outputs(node.outputs.size());
  IOS_RETURN_IF_ERROR(EvaluateReference(node, inputs, &outputs)
                          .WithContext(graph.source_path + ": while folding " + graph.Describe(id)));
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i] == kNoValue) continue;
    Value& value = graph.values[node.outputs[i]];
    // The kernel's result must agree with shape inference; a mismatch is an ios bug.
    if (value.dtype != outputs[i].dtype() || value.dims != outputs[i].dims()) {
      return Internal(graph.source_path + ": folding " + graph.Describe(id) + " produced " +
                      DTypeName(outputs[i].dtype()) + DimsToString(outputs[i].dims()) +
                      " but shape inference says " + DTypeName(value.dtype) +
                      DimsToString(value.dims));
    }
    value.constant = std::move(outputs[i]);
  }
  node.dead = true;
  return Status::Ok();
}

// Shape needs only its input's dimensions, which are static once the batch is fixed, so it
// folds even when the input is computed at run time. That is what makes the exporters' shape
// subgraphs disappear.
void FoldShape(Graph& graph, NodeId id) {
  Node& node = graph.nodes[id];
  const Dims& dims = graph.values[node.inputs[0]].dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  auto clamp_axis = [rank](int64_t axis) {
    if (axis < 0) axis += rank;
    return std::min(std::max<int64_t>(axis, 0), rank);
  };
  auto start = node.attrs.GetInt("start", 0);
  auto end = node.attrs.GetInt("end", rank);
  int64_t first = clamp_axis(start.ok() ? start.value() : 0);
  int64_t last = clamp_axis(end.ok() ? end.value() : rank);
  std::vector<int64_t> values;
  for (int64_t i = first; i < last; ++i) values.push_back(dims[i]);
  Value& out = graph.values[node.outputs[0]];
  out.constant = Tensor::FromInt64(values, {static_cast<int64_t>(values.size())});
  node.dead = true;
}

}  // namespace

Status InferShapesAndFoldConstants(Graph& graph, FoldStats* stats) {
  IOS_ASSIGN_OR_RETURN(std::vector<NodeId> order, graph.TopologicalOrder());
  for (NodeId id : order) {
    IOS_RETURN_IF_ERROR(InferNode(graph, id));
    const Node& node = graph.nodes[id];
    if (node.op_type == "Shape" && node.outputs.size() == 1 && node.outputs[0] != kNoValue) {
      FoldShape(graph, id);
      if (stats) ++stats->nodes_folded;
      continue;
    }
    bool foldable = AllInputsConstant(graph, node) && FindReferenceKernel(node.op_type) &&
                    OutputBytes(graph, node) <= kMaxFoldedBytes;
    if (!foldable) continue;
    IOS_RETURN_IF_ERROR(FoldNode(graph, id));
    if (stats) ++stats->nodes_folded;
  }
  graph.Compact();
  return Status::Ok();
}

}  // namespace ios
