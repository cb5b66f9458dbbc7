// CanMergeStage and MergedConvShapeOf: which stages can run as one merged conv (merge_shape.h).
#include "sched/merge_shape.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "ir/fused_activation.h"
#include "ops/op_util.h"
#include "util/checked_int.h"

namespace ios {
namespace {

// What MergedConvShapeOf needs to know about one conv of the stage.
struct ConvInfo {
  NodeId node = kNoNode;
  ValueId input = kNoValue;
  DType weight_dtype = DType::kUndefined;
  int64_t out_channels = 0;
  std::vector<int64_t> kernel;  // {kh, kw}
  WindowParams window;          // pads resolved (auto_pad applied)
  Dims output;                  // the conv's output dims
  Activation activation;
};

Status Reject(const Graph& graph, NodeId node, const std::string& why) {
  return Unsupported("cannot merge the stage: " + graph.Describe(node) + " " + why);
}

std::string Ints(const std::vector<int64_t>& values) { return DimsToString(values); }

// Checks one group and reads its conv.
StatusOr<ConvInfo> ReadConv(const Graph& graph, const UnitGraph& units,
                            const std::vector<UnitId>& group) {
  if (group.size() != 1) {
    return Unsupported("cannot merge the stage: a group has " + std::to_string(group.size()) +
                       " units; operator merge needs exactly one Conv unit per group");
  }
  const UnitId id = group[0];
  if (id < 0 || static_cast<size_t>(id) >= units.units.size()) {
    return Internal("stage refers to unit " + std::to_string(id) + " of " +
                    std::to_string(units.units.size()));
  }
  const Unit& unit = units.units[id];
  if (unit.kind != UnitKind::kConv || unit.nodes.size() != 1) {
    return Unsupported("cannot merge the stage: unit " + std::to_string(id) + " is a " +
                       UnitKindName(unit.kind) + " unit of " + std::to_string(unit.nodes.size()) +
                       " ops; operator merge needs a lone Conv (no folded input, no leading Relu)");
  }
  ConvInfo info;
  info.node = unit.nodes[0];
  const Node& node = graph.nodes[info.node];
  if (node.op_type != "Conv") return Reject(graph, info.node, "is not a Conv");
  if (node.inputs.size() < 2 || node.outputs.size() != 1) {
    return Reject(graph, info.node, "does not have the input, weights and one output");
  }
  if (node.inputs.size() > 3) return Reject(graph, info.node, "adds a fused residual");
  info.input = node.inputs[0];
  const Value& x = graph.values[info.input];
  const Value& w = graph.values[node.inputs[1]];
  const Value& y = graph.values[node.outputs[0]];
  if (!x.has_shape || !w.has_shape || !y.has_shape) {
    return Reject(graph, info.node, "has no inferred shapes");
  }
  if (x.dims.size() != 4 || w.dims.size() != 4) {
    return Reject(graph, info.node, "is not a 2-D conv (input " + DimsToString(x.dims) + ")");
  }
  if (!w.constant.has_value()) {
    return Reject(graph, info.node, "has weights that are not constant");
  }
  if (node.inputs.size() > 2 && node.inputs[2] != kNoValue &&
      !graph.values[node.inputs[2]].constant.has_value()) {
    return Reject(graph, info.node, "has a bias that is not constant");
  }
  auto group_attr = node.attrs.GetInt("group", 1);
  if (!group_attr.ok()) return group_attr.status();
  if (group_attr.value() != 1) {
    return Reject(graph, info.node,
                  "has group = " + std::to_string(group_attr.value()) + " (must be 1)");
  }
  info.weight_dtype = w.dtype;
  info.out_channels = w.dims[0];
  info.kernel = {w.dims[2], w.dims[3]};
  auto window = ReadWindowParams(node, info.kernel);
  if (!window.ok()) return window.status();
  info.window = std::move(window).value();
  auto spatial = WindowOutputDims(Dims(x.dims.begin() + 2, x.dims.end()), false, &info.window);
  if (!spatial.ok()) return spatial.status();
  info.output = y.dims;
  info.activation = GetFusedActivation(node.attrs);
  return info;
}

std::string ActivationText(const Activation& act) {
  if (act.kind == ActivationKind::kNone) return "none";
  return ActivationOpType(act.kind) + "(alpha " + std::to_string(act.alpha) + ", beta " +
         std::to_string(act.beta) + ")";
}

bool SameActivation(const Activation& a, const Activation& b) {
  return a.kind == b.kind && a.alpha == b.alpha && a.beta == b.beta;
}

}  // namespace

StatusOr<MergedConvShape> MergedConvShapeOf(const Graph& graph, const UnitGraph& units,
                                            const StageCandidate& stage) {
  if (stage.groups.size() < 2) {
    return Unsupported("cannot merge the stage: it has " + std::to_string(stage.groups.size()) +
                       " group(s); operator merge needs at least two");
  }
  std::vector<ConvInfo> convs;
  std::set<UnitId> seen;
  for (const std::vector<UnitId>& group : stage.groups) {
    IOS_ASSIGN_OR_RETURN(ConvInfo info, ReadConv(graph, units, group));
    if (!seen.insert(group[0]).second) {
      return Unsupported("cannot merge the stage: unit " + std::to_string(group[0]) +
                         " appears twice");
    }
    convs.push_back(std::move(info));
  }

  const ConvInfo& first = convs[0];
  for (const ConvInfo& conv : convs) {
    if (conv.input != first.input) {
      return Reject(graph, conv.node,
                    "reads '" + graph.values[conv.input].name + "' but " +
                        graph.Describe(first.node) + " reads '" + graph.values[first.input].name +
                        "'; merged convs must share the input");
    }
    if (conv.weight_dtype != first.weight_dtype) {
      return Reject(graph, conv.node, "has weights of another element type");
    }
    if (conv.window.strides != first.window.strides) {
      return Reject(graph, conv.node,
                    "has strides " + Ints(conv.window.strides) + " but " +
                        graph.Describe(first.node) + " has " + Ints(first.window.strides));
    }
    if (conv.window.dilations != first.window.dilations) {
      return Reject(graph, conv.node,
                    "has dilations " + Ints(conv.window.dilations) + " but " +
                        graph.Describe(first.node) + " has " + Ints(first.window.dilations));
    }
    if (!SameActivation(conv.activation, first.activation)) {
      return Reject(graph, conv.node,
                    "has the fused activation " + ActivationText(conv.activation) + " but " +
                        graph.Describe(first.node) + " has " + ActivationText(first.activation));
    }
    // Batch and spatial output dims must agree: the merged output stacks the channels.
    if (conv.output.size() != 4 || conv.output[0] != first.output[0] ||
        conv.output[2] != first.output[2] || conv.output[3] != first.output[3]) {
      return Reject(graph, conv.node,
                    "has the output " + DimsToString(conv.output) + " but " +
                        graph.Describe(first.node) + " has " + DimsToString(first.output));
    }
  }

  MergedConvShape shape;
  shape.pads.assign(4, 0);
  const Dims& x = graph.values[first.input].dims;
  for (size_t d = 0; d < 2; ++d) {
    int64_t kmax = 0;
    for (const ConvInfo& conv : convs) kmax = std::max(kmax, conv.kernel[d]);
    const int64_t dilation = first.window.dilations[d];
    int64_t pad_begin = -1;
    int64_t pad_end = 0;
    for (const ConvInfo& conv : convs) {
      const int64_t grow = kmax - conv.kernel[d];
      if (grow % 2 != 0) {
        return Reject(graph, conv.node,
                      "has kernel " + Ints(conv.kernel) + ", which cannot be centred in the " +
                          "merged kernel (size " + std::to_string(kmax) + " on axis " +
                          std::to_string(d) + "): the difference must be even");
      }
      const int64_t begin = conv.window.pads[d] + dilation * grow / 2;
      if (pad_begin >= 0 && begin != pad_begin) {
        return Reject(graph, conv.node,
                      "has pads " + Ints(conv.window.pads) + " for kernel " + Ints(conv.kernel) +
                          ", which would shift its outputs once centred in the merged kernel " +
                          "(its window starts at a different offset on axis " + std::to_string(d) +
                          ")");
      }
      pad_begin = begin;
      pad_end = std::max(pad_end, conv.window.pads[d + 2] + dilation * grow / 2);
    }
    const CheckedInt64 out = WindowOutputSize(x[2 + d], kmax, first.window.strides[d], dilation,
                                              pad_begin, pad_end, false);
    if (out != first.output[2 + d]) {
      const std::string produced = out.ok() ? std::to_string(*out.get()) + " outputs"
                                            : std::string("an output length that overflows");
      return Unsupported("cannot merge the stage: the merged kernel of size " +
                         std::to_string(kmax) + " would produce " + produced + " on spatial axis " +
                         std::to_string(d) + " instead of " + std::to_string(first.output[2 + d]));
    }
    (d == 0 ? shape.kh : shape.kw) = kmax;
    shape.pads[d] = pad_begin;
    shape.pads[d + 2] = pad_end;
  }
  for (const ConvInfo& conv : convs) shape.out_channels += conv.out_channels;
  return shape;
}

bool CanMergeStage(const Graph& graph, const UnitGraph& units, const StageCandidate& stage) {
  return MergedConvShapeOf(graph, units, stage).ok();
}

}  // namespace ios
