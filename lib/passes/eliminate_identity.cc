#include "passes/eliminate_identity.h"

namespace ios {
namespace {

// Whether the Slice's steps (input 4 from opset 10; none before) are constant and positive.
bool HasPositiveSteps(const Graph& graph, const Node& node) {
  if (node.opset < 10 || node.inputs.size() < 5 || node.inputs[4] == kNoValue) return true;
  const Value& steps = graph.values[node.inputs[4]];
  if (!steps.constant) return false;
  for (int64_t step : steps.constant->ToInt64Vector())
    if (step <= 0) return false;
  return true;
}

// A shape op or Slice whose output has its input's dims: a copy.
bool KeepsDims(const Graph& graph, const Node& node) {
  const bool shape_op = node.op_type == "Reshape" || node.op_type == "Flatten" ||
                        node.op_type == "Squeeze" || node.op_type == "Unsqueeze";
  if (!shape_op && !(node.op_type == "Slice" && HasPositiveSteps(graph, node))) return false;
  if (node.outputs.size() != 1) return false;
  const Value& in = graph.values[node.inputs[0]];
  const Value& out = graph.values[node.outputs[0]];
  return in.has_shape && out.has_shape && in.dims == out.dims;
}

bool IsPassThrough(const Graph& graph, const Node& node) {
  if (node.op_type == "Identity") return true;
  if (node.op_type == "Concat") return node.inputs.size() == 1 && node.outputs.size() == 1;
  if (KeepsDims(graph, node)) return true;
  if (node.op_type != "Dropout") return false;
  // Shape inference rejects training-mode Dropout, so here it is a copy; its mask must be unused.
  if (node.outputs.size() > 1 && node.outputs[1] != kNoValue) {
    const Value& mask = graph.values[node.outputs[1]];
    if (!mask.consumers.empty() || mask.is_graph_output) return false;
  }
  return true;
}

}  // namespace

int EliminateIdentities(Graph& graph) {
  graph.RebuildUses();
  int removed = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    Node& node = graph.nodes[n];
    if (node.dead || node.inputs.empty() || node.inputs[0] == kNoValue ||
        !IsPassThrough(graph, node))
      continue;
    ValueId in = node.inputs[0];
    ValueId out = node.outputs[0];
    if (graph.values[out].is_graph_output) {
      // Keep the graph output's name: let the producer of `in` write `out` directly. That is only
      // possible when `in` is an intermediate that nothing else reads.
      Value& in_value = graph.values[in];
      if (in_value.is_graph_input || in_value.constant || in_value.is_graph_output ||
          in_value.consumers.size() != 1 || in_value.producer == kNoNode)
        continue;
      for (ValueId& o : graph.nodes[in_value.producer].outputs)
        if (o == in) o = out;
    } else {
      graph.ReplaceAllUses(out, in);
    }
    node.dead = true;
    ++removed;
    graph.RebuildUses();
  }
  graph.Compact();
  return removed;
}

}  // namespace ios
