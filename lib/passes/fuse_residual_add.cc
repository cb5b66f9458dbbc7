#include "passes/fuse_residual_add.h"

#include <vector>

#include "ir/fused_activation.h"

namespace ios {
namespace {

// The conv producing `value` when it can take a residual: a Conv of at most three inputs, no
// fused activation, whose float32 output only `add` reads.
NodeId FusableConv(const Graph& graph, ValueId value, NodeId add) {
  if (value == kNoValue) return kNoNode;
  const Value& v = graph.values[value];
  if (v.producer == kNoNode || v.is_graph_output || v.dtype != DType::kFloat32 ||
      v.consumers.size() != 1 || v.consumers[0] != add)
    return kNoNode;
  const Node& conv = graph.nodes[v.producer];
  if (conv.dead || conv.op_type != "Conv" || conv.inputs.size() > 3 || conv.outputs.size() != 1 ||
      conv.outputs[0] != value || GetFusedActivation(conv.attrs).kind != ActivationKind::kNone ||
      conv.attrs.Has(kFusedResidualAttr))
    return kNoNode;
  return v.producer;
}

// The nodes that compute something `node` reads, directly or through other nodes, by id.
std::vector<bool> Ancestors(const Graph& graph, NodeId node) {
  std::vector<bool> ancestor(graph.nodes.size(), false);
  std::vector<NodeId> stack = {node};
  while (!stack.empty()) {
    const NodeId current = stack.back();
    stack.pop_back();
    for (ValueId in : graph.nodes[current].inputs) {
      if (in == kNoValue) continue;
      const NodeId producer = graph.values[in].producer;
      if (producer == kNoNode || ancestor[static_cast<size_t>(producer)]) continue;
      ancestor[static_cast<size_t>(producer)] = true;
      stack.push_back(producer);
    }
  }
  return ancestor;
}

// Whether fusing R into `conv` orders little that the graph did not: nothing when R is a graph
// input or computed by one of the conv's ancestors (ResNet's identity shortcut); only R's
// producer before the conv when that producer reads nothing but graph inputs, constants and
// values of the conv's ancestors (ResNet's projection shortcut: a 1x1 conv of the block's
// input), which may then still run beside every op before the conv. A longer independent branch
// (NasNet's and RandWire's aggregations) could run side by side with the conv's own: its Add
// stays for the IOS search.
bool FusionOrdersLittle(const Graph& graph, ValueId residual, NodeId conv) {
  const std::vector<bool> ancestor = Ancestors(graph, conv);
  // Computed before the conv: by one of its ancestors, or by no node (a graph input).
  auto before_conv = [&](NodeId producer) {
    return producer == kNoNode || ancestor[static_cast<size_t>(producer)];
  };
  const NodeId producer = graph.values[residual].producer;
  if (before_conv(producer)) return true;
  for (ValueId in : graph.nodes[producer].inputs)
    if (in != kNoValue && !before_conv(graph.values[in].producer)) return false;
  return true;
}

}  // namespace

int FuseConvResidualAdds(Graph& graph) {
  graph.RebuildUses();
  StatusOr<std::vector<NodeId>> order = graph.TopologicalOrder();
  if (!order.ok()) return 0;  // the plan's checks report the cycle
  std::vector<size_t> position(graph.nodes.size(), 0);
  for (size_t i = 0; i < order->size(); ++i) position[static_cast<size_t>((*order)[i])] = i;
  int fused = 0;
  for (NodeId id : order.value()) {
    Node& add = graph.nodes[id];
    const bool binary_sum = add.op_type == "Sum" && add.inputs.size() == 2;
    if (add.dead || (add.op_type != "Add" && !binary_sum) || add.inputs.size() != 2 ||
        add.outputs.size() != 1 || add.inputs[0] == add.inputs[1])
      continue;
    const Value& out = graph.values[add.outputs[0]];
    bool shapes_match = out.dtype == DType::kFloat32 && out.has_shape;
    for (ValueId in : add.inputs) {
      if (in == kNoValue || graph.values[in].constant || graph.values[in].dims != out.dims ||
          graph.values[in].dtype != DType::kFloat32)
        shapes_match = false;
    }
    if (!shapes_match) continue;
    // When both operands could (two convs of the same input), the later conv takes the
    // other's output. (A conv whose R is computed by one of its ancestors never competes: that
    // ancestor's output has a reader on the way to the conv besides the Add.)
    NodeId conv_id = kNoNode;
    size_t residual = 0;
    for (size_t i = 0; i < 2; ++i) {
      const NodeId candidate = FusableConv(graph, add.inputs[i], id);
      if (candidate == kNoNode || !FusionOrdersLittle(graph, add.inputs[1 - i], candidate))
        continue;
      if (conv_id == kNoNode ||
          position[static_cast<size_t>(candidate)] > position[static_cast<size_t>(conv_id)]) {
        conv_id = candidate;
        residual = 1 - i;
      }
    }
    if (conv_id == kNoNode) continue;
    Node& conv = graph.nodes[conv_id];
    conv.inputs.resize(3, kNoValue);  // an absent bias stays absent
    conv.inputs.push_back(add.inputs[residual]);
    conv.attrs.Set(kFusedResidualAttr, int64_t{1});
    conv.outputs[0] = add.outputs[0];
    add.dead = true;
    ++fused;
    graph.RebuildUses();
  }
  graph.Compact();
  return fused;
}

}  // namespace ios
