#include "passes/assign_layouts.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ir/fused_activation.h"

namespace ios {
namespace {

// A value that may be channels-last: a float32 intermediate of rank 3 to 5 whose bytes differ
// between the layouts.
bool MayBeChannelsLast(const Value& value) {
  return !value.constant && !value.is_graph_input && !value.is_graph_output && value.has_shape &&
         value.dtype == DType::kFloat32 && HasChannelsLastForm(value.dims) &&
         !ChannelsLastIsRowMajor(value.dims);
}

// Convs and transposed convs: oneDNN runs both on NHWC where it has JIT convs for it.
bool IsChannelsLastSource(const Graph& graph, const Node& node) {
  if ((node.op_type != "Conv" && node.op_type != "ConvTranspose") || node.inputs.size() < 2 ||
      node.inputs[0] == kNoValue)
    return false;
  const Value& x = graph.values[node.inputs[0]];
  return x.dtype == DType::kFloat32 && HasChannelsLastForm(x.dims);
}

// Whether the non-constant inputs stored differently in the two layouts are all channels-last,
// and there is at least one.
bool ReadsChannelsLast(const Graph& graph, const Node& node) {
  bool any = false;
  for (ValueId in : node.inputs) {
    if (in == kNoValue) continue;
    const Value& value = graph.values[in];
    if (value.constant || !HasChannelsLastForm(value.dims) || ChannelsLastIsRowMajor(value.dims))
      continue;
    if (value.layout != Layout::kChannelsLast) return false;
    any = true;
  }
  return any;
}

// A dense (group 1) 2-D float32 conv: oneDNN's AVX2 convs, 1x1 and spatial alike, run on nChw8c
// tensors as they are.
bool IsDense2dConv(const Graph& graph, const Node& node) {
  if (node.op_type != "Conv" || node.inputs.size() < 2 || node.inputs[0] == kNoValue ||
      node.inputs[1] == kNoValue)
    return false;
  const Value& x = graph.values[node.inputs[0]];
  const Value& w = graph.values[node.inputs[1]];
  StatusOr<int64_t> group = node.attrs.GetInt("group", 1);
  return x.dtype == DType::kFloat32 && x.dims.size() == 4 && w.dims.size() == 4 && group.ok() &&
         group.value() == 1;
}

// Whether `conv` runs on `id` blocked as it is: as its X or its fused residual (each read once,
// not also as another input), or as its Y.
bool ConvTakesBlocked(const Graph& graph, const Node& conv, ValueId id) {
  if (!IsDense2dConv(graph, conv)) return false;
  if (!conv.outputs.empty() && conv.outputs[0] == id) return true;
  const bool residual = HasFusedResidual(conv) && conv.inputs.size() > 3 && conv.inputs[3] == id;
  if (conv.inputs[0] != id && !residual) return false;
  return std::count(conv.inputs.begin(), conv.inputs.end(), id) == 1;
}

// Whether a conv has a 1x1 kernel. oneDNN's AVX2 1x1 conv runs NHWC on both sides, or nChw8c on
// both: one side of each has it reorder the other, where both NHWC had none (ResNet-50's
// bottlenecks ran 1.2-1.3x slower with their 1x1 convs' inputs blocked and outputs not).
bool IsPointwiseConv(const Graph& graph, const Node& conv) {
  const Value& w = graph.values[conv.inputs[1]];
  for (size_t d = 2; d < w.dims.size(); ++d)
    if (w.dims[d] != 1) return false;
  return true;
}

// For a dense conv all of whose blocked values it takes (ConvTakesBlocked): the one of a pair
// that must be blocked together or not at all, blocked without the other. The pairs: a 1x1
// conv's X and Y (IsPointwiseConv), and a fused residual and Y (the residual is added in Y's
// layout: a sum post-op in place, a binary one, or the kernel's flat add after it).
std::vector<ValueId> UnpairedBlocked(const Graph& graph, const Node& conv) {
  std::vector<ValueId> unpaired;
  auto blocked = [&](ValueId id) {
    return id != kNoValue && graph.values[id].layout == Layout::kChannelsBlocked8;
  };
  auto pair = [&](ValueId a, ValueId b) {
    if (blocked(a) != blocked(b)) unpaired.push_back(blocked(a) ? a : b);
  };
  const ValueId y = conv.outputs.empty() ? kNoValue : conv.outputs[0];
  if (IsPointwiseConv(graph, conv)) pair(conv.inputs[0], y);
  if (HasFusedResidual(conv) && conv.inputs.size() > 3) pair(conv.inputs[3], y);
  return unpaired;
}

// The values of `node` (inputs and outputs) that are stored channels-blocked-8.
std::vector<ValueId> BlockedValuesOf(const Graph& graph, const Node& node) {
  std::vector<ValueId> blocked;
  auto add = [&](ValueId id) {
    if (id != kNoValue && graph.values[id].layout == Layout::kChannelsBlocked8 &&
        std::find(blocked.begin(), blocked.end(), id) == blocked.end())
      blocked.push_back(id);
  };
  for (ValueId in : node.inputs) add(in);
  for (ValueId out : node.outputs) add(out);
  return blocked;
}

// Stores channels-blocked-8 the channels-last values whose producer and every consumer run on
// them so: dense 2-D convs (ConvTakesBlocked, UnpairedBlocked), and the ops whose CPU kernels
// take nChw8c when all their tensors are (activations, same-shape binary elementwise ops, window
// and global pools, channel Concat and Split of multiple-of-8 slices: CpuKernelTakesLayouts).
// Starting from every candidate blocked, a node that cannot take its blocked tensors turns them
// back to channels-last (a conv only those it cannot take, since it reorders each side on its
// own), until every node takes what it has. The values then form runs that reorder only where
// they meet a channels-last op, as onnxruntime's NCHWc transformer keeps its layout.
int AssignBlockedChannels(Graph& graph, const KernelCapsTable& kernels) {
  graph.RebuildUses();
  std::vector<NodeId> touching;  // the nodes that produce or read a candidate
  std::vector<bool> seen(graph.nodes.size(), false);
  for (ValueId id = 0; id < static_cast<ValueId>(graph.values.size()); ++id) {
    Value& value = graph.values[id];
    if (value.layout != Layout::kChannelsLast || !HasChannelsBlocked8Form(value.dims) ||
        value.producer == kNoNode || value.consumers.empty())
      continue;
    value.layout = Layout::kChannelsBlocked8;
    std::vector<NodeId> nodes = value.consumers;
    nodes.push_back(value.producer);
    for (NodeId n : nodes) {
      if (seen[n]) continue;
      seen[n] = true;
      touching.push_back(n);
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (NodeId n : touching) {
      const Node& node = graph.nodes[n];
      const std::vector<ValueId> blocked = BlockedValuesOf(graph, node);
      if (blocked.empty()) continue;
      std::vector<ValueId> refused;
      if (node.op_type == "Conv") {
        for (ValueId id : blocked)
          if (!ConvTakesBlocked(graph, node, id)) refused.push_back(id);
        if (refused.empty()) refused = UnpairedBlocked(graph, node);
      } else if (!kernels.TakesAssignedLayouts(graph, node)) {
        refused = blocked;
      }
      for (ValueId id : refused) graph.values[id].layout = Layout::kChannelsLast;
      changed = changed || !refused.empty();
    }
  }
  int count = 0;
  for (const Value& value : graph.values) count += value.layout == Layout::kChannelsBlocked8;
  return count;
}

}  // namespace

int AssignCpuLayouts(Graph& graph, const KernelCapsTable& kernels, bool channels_last,
                     bool blocked) {
  for (Value& value : graph.values) value.layout = Layout::kRowMajor;
  if (!channels_last) return 0;
  StatusOr<std::vector<NodeId>> order = graph.TopologicalOrder();
  if (!order.ok()) return 0;  // the plan's checks report the cycle
  int count = 0;
  for (NodeId id : order.value()) {
    const Node& node = graph.nodes[id];
    std::vector<ValueId> made;
    if (IsChannelsLastSource(graph, node)) {
      if (!node.outputs.empty() && node.outputs[0] != kNoValue) made.push_back(node.outputs[0]);
    } else if (ReadsChannelsLast(graph, node)) {
      made = node.outputs;
    }
    std::vector<ValueId> changed;
    for (ValueId out : made) {
      if (out == kNoValue || !MayBeChannelsLast(graph.values[out])) continue;
      graph.values[out].layout = Layout::kChannelsLast;
      changed.push_back(out);
    }
    if (changed.empty()) continue;
    // Kept only where the op's kernel takes the layouts so (the conv's always does).
    if (!kernels.TakesAssignedLayouts(graph, node)) {
      for (ValueId out : changed) graph.values[out].layout = Layout::kRowMajor;
      continue;
    }
    count += static_cast<int>(changed.size());
  }
  if (blocked) AssignBlockedChannels(graph, kernels);
  return count;
}

}  // namespace ios
