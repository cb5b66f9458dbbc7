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

// True when every kernel other than the slicing op's (which the runtime skips) that writes or
// reads `slice` takes it as a strided channel slice.
bool KernelsTakeStridedSlice(const Graph& graph, ValueId slice, NodeId slicing_op,
                             const KernelCapsTable& kernels) {
  const Value& value = graph.values[slice];
  if (value.producer == kNoNode) return false;
  std::vector<NodeId> users = value.consumers;
  users.push_back(value.producer);
  for (NodeId user : users)
    if (user != slicing_op && !TakesStridedBatchSlice(graph, graph.nodes[user], slice, kernels))
      return false;
  return true;
}

// An intermediate the memory planner may place inside another.
bool IsIntermediate(const Value& value) {
  return !value.constant && !value.is_graph_input && !value.is_graph_output && value.has_shape;
}

// Views are byte ranges (or batch-strided ones) of row-major tensors: a channel slice of a
// channels-last tensor is neither. A channel slice of a channels-blocked-8 tensor whose channels
// are multiples of 8 (the only ones ir/layout.h blocks) is the row-major slice's bytes, but only
// the conv's descriptor could give it a batch stride: blocked slices are views when contiguous.
bool SliceLayoutsAllowView(const Value& whole, const Value& slice, bool contiguous) {
  if (whole.layout != slice.layout) return false;
  return whole.layout == Layout::kRowMajor ||
         (whole.layout == Layout::kChannelsBlocked8 && contiguous);
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

namespace {

// Elementwise, with at least two inputs that all have the output's shape (no broadcasting).
bool TakesStridedElementwise(const Graph& graph, const Node& node) {
  if (node.inputs.size() < 2 || node.outputs.size() != 1) return false;
  const Dims& out = graph.values[node.outputs[0]].dims;
  for (ValueId in : node.inputs)
    if (in == kNoValue || graph.values[in].dims != out) return false;
  return true;
}

}  // namespace

bool TakesStridedBatchSlice(const Graph& graph, const Node& node, ValueId value,
                            const KernelCapsTable& kernels) {
  const KernelCaps* caps = kernels.Find(node.op_type);
  if (node.dead || caps == nullptr || caps->strided == StridedSlices::kNone ||
      node.inputs.empty() || node.inputs[0] == kNoValue || node.outputs.empty())
    return false;
  const bool elementwise = caps->strided == StridedSlices::kElementwise;
  if (node.op_type == "Conv" && node.inputs.size() < 2) return false;
  if (elementwise && !TakesStridedElementwise(graph, node)) return false;
  // MaxPool's optional Indices output stays with the reference kernel, which is dense.
  if (node.outputs.size() > 1 && node.outputs[1] != kNoValue) return false;
  for (ValueId in : node.inputs)
    if (in != kNoValue && graph.values[in].dtype != DType::kFloat32) return false;
  const Value& x = graph.values[node.inputs[0]];
  // 1-D and 2-D windows: cuDNN's 3-D IMPLICIT_PRECOMP_GEMM wants fully packed tensors, and
  // cuDNN documents strides for 4-D tensors.
  if (!x.has_shape || x.dims.size() < 3 || x.dims.size() > 4) return false;
  if (elementwise) {
    return node.outputs[0] == value ||
           std::find(node.inputs.begin(), node.inputs.end(), value) != node.inputs.end();
  }
  // X (read once, not also as a conv's weights or bias) or Y.
  const bool is_x =
      node.inputs[0] == value && std::count(node.inputs.begin(), node.inputs.end(), value) == 1;
  return is_x || node.outputs[0] == value;
}

std::vector<TensorView> FindSliceViews(const Graph& graph, const KernelCapsTable& kernels) {
  enum class Role { kNone, kBase, kView };
  std::vector<Role> role(graph.values.size(), Role::kNone);
  std::vector<TensorView> views;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.dead) continue;
    SliceOp op = SlicesOf(node);
    if (op.whole == kNoValue || op.slices.empty()) continue;
    const Value& whole = graph.values[op.whole];
    if (!IsIntermediate(whole) || whole.layout == Layout::kChannelsLast ||
        role[op.whole] != Role::kNone)
      continue;
    const int64_t axis = SliceAxis(node, whole.dims.size());
    if (axis < 0) continue;
    // Contiguous slices, else channel slices at batch > 1 that every kernel touching them can
    // take strided: the Concat's producers write them, the Split's readers read them.
    const bool contiguous = SlicesAreContiguous(whole.dims, axis);
    if (!contiguous && axis != 1) continue;
    const int64_t items = contiguous ? 1 : whole.dims[0];
    const int64_t pitch = contiguous ? 0 : ValueBytes(whole) / items;
    if (pitch % kViewAlignment != 0) continue;

    // Each slice that qualifies becomes a view; the op then copies only the others.
    std::vector<TensorView> candidate;
    int64_t offset = 0;
    bool tiles = true;
    for (ValueId slice : op.slices) {
      if (slice == kNoValue || slice == op.whole) {
        tiles = false;
        break;
      }
      const Value& value = graph.values[slice];
      const bool sole_reader = node.op_type != "Concat" ||
                               (value.consumers.size() == 1 &&
                                std::count(node.inputs.begin(), node.inputs.end(), slice) == 1);
      if (role[slice] == Role::kNone && IsIntermediate(value) &&
          SliceLayoutsAllowView(whole, value, contiguous) && sole_reader &&
          value.dtype == whole.dtype && offset % kViewAlignment == 0 &&
          (contiguous || KernelsTakeStridedSlice(graph, slice, static_cast<NodeId>(n), kernels)))
        candidate.push_back({slice, op.whole, offset, pitch});
      offset += ValueBytes(value) / items;  // one batch item's share of the slice
    }
    // The slices must tile the whole exactly (shape inference guarantees it; checked anyway).
    if (!tiles || candidate.empty() || offset * items != ValueBytes(whole)) continue;
    role[op.whole] = Role::kBase;
    for (const TensorView& view : candidate) {
      role[view.value] = Role::kView;
      views.push_back(view);
    }
  }
  return views;
}

std::vector<std::vector<bool>> SlicesInPlace(const Graph& graph, const MemoryPlan& memory) {
  std::vector<ValueId> view_of(graph.values.size(), kNoValue);
  std::vector<int64_t> view_offset(graph.values.size(), -1);  // relative to the base
  std::vector<int64_t> view_pitch(graph.values.size(), 0);
  std::vector<int64_t> offset_of(graph.values.size(), -1);
  for (const TensorPlacement& p : memory.placements) offset_of[p.value] = p.offset;
  for (const TensorPlacement& p : memory.placements) {
    if (p.view_of == kNoValue) continue;
    view_of[p.value] = p.view_of;
    view_offset[p.value] = p.offset - offset_of[p.view_of];
    view_pitch[p.value] = p.pitch;
  }
  std::vector<std::vector<bool>> in_place(graph.nodes.size());
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.dead) continue;
    SliceOp op = SlicesOf(node);
    if (op.whole == kNoValue || op.slices.empty()) continue;
    in_place[n].assign(op.slices.size(), false);
    const Value& whole = graph.values[op.whole];
    const int64_t axis = SliceAxis(node, whole.dims.size());
    if (axis < 0) continue;
    // Where the op copies slice i: for each of the `outer` rows (the dims before the axis), at
    // the running offset within the row; a view lies there when it starts at that offset and,
    // with more than one row, its pitch is the whole's row.
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= whole.dims[static_cast<size_t>(d)];
    if (outer <= 0) continue;
    const int64_t row_pitch = outer == 1 ? 0 : ValueBytes(whole) / outer;
    int64_t offset = 0;
    for (size_t i = 0; i < op.slices.size(); ++i) {
      const ValueId slice = op.slices[i];
      if (slice == kNoValue) break;
      in_place[n][i] = view_of[slice] == op.whole && view_offset[slice] == offset &&
                       view_pitch[slice] == row_pitch;
      offset += ValueBytes(graph.values[slice]) / outer;
    }
  }
  return in_place;
}

bool IsSliceInPlace(const Node& node, const std::vector<bool>& slices_in_place, bool is_output,
                    size_t index) {
  const bool slices = is_output ? node.op_type == "Split" : node.op_type == "Concat";
  return slices && index < slices_in_place.size() && slices_in_place[index];
}

std::vector<bool> OpsMadeRedundantByViews(const std::vector<std::vector<bool>>& in_place) {
  std::vector<bool> redundant(in_place.size(), false);
  for (size_t n = 0; n < in_place.size(); ++n)
    redundant[n] = !in_place[n].empty() &&
                   std::all_of(in_place[n].begin(), in_place[n].end(), [](bool b) { return b; });
  return redundant;
}

}  // namespace ios
