#include "passes/slices_to_split.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ios {
namespace {

struct SliceRange {
  NodeId node = kNoNode;
  int64_t axis = 0;
  int64_t start = 0;
  int64_t length = 0;
};

// A Slice parameter: the attribute before opset 10, a constant input since (nullopt when it is
// computed at run time, or when a required one is missing). An absent optional one is empty.
std::optional<std::vector<int64_t>> SliceList(const Graph& graph, const Node& node,
                                              const char* name, size_t input, bool required) {
  if (node.opset < 10) {
    if (!node.attrs.Has(name))
      return required ? std::nullopt : std::optional(std::vector<int64_t>{});
    StatusOr<std::vector<int64_t>> values = node.attrs.GetInts(name, {});
    return values.ok() ? std::optional(values.value()) : std::nullopt;
  }
  if (input >= node.inputs.size() || node.inputs[input] == kNoValue)
    return required ? std::nullopt : std::optional(std::vector<int64_t>{});
  const Value& value = graph.values[node.inputs[input]];
  if (!value.constant) return std::nullopt;
  return value.constant->ToInt64Vector();
}

// Where the Slice `id` cuts its input: one axis whose length changes, step 1 everywhere.
std::optional<SliceRange> RangeOf(const Graph& graph, NodeId id) {
  const Node& node = graph.nodes[id];
  if (node.inputs.empty() || node.inputs[0] == kNoValue || node.outputs.size() != 1)
    return std::nullopt;
  const Value& x = graph.values[node.inputs[0]];
  const Value& y = graph.values[node.outputs[0]];
  if (!x.has_shape || !y.has_shape || x.dims.size() != y.dims.size()) return std::nullopt;
  const auto starts = SliceList(graph, node, "starts", 1, true);
  const auto ends = SliceList(graph, node, "ends", 2, true);
  auto axes = SliceList(graph, node, "axes", 3, false);
  auto steps = node.opset < 10 ? std::optional(std::vector<int64_t>{})
                               : SliceList(graph, node, "steps", 4, false);
  if (!starts || !ends || !axes || !steps) return std::nullopt;
  const size_t n = starts->size();
  if (axes->empty())
    for (size_t i = 0; i < n; ++i) axes->push_back(static_cast<int64_t>(i));
  if (steps->empty()) steps->assign(n, 1);
  if (ends->size() != n || axes->size() != n || steps->size() != n) return std::nullopt;
  for (int64_t step : *steps)
    if (step != 1) return std::nullopt;
  std::optional<int64_t> cut;
  for (size_t d = 0; d < x.dims.size(); ++d) {
    if (x.dims[d] == y.dims[d]) continue;
    if (cut) return std::nullopt;
    cut = static_cast<int64_t>(d);
  }
  if (!cut) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(x.dims.size());
  for (size_t i = 0; i < n; ++i) {
    const int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
    if (axis != *cut) continue;
    const int64_t dim = x.dims[axis];
    int64_t start = (*starts)[i] < 0 ? (*starts)[i] + dim : (*starts)[i];
    start = std::clamp<int64_t>(start, 0, dim);
    return SliceRange{id, axis, start, y.dims[axis]};
  }
  return std::nullopt;
}

// Turns `ranges` (one axis of `x`, sorted by start, tiling it) into one Split node.
void MakeSplit(Graph& graph, ValueId x, const std::vector<SliceRange>& ranges) {
  NodeId first = ranges[0].node;
  for (const SliceRange& r : ranges) first = std::min(first, r.node);
  std::vector<ValueId> outputs;
  std::vector<int64_t> sizes;
  for (const SliceRange& r : ranges) {
    outputs.push_back(graph.nodes[r.node].outputs[0]);
    sizes.push_back(r.length);
    if (r.node != first) graph.nodes[r.node].dead = true;
  }
  Node& split = graph.nodes[first];
  const std::string name = split.name;
  split.op_type = "Split";
  split.outputs = outputs;
  split.attrs = AttributeMap();
  split.attrs.Set("axis", ranges[0].axis);
  if (split.opset < 13) {
    split.attrs.Set("split", sizes);
    split.inputs = {x};
    return;
  }
  const int64_t count = static_cast<int64_t>(sizes.size());
  const ValueId sizes_id = graph.AddConstant(name + "/split", Tensor::FromInt64(sizes, {count}));
  graph.nodes[first].inputs = {x, sizes_id};
}

}  // namespace

int SlicesToSplit(Graph& graph) {
  graph.RebuildUses();
  int made = 0;
  for (size_t v = 0; v < graph.values.size(); ++v) {
    std::map<int64_t, std::vector<SliceRange>> by_axis;
    for (NodeId reader : graph.values[v].consumers) {
      const Node& node = graph.nodes[reader];
      if (node.dead || node.op_type != "Slice" || node.inputs[0] != static_cast<ValueId>(v))
        continue;
      if (const std::optional<SliceRange> range = RangeOf(graph, reader))
        by_axis[range->axis].push_back(*range);
    }
    for (auto& [axis, ranges] : by_axis) {
      if (ranges.size() < 2) continue;
      std::sort(ranges.begin(), ranges.end(),
                [](const SliceRange& a, const SliceRange& b) { return a.start < b.start; });
      int64_t covered = 0;
      for (const SliceRange& r : ranges)
        covered = r.start == covered && r.length > 0 ? covered + r.length : -1;
      if (covered != graph.values[v].dims[axis]) continue;
      MakeSplit(graph, static_cast<ValueId>(v), ranges);
      ++made;
    }
  }
  graph.RebuildUses();
  graph.Compact();
  return made;
}

}  // namespace ios
