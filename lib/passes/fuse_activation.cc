#include "passes/fuse_activation.h"

#include <optional>

#include "ir/fused_activation.h"

namespace ios {
namespace {

// The activation a node computes, with its parameters resolved; nullopt when it cannot be
// expressed as a fused epilogue (e.g. Clip with run-time bounds).
std::optional<Activation> ActivationOf(const Graph& graph, const Node& node) {
  std::optional<ActivationKind> kind = ActivationKindFromOpType(node.op_type);
  if (!kind || !ConvFusesActivation(*kind)) return std::nullopt;
  const Tensor* bounds[2] = {nullptr, nullptr};
  if (node.op_type == "Clip" && node.opset >= 11) {
    for (size_t i = 1; i < node.inputs.size() && i < 3; ++i) {
      if (node.inputs[i] == kNoValue) continue;
      const Value& bound = graph.values[node.inputs[i]];
      if (!bound.constant) return std::nullopt;
      bounds[i - 1] = &*bound.constant;
    }
  }
  StatusOr<Activation> act = ActivationOfNode(node, bounds[0], bounds[1]);
  if (!act.ok()) return std::nullopt;
  return *act;
}

}  // namespace

int FuseConvActivations(Graph& graph) {
  graph.RebuildUses();
  int fused = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    Node& act_node = graph.nodes[n];
    if (act_node.dead || act_node.inputs.empty() || act_node.inputs[0] == kNoValue) continue;
    const Value& x = graph.values[act_node.inputs[0]];
    if (x.producer == kNoNode || x.consumers.size() != 1 || x.is_graph_output) continue;
    Node& conv = graph.nodes[x.producer];
    if (conv.op_type != "Conv" || GetFusedActivation(conv.attrs).kind != ActivationKind::kNone)
      continue;
    if (x.dtype != DType::kFloat32) continue;
    auto act = ActivationOf(graph, act_node);
    if (!act) continue;
    SetFusedActivation(conv.attrs, *act);
    conv.outputs[0] = act_node.outputs[0];
    act_node.dead = true;
    ++fused;
    graph.RebuildUses();
  }
  graph.Compact();
  return fused;
}

}  // namespace ios
