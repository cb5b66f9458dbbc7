#include "passes/fuse_activation.h"

#include <limits>
#include <optional>

#include "ir/fused_activation.h"

namespace ios {
namespace {

// The activation a node computes, with its parameters resolved; nullopt when it cannot be
// expressed as a fused epilogue (e.g. Clip with run-time bounds).
std::optional<Activation> ActivationOf(const Graph& graph, const Node& node) {
  auto kind = ActivationKindFromOpType(node.op_type);
  if (!kind) return std::nullopt;
  Activation act;
  act.kind = *kind;
  auto get = [&](const char* name, float fallback) -> std::optional<float> {
    auto v = node.attrs.GetFloat(name, fallback);
    return v.ok() ? std::optional<float>(v.value()) : std::nullopt;
  };
  std::optional<float> alpha, beta;
  switch (*kind) {
    case ActivationKind::kLeakyRelu: alpha = get("alpha", 0.01f); beta = 0.f; break;
    case ActivationKind::kElu: alpha = get("alpha", 1.0f); beta = 0.f; break;
    case ActivationKind::kHardSigmoid: alpha = get("alpha", 0.2f); beta = get("beta", 0.5f); break;
    case ActivationKind::kClip: {
      if (node.opset < 11) {
        alpha = get("min", std::numeric_limits<float>::lowest());
        beta = get("max", std::numeric_limits<float>::max());
        break;
      }
      alpha = std::numeric_limits<float>::lowest();
      beta = std::numeric_limits<float>::max();
      for (size_t i = 1; i < node.inputs.size() && i < 3; ++i) {
        if (node.inputs[i] == kNoValue) continue;
        const Value& bound = graph.values[node.inputs[i]];
        if (!bound.constant || bound.constant->num_elements() != 1 ||
            bound.constant->dtype() != DType::kFloat32)
          return std::nullopt;
        (i == 1 ? alpha : beta) = bound.constant->data<float>()[0];
      }
      break;
    }
    default: alpha = 0.f; beta = 0.f; break;
  }
  if (!alpha || !beta) return std::nullopt;
  act.alpha = *alpha;
  act.beta = *beta;
  return act;
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
