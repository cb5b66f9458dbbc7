#include "passes/fuse_gelu.h"

#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "passes/pattern_match.h"

namespace ios {
namespace {

// A recognised GELU: Gelu(x) is what `output` holds; `nodes` compute it, `last` writes `output`.
struct GeluMatch {
  ValueId x = kNoValue;
  ValueId output = kNoValue;
  std::vector<NodeId> nodes;
  NodeId last = kNoNode;
};

// Finishes a match from the factor a = 1 + Erf(..) (or 1 + Tanh(..)) of x: the two Mul nodes
// that multiply x, a and 0.5 in any grouping: (x * a) * 0.5, (a * 0.5) * x, or (x * 0.5) * a.
bool MatchHalfProduct(const Graph& graph, ValueId x, ValueId a, GeluMatch* match) {
  const std::optional<NodeId> m1 = SoleReaderOfType(graph, a, "Mul");
  if (!m1) return false;
  const std::optional<ValueId> other = OtherInput(graph.nodes[*m1], a);
  if (!other) return false;
  const ValueId m1_out = graph.nodes[*m1].outputs[0];
  if (*other == x || IsScalarNear(graph, *other, 0.5)) {
    // (x * a) * 0.5 or (a * 0.5) * x: the second Mul brings the missing factor.
    const std::optional<NodeId> m2 = SoleReaderOfType(graph, m1_out, "Mul");
    if (!m2) return false;
    const std::optional<ValueId> last = OtherInput(graph.nodes[*m2], m1_out);
    const bool completes = last && (*other == x ? IsScalarNear(graph, *last, 0.5) : *last == x);
    if (!completes) return false;
    match->nodes.insert(match->nodes.end(), {*m1, *m2});
    match->last = *m2;
    match->output = graph.nodes[*m2].outputs[0];
    return true;
  }
  // (x * 0.5) * a: the other operand is x * 0.5, read by m1 alone.
  const std::optional<NodeId> half = ProducerOfType(graph, *other, "Mul");
  if (!half || !OnlyReadBy(graph, *other, *m1)) return false;
  const std::optional<ValueId> half_of = OperandBesideScalar(graph, graph.nodes[*half], 0.5);
  if (!half_of || *half_of != x) return false;
  match->nodes.insert(match->nodes.end(), {*half, *m1});
  match->last = *m1;
  match->output = m1_out;
  return true;
}

// a = 1 + f, where f is the output of the Erf or Tanh node.
std::optional<ValueId> MatchOnePlus(const Graph& graph, ValueId f, GeluMatch* match) {
  const std::optional<NodeId> add = SoleReaderOfType(graph, f, "Add");
  if (!add) return std::nullopt;
  const std::optional<ValueId> other = OtherInput(graph.nodes[*add], f);
  if (!other || !IsScalarNear(graph, *other, 1.0)) return std::nullopt;
  match->nodes.push_back(*add);
  return graph.nodes[*add].outputs[0];
}

// Erf(x / sqrt(2)) or Erf(x * (1 / sqrt(2))), starting at the Erf node.
bool MatchErfForm(const Graph& graph, NodeId erf, GeluMatch* match) {
  const Node& node = graph.nodes[erf];
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  const ValueId scaled = node.inputs[0];
  if (!OnlyReadBy(graph, scaled, erf)) return false;
  std::optional<ValueId> x;
  std::optional<NodeId> scale = ProducerOfType(graph, scaled, "Div");
  if (scale) {
    x = OperandBesideScalar(graph, graph.nodes[*scale], std::sqrt(2.0), /*constant_second=*/true);
  } else if ((scale = ProducerOfType(graph, scaled, "Mul"))) {
    x = OperandBesideScalar(graph, graph.nodes[*scale], 1.0 / std::sqrt(2.0));
  }
  if (!x) return false;
  match->x = *x;
  match->nodes = {*scale, erf};
  const std::optional<ValueId> a = MatchOnePlus(graph, node.outputs[0], match);
  return a && MatchHalfProduct(graph, *x, *a, match);
}

// x^3 as Pow(x, 3), x * x * x or x * (x * x); `nodes` gets the nodes that compute it.
bool IsCubeOf(const Graph& graph, ValueId cube, ValueId x, std::vector<NodeId>* nodes) {
  if (const std::optional<NodeId> pow = ProducerOfType(graph, cube, "Pow")) {
    const Node& node = graph.nodes[*pow];
    if (node.inputs.size() != 2 || node.inputs[0] != x || !IsScalarNear(graph, node.inputs[1], 3.0))
      return false;
    nodes->push_back(*pow);
    return true;
  }
  const std::optional<NodeId> outer = ProducerOfType(graph, cube, "Mul");
  if (!outer) return false;
  const std::optional<ValueId> square = OtherInput(graph.nodes[*outer], x);
  if (!square) return false;
  const std::optional<NodeId> inner = ProducerOfType(graph, *square, "Mul");
  if (!inner || !OnlyReadBy(graph, *square, *outer)) return false;
  const Node& sq = graph.nodes[*inner];
  if (sq.inputs.size() != 2 || sq.inputs[0] != x || sq.inputs[1] != x) return false;
  nodes->insert(nodes->end(), {*inner, *outer});
  return true;
}

// Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)), starting at the Tanh node.
bool MatchTanhForm(const Graph& graph, NodeId tanh, GeluMatch* match) {
  const Node& node = graph.nodes[tanh];
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  const ValueId scaled = node.inputs[0];
  const std::optional<NodeId> scale = ProducerOfType(graph, scaled, "Mul");
  if (!scale || !OnlyReadBy(graph, scaled, tanh)) return false;
  const std::optional<ValueId> sum =
      OperandBesideScalar(graph, graph.nodes[*scale], std::sqrt(2.0 / std::acos(-1.0)));
  if (!sum) return false;
  const std::optional<NodeId> add = ProducerOfType(graph, *sum, "Add");
  if (!add || !OnlyReadBy(graph, *sum, *scale)) return false;
  const Node& add_node = graph.nodes[*add];
  if (add_node.inputs.size() != 2) return false;
  // Either operand of the Add may be x; the other is 0.044715 * x^3.
  for (int x_side = 0; x_side < 2; ++x_side) {
    const ValueId x = add_node.inputs[x_side];
    const ValueId term = add_node.inputs[1 - x_side];
    const std::optional<NodeId> times = ProducerOfType(graph, term, "Mul");
    if (!times || !OnlyReadBy(graph, term, *add)) continue;
    const std::optional<ValueId> cube = OperandBesideScalar(graph, graph.nodes[*times], 0.044715);
    if (!cube || !OnlyReadBy(graph, *cube, *times)) continue;
    std::vector<NodeId> nodes;
    if (!IsCubeOf(graph, *cube, x, &nodes)) continue;
    match->x = x;
    match->nodes = nodes;
    match->nodes.insert(match->nodes.end(), {*times, *add, *scale, tanh});
    const std::optional<ValueId> a = MatchOnePlus(graph, node.outputs[0], match);
    return a && MatchHalfProduct(graph, x, *a, match);
  }
  return false;
}

// The checks shared by both forms: float32 x, the output of x's shape, no node used twice.
bool Acceptable(const Graph& graph, const GeluMatch& match) {
  const Value& x = graph.values[match.x];
  if (x.dtype != DType::kFloat32 || graph.values[match.output].dims != x.dims) return false;
  const std::set<NodeId> distinct(match.nodes.begin(), match.nodes.end());
  return distinct.size() == match.nodes.size();
}

// Turns the match's last node into the Gelu node and removes the others.
void Replace(Graph& graph, const GeluMatch& match, bool tanh_form) {
  for (NodeId id : match.nodes)
    if (id != match.last) graph.nodes[id].dead = true;
  Node& gelu = graph.nodes[match.last];
  gelu.op_type = "Gelu";
  gelu.opset = 20;  // Gelu's first opset, whatever the model imports (the exporter handles it)
  gelu.inputs = {match.x};
  gelu.outputs = {match.output};
  gelu.attrs = AttributeMap();
  if (tanh_form) gelu.attrs.Set("approximate", std::string("tanh"));
}

}  // namespace

int FuseGelu(Graph& graph) {
  graph.RebuildUses();
  int fused = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.dead || (node.op_type != "Erf" && node.op_type != "Tanh")) continue;
    const bool tanh_form = node.op_type == "Tanh";
    GeluMatch match;
    const bool matched = tanh_form ? MatchTanhForm(graph, static_cast<NodeId>(n), &match)
                                   : MatchErfForm(graph, static_cast<NodeId>(n), &match);
    if (!matched || !Acceptable(graph, match)) continue;
    Replace(graph, match, tanh_form);
    ++fused;
    graph.RebuildUses();
  }
  graph.Compact();
  return fused;
}

}  // namespace ios
