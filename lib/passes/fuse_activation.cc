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

// SiLU as exporters write it: y = Mul(x, Sigmoid(x)) (either operand order), x a float32 output
// of a node that `carries` accepts (no fused activation yet) that only the Sigmoid and the Mul
// read, the Sigmoid's output read by the Mul alone. Fuses it into that node; true when it did.
bool FuseSilu(Graph& graph, NodeId sigmoid_id, bool (*carries)(const Node&)) {
  Node& sigmoid = graph.nodes[sigmoid_id];
  if (sigmoid.dead || sigmoid.op_type != "Sigmoid" || sigmoid.inputs.size() != 1 ||
      sigmoid.inputs[0] == kNoValue || sigmoid.outputs.size() != 1)
    return false;
  const ValueId x_id = sigmoid.inputs[0];
  const ValueId gate_id = sigmoid.outputs[0];
  const Value& x = graph.values[x_id];
  const Value& gate = graph.values[gate_id];
  if (x.producer == kNoNode || x.is_graph_output || x.dtype != DType::kFloat32 ||
      x.consumers.size() != 2 || gate.is_graph_output || gate.consumers.size() != 1)
    return false;
  Node& mul = graph.nodes[gate.consumers[0]];
  const bool operands = mul.inputs.size() == 2 && ((mul.inputs[0] == x_id && mul.inputs[1] == gate_id) ||
                                                   (mul.inputs[0] == gate_id && mul.inputs[1] == x_id));
  if (mul.dead || mul.op_type != "Mul" || !operands || mul.outputs.size() != 1) return false;
  if (x.consumers[0] != sigmoid_id && x.consumers[1] != sigmoid_id) return false;
  Node& conv = graph.nodes[x.producer];
  if (!carries(conv)) return false;
  SetFusedActivation(conv.attrs, Activation{ActivationKind::kSilu});
  conv.outputs[0] = mul.outputs[0];
  sigmoid.dead = true;
  mul.dead = true;
  return true;
}

// Whether `node` is a Conv without a fused activation.
bool IsPlainConv(const Node& node) {
  return node.op_type == "Conv" && GetFusedActivation(node.attrs).kind == ActivationKind::kNone;
}

// Whether `node` is a ConvTranspose with one output and no fused activation.
bool IsPlainConvTranspose(const Node& node) {
  return !node.dead && node.op_type == "ConvTranspose" && node.outputs.size() == 1 &&
         GetFusedActivation(node.attrs).kind == ActivationKind::kNone;
}

// Whether `node` is an inference BatchNormalization with one output and no fused activation.
bool IsPlainInferenceBatchNorm(const Node& node) {
  if (node.dead || node.op_type != "BatchNormalization" || node.outputs.size() != 1 ||
      GetFusedActivation(node.attrs).kind != ActivationKind::kNone)
    return false;
  StatusOr<int64_t> training = node.attrs.GetInt("training_mode", 0);
  return training.ok() && training.value() == 0;
}

// Fuses each activation into the node that computes its float32 input, when that input has no
// other reader and `carries` accepts the node. Uses must be current; returns the number fused.
int FuseActivationsIntoProducers(Graph& graph, bool (*carries)(const Node&)) {
  int fused = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    Node& act_node = graph.nodes[n];
    if (act_node.dead || act_node.inputs.empty() || act_node.inputs[0] == kNoValue) continue;
    const Value& x = graph.values[act_node.inputs[0]];
    if (x.producer == kNoNode || x.consumers.size() != 1 || x.is_graph_output ||
        x.dtype != DType::kFloat32)
      continue;
    Node& producer = graph.nodes[x.producer];
    if (!carries(producer)) continue;
    auto act = ActivationOf(graph, act_node);
    if (!act) continue;
    SetFusedActivation(producer.attrs, *act);
    producer.outputs[0] = act_node.outputs[0];
    act_node.dead = true;
    ++fused;
    graph.RebuildUses();
  }
  return fused;
}

// SiLUs, then the other activations, into the nodes `carries` accepts.
int FuseSilusAndActivations(Graph& graph, bool (*carries)(const Node&)) {
  graph.RebuildUses();
  int fused = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (!FuseSilu(graph, static_cast<NodeId>(n), carries)) continue;
    ++fused;
    graph.RebuildUses();
  }
  fused += FuseActivationsIntoProducers(graph, carries);
  graph.Compact();
  return fused;
}

}  // namespace

int FuseBatchNormActivations(Graph& graph) {
  graph.RebuildUses();
  const int fused = FuseActivationsIntoProducers(graph, IsPlainInferenceBatchNorm);
  graph.Compact();
  return fused;
}

int FuseConvActivations(Graph& graph) { return FuseSilusAndActivations(graph, IsPlainConv); }

int FuseConvTransposeActivations(Graph& graph) {
  return FuseSilusAndActivations(graph, IsPlainConvTranspose);
}

}  // namespace ios
