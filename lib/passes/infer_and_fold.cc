#include "passes/infer_and_fold.h"

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

}  // namespace

Status InferShapesAndFoldConstants(Graph& graph, FoldStats* stats) {
  IOS_ASSIGN_OR_RETURN(std::vector<NodeId> order, graph.TopologicalOrder());
  for (NodeId id : order) {
    IOS_RETURN_IF_ERROR(InferNode(graph, id));
    const Node& node = graph.nodes[id];
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
