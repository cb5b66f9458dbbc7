#include "passes/fuse_hard_swish.h"

#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "passes/pattern_match.h"

namespace ios {
namespace {

constexpr float kSixth = 1.0f / 6.0f;

// Whether `node` is a Clip to [lo, hi]: attributes before opset 11, constant inputs since.
bool ClipsTo(const Graph& graph, const Node& node, double lo, double hi) {
  if (node.op_type != "Clip") return false;
  if (node.opset < 11) {
    const float inf = std::numeric_limits<float>::infinity();
    StatusOr<float> min = node.attrs.GetFloat("min", -inf);
    StatusOr<float> max = node.attrs.GetFloat("max", inf);
    return min.ok() && max.ok() && min.value() == lo &&
           std::fabs(max.value() - hi) <= 1e-5 * std::fabs(hi);
  }
  return node.inputs.size() == 3 && node.inputs[1] != kNoValue && node.inputs[2] != kNoValue &&
         IsScalarNear(graph, node.inputs[1], lo) && IsScalarNear(graph, node.inputs[2], hi);
}

// The output of ReLU6(t), starting at t's sole reader; appends its nodes to `nodes`.
std::optional<ValueId> MatchRelu6(const Graph& graph, ValueId t, std::vector<NodeId>* nodes) {
  const Value& value = graph.values[t];
  if (value.is_graph_output || value.consumers.size() != 1) return std::nullopt;
  const NodeId first = value.consumers[0];
  const Node& node = graph.nodes[first];
  if (node.dead || node.outputs.size() != 1) return std::nullopt;
  if (ClipsTo(graph, node, 0.0, 6.0) && node.inputs[0] == t) {
    nodes->push_back(first);
    return node.outputs[0];
  }
  // Max(t, 0) then Min(., 6), or Min(t, 6) then Max(., 0).
  const bool max_first = node.op_type == "Max";
  if (!max_first && node.op_type != "Min") return std::nullopt;
  const std::optional<ValueId> other = OtherInput(node, t);
  if (!other || !IsScalarNear(graph, *other, max_first ? 0.0 : 6.0)) return std::nullopt;
  const ValueId mid = node.outputs[0];
  const std::optional<NodeId> second = SoleReaderOfType(graph, mid, max_first ? "Min" : "Max");
  if (!second) return std::nullopt;
  const std::optional<ValueId> bound = OtherInput(graph.nodes[*second], mid);
  if (!bound || !IsScalarNear(graph, *bound, max_first ? 6.0 : 0.0) ||
      graph.nodes[*second].outputs.size() != 1)
    return std::nullopt;
  nodes->insert(nodes->end(), {first, *second});
  return graph.nodes[*second].outputs[0];
}

// The sole reader of `value` when it divides it by 6 or multiplies it by 1/6.
std::optional<NodeId> SixthOf(const Graph& graph, ValueId value) {
  if (const std::optional<NodeId> div = SoleReaderOfType(graph, value, "Div")) {
    const Node& node = graph.nodes[*div];
    if (node.inputs.size() == 2 && node.inputs[0] == value && node.inputs[1] != value &&
        IsScalarNear(graph, node.inputs[1], 6.0))
      return div;
    return std::nullopt;
  }
  if (const std::optional<NodeId> mul = SoleReaderOfType(graph, value, "Mul")) {
    const std::optional<ValueId> other = OtherInput(graph.nodes[*mul], value);
    if (other && IsScalarNear(graph, *other, 1.0 / 6.0)) return mul;
  }
  return std::nullopt;
}

// Turns `last` into `op_type`(x) (with HardSigmoid's attributes) and kills `others`.
void Replace(Graph& graph, NodeId last, const std::vector<NodeId>& others, ValueId x,
             const char* op_type) {
  for (NodeId id : others) graph.nodes[id].dead = true;
  Node& node = graph.nodes[last];
  node.op_type = op_type;
  node.inputs = {x};
  node.attrs = AttributeMap();
  if (node.op_type == "HardSigmoid") {
    node.attrs.Set("alpha", kSixth);
    node.attrs.Set("beta", 0.5f);
  }
}

// Whether `output` may take `x`'s place as an elementwise result: float32, x's shape.
bool SameShapeFloat(const Graph& graph, ValueId x, ValueId output) {
  const Value& in = graph.values[x];
  return in.dtype == DType::kFloat32 && in.has_shape && graph.values[output].dims == in.dims;
}

// From an Add of x and 3: ReLU6(x + 3) / 6 or x * ReLU6(x + 3) / 6. True when it fused; a
// HardSigmoid made is added to `hard_sigmoids`.
bool FuseFromAdd(Graph& graph, NodeId add, std::set<NodeId>* hard_sigmoids) {
  const Node& node = graph.nodes[add];
  if (node.outputs.size() != 1) return false;
  const std::optional<ValueId> x = OperandBesideScalar(graph, node, 3.0);
  if (!x || graph.values[*x].constant) return false;
  std::vector<NodeId> nodes = {add};
  const std::optional<ValueId> relu6 = MatchRelu6(graph, node.outputs[0], &nodes);
  if (!relu6) return false;
  if (const std::optional<NodeId> sixth = SixthOf(graph, *relu6)) {
    if (!SameShapeFloat(graph, *x, graph.nodes[*sixth].outputs[0])) return false;
    Replace(graph, *sixth, nodes, *x, "HardSigmoid");
    hard_sigmoids->insert(*sixth);
    return true;
  }
  // x * ReLU6(x + 3), then / 6.
  if (graph.nodes[add].opset < 14) return false;
  const std::optional<NodeId> times_x = SoleReaderOfType(graph, *relu6, "Mul");
  if (!times_x) return false;
  const std::optional<ValueId> other = OtherInput(graph.nodes[*times_x], *relu6);
  if (!other || *other != *x) return false;
  const std::optional<NodeId> sixth = SixthOf(graph, graph.nodes[*times_x].outputs[0]);
  if (!sixth || !SameShapeFloat(graph, *x, graph.nodes[*sixth].outputs[0])) return false;
  nodes.push_back(*times_x);
  Replace(graph, *sixth, nodes, *x, "HardSwish");
  return true;
}

// From a HardSigmoid(x; 1/6, 0.5): x * HardSigmoid(x). True when it fused (the Mul becomes the
// HardSwish, the HardSigmoid dies).
bool FuseFromHardSigmoid(Graph& graph, NodeId hard_sigmoid) {
  const Node& node = graph.nodes[hard_sigmoid];
  if (node.opset < 14 || node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  StatusOr<float> alpha = node.attrs.GetFloat("alpha", 0.2f);
  StatusOr<float> beta = node.attrs.GetFloat("beta", 0.5f);
  if (!alpha.ok() || !beta.ok() || std::fabs(alpha.value() - kSixth) > 1e-5f * kSixth ||
      beta.value() != 0.5f)
    return false;
  const ValueId x = node.inputs[0];
  const std::optional<NodeId> mul = SoleReaderOfType(graph, node.outputs[0], "Mul");
  if (!mul) return false;
  const std::optional<ValueId> other = OtherInput(graph.nodes[*mul], node.outputs[0]);
  if (!other || *other != x || !SameShapeFloat(graph, x, graph.nodes[*mul].outputs[0]))
    return false;
  Replace(graph, *mul, {hard_sigmoid}, x, "HardSwish");
  return true;
}

}  // namespace

int FuseHardSwish(Graph& graph) {
  graph.RebuildUses();
  int fused = 0;
  // The Add sweep first: the HardSigmoids it makes (each now its last node) may become
  // HardSwish in the second sweep, which then makes no new node.
  std::set<NodeId> made;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].dead || graph.nodes[n].op_type != "Add") continue;
    if (!FuseFromAdd(graph, static_cast<NodeId>(n), &made)) continue;
    ++fused;
    graph.RebuildUses();
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].dead || graph.nodes[n].op_type != "HardSigmoid") continue;
    if (!FuseFromHardSigmoid(graph, static_cast<NodeId>(n))) continue;
    if (made.count(static_cast<NodeId>(n)) == 0) ++fused;
    graph.RebuildUses();
  }
  graph.Compact();
  return fused;
}

}  // namespace ios
