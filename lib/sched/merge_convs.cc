#include "sched/merge_convs.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "sched/merge_shape.h"
#include "ops/op_registry.h"

namespace ios {
namespace {

// The stage's convs as MergedConvShapeOf sees them: one lone Conv unit per group.
StatusOr<std::vector<NodeId>> StageConvs(const Graph& graph, const ScheduleStage& stage,
                                         UnitGraph* units, StageCandidate* candidate) {
  std::vector<NodeId> convs;
  for (const ScheduleGroup& group : stage.groups) {
    if (group.nodes.size() != 1) {
      return Unsupported("cannot merge the stage: a group has " +
                         std::to_string(group.nodes.size()) +
                         " ops; operator merge needs exactly one Conv per group");
    }
    const NodeId n = group.nodes[0];
    if (n < 0 || n >= static_cast<NodeId>(graph.nodes.size()) || graph.nodes[n].dead)
      return Internal("merge stage names node " + std::to_string(n) + ", which is not live");
    Unit unit;
    unit.id = static_cast<UnitId>(units->units.size());
    unit.kind = UnitKind::kConv;
    unit.nodes = {n};
    candidate->groups.push_back({unit.id});
    units->units.push_back(std::move(unit));
    convs.push_back(n);
  }
  candidate->strategy = StageStrategy::kMerge;
  return convs;
}

// A fresh value name: `base`, or `base` with a numeric suffix when that is taken.
std::string UniqueValueName(const Graph& graph, const std::string& base) {
  if (graph.FindValue(base) == kNoValue) return base;
  for (int i = 1;; ++i) {
    std::string name = base + "_" + std::to_string(i);
    if (graph.FindValue(name) == kNoValue) return name;
  }
}

ValueId AddConstant(Graph& graph, const std::string& name, Tensor tensor) {
  return graph.AddConstant(UniqueValueName(graph, name), std::move(tensor));
}

// Merges one stage; returns the merged conv and the split.
StatusOr<std::vector<NodeId>> MergeStage(Graph& graph, const ScheduleStage& stage) {
  UnitGraph units;
  StageCandidate candidate;
  IOS_ASSIGN_OR_RETURN(std::vector<NodeId> convs, StageConvs(graph, stage, &units, &candidate));
  IOS_ASSIGN_OR_RETURN(MergedConvShape shape, MergedConvShapeOf(graph, units, candidate));

  const Node first = graph.nodes[convs[0]];  // a copy: AddNode may move the node vector
  const ValueId input = first.inputs[0];
  const Tensor& first_weights = *graph.values[first.inputs[1]].constant;
  const DType dtype = first_weights.dtype();
  const size_t element = DTypeSize(dtype);
  const int64_t in_channels = first_weights.dims()[1];
  const int64_t kh = shape.kh, kw = shape.kw;

  // Weights [sum M, C, kh, kw]: each conv's kernel centred (MergedConvShapeOf checked that the
  // differences are even), zeros around it. Biases [sum M], zeros for a conv without one.
  Tensor weights(dtype, {shape.out_channels, in_channels, kh, kw});  // zero-initialised
  Tensor bias(dtype, {shape.out_channels});
  bool any_bias = false;
  std::vector<int64_t> split_sizes;
  std::string merged_name = "ios_merge(";
  int64_t channel = 0;
  for (size_t i = 0; i < convs.size(); ++i) {
    const Node& conv = graph.nodes[convs[i]];
    const Tensor& w = *graph.values[conv.inputs[1]].constant;
    const int64_t m = w.dims()[0], ch = w.dims()[2], cw = w.dims()[3];
    const int64_t top = (kh - ch) / 2, left = (kw - cw) / 2;
    for (int64_t o = 0; o < m; ++o) {
      for (int64_t c = 0; c < in_channels; ++c) {
        for (int64_t y = 0; y < ch; ++y) {
          const int64_t from = ((o * in_channels + c) * ch + y) * cw;
          const int64_t to = (((channel + o) * in_channels + c) * kh + top + y) * kw + left;
          std::memcpy(weights.raw() + to * element, w.raw() + from * element,
                      static_cast<size_t>(cw) * element);
        }
      }
    }
    if (conv.inputs.size() > 2 && conv.inputs[2] != kNoValue) {
      const Tensor& b = *graph.values[conv.inputs[2]].constant;
      if (b.dtype() != dtype || b.num_elements() != m)
        return Unsupported("cannot merge the stage: " + graph.Describe(convs[i]) +
                           " has a bias of another type or length");
      std::memcpy(bias.raw() + channel * element, b.raw(), static_cast<size_t>(m) * element);
      any_bias = true;
    }
    split_sizes.push_back(m);
    merged_name += (i ? "," : "") + conv.name;
    channel += m;
  }
  merged_name += ")";

  // The merged conv, with the first conv's attributes (all agree on strides, dilations, group
  // and the fused activation) and the merged kernel and pads.
  Node merged;
  merged.name = merged_name;
  merged.op_type = "Conv";
  merged.opset = first.opset;
  merged.attrs = first.attrs;
  merged.attrs.Erase("auto_pad");  // the pads below are explicit
  merged.attrs.Set("kernel_shape", std::vector<int64_t>{kh, kw});
  merged.attrs.Set("pads", shape.pads);
  merged.attrs.Set("group", int64_t{1});
  merged.inputs = {input, AddConstant(graph, merged_name + ".weight", std::move(weights))};
  if (any_bias) merged.inputs.push_back(AddConstant(graph, merged_name + ".bias", std::move(bias)));
  Value merged_out;
  merged_out.name = UniqueValueName(graph, merged_name + ":0");
  // Stored as the convs' outputs are, so that the split copies without a reorder. Blocked
  // channels (ir/layout.h) only where every output is blocked, so that the merged channels come
  // in whole blocks too; else channels-last, the layout a CPU plan's blocked values began as.
  merged_out.layout = graph.values[first.outputs[0]].layout;
  for (NodeId n : convs)
    if (merged_out.layout == Layout::kChannelsBlocked8 &&
        graph.values[graph.nodes[n].outputs[0]].layout != Layout::kChannelsBlocked8)
      merged_out.layout = Layout::kChannelsLast;
  const ValueId merged_value = graph.AddValue(std::move(merged_out));
  merged.outputs = {merged_value};

  // The split back into the original outputs, in the graph opset's form.
  std::vector<Dims> original_dims;
  Node split;
  split.name = merged_name + ".split";
  split.op_type = "Split";
  split.opset = graph.opset > 0 ? graph.opset : first.opset;
  split.attrs.Set("axis", int64_t{1});
  split.inputs = {merged_value};
  if (split.opset >= 13) {
    const int64_t n = static_cast<int64_t>(split_sizes.size());
    split.inputs.push_back(
        AddConstant(graph, merged_name + ".split_sizes", Tensor::FromInt64(split_sizes, {n})));
  } else {
    split.attrs.Set("split", split_sizes);
  }
  for (NodeId n : convs) {
    const ValueId out = graph.nodes[n].outputs[0];
    split.outputs.push_back(out);
    original_dims.push_back(graph.values[out].dims);
    graph.nodes[n].dead = true;
  }

  const NodeId merged_id = graph.AddNode(std::move(merged));
  const NodeId split_id = graph.AddNode(std::move(split));
  IOS_RETURN_IF_ERROR(InferNode(graph, merged_id));
  IOS_RETURN_IF_ERROR(InferNode(graph, split_id));
  for (size_t i = 0; i < convs.size(); ++i) {
    const Value& out = graph.values[graph.nodes[split_id].outputs[i]];
    if (out.dims != original_dims[i]) {
      return Internal("merging " + merged_name + " changed '" + out.name + "' from " +
                      DimsToString(original_dims[i]) + " to " + DimsToString(out.dims));
    }
  }
  return std::vector<NodeId>{merged_id, split_id};
}

}  // namespace

Status ApplyMergeStages(Graph& graph, Schedule& schedule) {
  bool merged_any = false;
  for (ScheduleBlock& block : schedule.blocks) {
    for (ScheduleStage& stage : block.stages) {
      if (stage.strategy != StageStrategy::kMerge) continue;
      IOS_ASSIGN_OR_RETURN(std::vector<NodeId> nodes, MergeStage(graph, stage));
      stage.groups = {ScheduleGroup{std::move(nodes)}};
      merged_any = true;
    }
  }
  if (!merged_any) return Status::Ok();

  // Compact keeps the live nodes in order, so node n becomes its rank among live nodes.
  std::vector<NodeId> node_map(graph.nodes.size(), kNoNode);
  NodeId next = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    if (!graph.nodes[n].dead) node_map[n] = next++;
  graph.Compact();
  for (ScheduleBlock& block : schedule.blocks) {
    for (ScheduleStage& stage : block.stages) {
      for (ScheduleGroup& group : stage.groups) {
        for (NodeId& n : group.nodes) {
          if (n < 0 || n >= static_cast<NodeId>(node_map.size()) || node_map[n] == kNoNode)
            return Internal("the schedule runs node " + std::to_string(n) +
                            ", which the merge removed or never existed");
          n = node_map[n];
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace ios
