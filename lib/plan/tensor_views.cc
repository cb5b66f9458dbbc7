#include "plan/tensor_views.h"

#include <algorithm>

namespace ios {
namespace {

// The axis of a Concat or Split as a non-negative index, or -1 when it is out of range.
int64_t SliceAxis(const Node& node, size_t rank) {
  const int64_t default_axis = node.op_type == "Split" ? 0 : -1;
  auto attr = node.attrs.GetInt("axis", default_axis);
  if (!attr.ok()) return -1;
  int64_t axis = *attr < 0 ? *attr + static_cast<int64_t>(rank) : *attr;
  return axis >= 0 && axis < static_cast<int64_t>(rank) ? axis : -1;
}

// True when every dimension before `axis` is 1, so that slices along `axis` are contiguous.
bool SlicesAreContiguous(const Dims& dims, int64_t axis) {
  for (int64_t d = 0; d < axis; ++d)
    if (dims[static_cast<size_t>(d)] != 1) return false;
  return true;
}

bool IsPlainIntermediate(const Value& value) {
  return !value.constant && !value.is_graph_input && !value.is_graph_output && value.has_shape;
}

// The slices of `node` (its inputs for Concat, its outputs for Split), and its whole.
struct SliceOp {
  ValueId whole = kNoValue;
  std::vector<ValueId> slices;
};

SliceOp SlicesOf(const Node& node) {
  SliceOp op;
  if (node.op_type == "Concat" && node.outputs.size() == 1) {
    op.whole = node.outputs[0];
    op.slices = node.inputs;
  } else if (node.op_type == "Split" && !node.inputs.empty()) {
    op.whole = node.inputs[0];
    op.slices = node.outputs;
  }
  return op;
}

}  // namespace

std::vector<TensorView> FindSliceViews(const Graph& graph) {
  enum class Role { kNone, kBase, kView };
  std::vector<Role> role(graph.values.size(), Role::kNone);
  std::vector<TensorView> views;
  for (const Node& node : graph.nodes) {
    if (node.dead) continue;
    SliceOp op = SlicesOf(node);
    if (op.whole == kNoValue || op.slices.empty()) continue;
    const Value& whole = graph.values[op.whole];
    if (!IsPlainIntermediate(whole) || role[op.whole] != Role::kNone) continue;
    const int64_t axis = SliceAxis(node, whole.dims.size());
    if (axis < 0 || !SlicesAreContiguous(whole.dims, axis)) continue;

    std::vector<TensorView> candidate;
    int64_t offset = 0;
    bool ok = true;
    for (ValueId slice : op.slices) {
      if (slice == kNoValue || role[slice] != Role::kNone || slice == op.whole) {
        ok = false;
        break;
      }
      const Value& value = graph.values[slice];
      const bool sole_reader = node.op_type != "Concat" ||
                               (value.consumers.size() == 1 &&
                                std::count(node.inputs.begin(), node.inputs.end(), slice) == 1);
      if (!IsPlainIntermediate(value) || !sole_reader || value.dtype != whole.dtype ||
          offset % kViewAlignment != 0) {
        ok = false;
        break;
      }
      candidate.push_back({slice, op.whole, offset});
      offset += ValueBytes(value);
    }
    // The slices must tile the whole exactly (shape inference guarantees it; checked anyway).
    if (!ok || offset != ValueBytes(whole)) continue;
    role[op.whole] = Role::kBase;
    for (const TensorView& view : candidate) {
      role[view.value] = Role::kView;
      views.push_back(view);
    }
  }
  return views;
}

std::vector<bool> OpsMadeRedundantByViews(const Graph& graph, const MemoryPlan& memory) {
  std::vector<ValueId> view_of(graph.values.size(), kNoValue);
  std::vector<int64_t> view_offset(graph.values.size(), -1);  // relative to the base
  std::vector<int64_t> offset_of(graph.values.size(), -1);
  for (const TensorPlacement& p : memory.placements) offset_of[p.value] = p.offset;
  for (const TensorPlacement& p : memory.placements) {
    if (p.view_of == kNoValue) continue;
    view_of[p.value] = p.view_of;
    view_offset[p.value] = p.offset - offset_of[p.view_of];
  }
  std::vector<bool> redundant(graph.nodes.size(), false);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.dead) continue;
    SliceOp op = SlicesOf(node);
    if (op.whole == kNoValue || op.slices.empty()) continue;
    int64_t offset = 0;
    bool all_views = true;
    for (ValueId slice : op.slices) {
      if (slice == kNoValue || view_of[slice] != op.whole || view_offset[slice] != offset) {
        all_views = false;
        break;
      }
      offset += ValueBytes(graph.values[slice]);
    }
    redundant[n] = all_views;
  }
  return redundant;
}

}  // namespace ios
