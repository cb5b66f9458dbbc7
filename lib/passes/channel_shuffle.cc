#include "passes/channel_shuffle.h"

#include <optional>
#include <string>
#include <vector>

#include "passes/pattern_match.h"

namespace ios {
namespace {

struct Shuffle {
  NodeId split;      // Reshape [N, C, H, W] -> [N, g, C/g, H, W]
  NodeId transpose;  // perm 0, 2, 1, 3, 4
  int64_t groups;    // g
};

// The shuffle that `merge` (a Reshape of a 5-D value back to 4-D) ends, if it is one.
std::optional<Shuffle> ShuffleEndedBy(const Graph& graph, NodeId merge) {
  const Node& last = graph.nodes[merge];
  if (last.inputs.empty() || last.inputs[0] == kNoValue || last.outputs.size() != 1) {
    return std::nullopt;
  }
  const std::optional<NodeId> transpose = ProducerOfType(graph, last.inputs[0], "Transpose");
  if (!transpose || !OnlyReadBy(graph, last.inputs[0], merge)) return std::nullopt;
  const Node& t = graph.nodes[*transpose];
  StatusOr<std::vector<int64_t>> perm = t.attrs.GetInts("perm", {});
  if (t.inputs.size() != 1 || !perm.ok() || perm.value() != std::vector<int64_t>{0, 2, 1, 3, 4})
    return std::nullopt;
  const std::optional<NodeId> split = ProducerOfType(graph, t.inputs[0], "Reshape");
  if (!split || !OnlyReadBy(graph, t.inputs[0], *transpose)) return std::nullopt;
  const Node& first = graph.nodes[*split];
  if (first.inputs.empty() || first.inputs[0] == kNoValue) return std::nullopt;
  const Value& x = graph.values[first.inputs[0]];
  const Value& middle = graph.values[t.inputs[0]];
  const Value& y = graph.values[last.outputs[0]];
  if (!x.has_shape || !middle.has_shape || !y.has_shape || x.dims.size() != 4 ||
      middle.dims.size() != 5 || y.dims != x.dims)
    return std::nullopt;
  const Dims& d = middle.dims;
  // [N, g, C/g, H, W]: the channels split in two, the other dims as they were.
  if (d[0] != x.dims[0] || d[1] * d[2] != x.dims[1] || d[3] != x.dims[2] || d[4] != x.dims[3] ||
      d[1] < 1 || d[2] < 1)
    return std::nullopt;
  return Shuffle{*split, *transpose, d[1]};
}

}  // namespace

int RewriteChannelShufflesAsGathers(Graph& graph) {
  graph.RebuildUses();
  int rewritten = 0;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes.size()); ++id) {
    if (graph.nodes[id].dead || graph.nodes[id].op_type != "Reshape") continue;
    const std::optional<Shuffle> shuffle = ShuffleEndedBy(graph, id);
    if (!shuffle) continue;
    const ValueId x = graph.nodes[shuffle->split].inputs[0];
    const int64_t channels = graph.values[x].dims[1];
    const int64_t per_group = channels / shuffle->groups;
    // Output channel j * g + i is input channel i * C/g + j.
    std::vector<int64_t> indices(static_cast<size_t>(channels));
    for (int64_t j = 0; j < per_group; ++j)
      for (int64_t i = 0; i < shuffle->groups; ++i)
        indices[static_cast<size_t>(j * shuffle->groups + i)] = i * per_group + j;
    Node& merge = graph.nodes[id];
    const ValueId table =
        graph.AddConstant(merge.name + "/shuffle_indices", Tensor::FromInt64(indices, {channels}));
    merge.op_type = "Gather";
    merge.inputs = {x, table};
    merge.attrs = AttributeMap();
    merge.attrs.Set("axis", int64_t{1});
    graph.nodes[shuffle->split].dead = true;
    graph.nodes[shuffle->transpose].dead = true;
    ++rewritten;
    graph.RebuildUses();
  }
  graph.Compact();
  return rewritten;
}

}  // namespace ios
