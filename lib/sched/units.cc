#include "sched/units.h"

#include <algorithm>
#include <map>

#include "ops/op_registry.h"

namespace ios {
namespace {

// The op's role (ops/op_schema.h); kOther for an op the registry lacks.
OpRole RoleOf(const Node& node) {
  const OpSchema* schema = OpRegistry::Global().Find(node.op_type);
  return schema != nullptr ? schema->role : OpRole::kOther;
}
bool IsAggregation(const Node& node) {
  const OpRole role = RoleOf(node);
  return role == OpRole::kSum || role == OpRole::kConcat;
}
bool IsSum(const Node& node) { return RoleOf(node) == OpRole::kSum; }
bool IsPool(const Node& node) { return RoleOf(node) == OpRole::kPool; }

// The only node that reads node `id`'s single output, or kNoNode.
NodeId OnlyReader(const Graph& graph, NodeId id) {
  const Node& node = graph.nodes[id];
  if (node.outputs.size() != 1 || node.outputs[0] == kNoValue) return kNoNode;
  const Value& out = graph.values[node.outputs[0]];
  if (out.is_graph_output || out.consumers.size() != 1) return kNoNode;
  NodeId reader = out.consumers[0];
  // The reader must use the value as its data input (not as a weight).
  if (graph.nodes[reader].inputs.empty() || graph.nodes[reader].inputs[0] != node.outputs[0]) {
    if (!IsAggregation(graph.nodes[reader])) return kNoNode;
  }
  return reader;
}

int64_t ConvGroup(const Node& node) {
  auto group = node.attrs.GetInt("group", 1);
  return group.ok() ? group.value() : 1;
}

bool IsDepthwiseConv(const Graph& graph, const Node& node) {
  if (node.op_type != "Conv" || node.inputs.empty()) return false;
  const Value& x = graph.values[node.inputs[0]];
  int64_t group = ConvGroup(node);
  return group > 1 && x.dims.size() >= 2 && x.dims[1] == group;
}

bool IsPointwiseConv(const Graph& graph, const Node& node) {
  if (node.op_type != "Conv" || ConvGroup(node) != 1 || node.inputs.size() < 2) return false;
  const Value& w = graph.values[node.inputs[1]];
  for (size_t i = 2; i < w.dims.size(); ++i)
    if (w.dims[i] != 1) return false;
  auto strides = node.attrs.GetInts("strides", {});
  if (strides.ok())
    for (int64_t s : strides.value())
      if (s != 1) return false;
  auto pads = node.attrs.GetInts("pads", {});
  if (pads.ok())
    for (int64_t p : pads.value())
      if (p != 0) return false;
  return true;
}

class UnitBuilder {
 public:
  UnitBuilder(const Graph& graph, const UnitOptions& options)
      : graph_(graph), options_(options), unit_of_(graph.nodes.size(), -1) {}

  StatusOr<UnitGraph> Build() {
    IOS_ASSIGN_OR_RETURN(order_, graph_.TopologicalOrder());
    FormBodies();
    if (options_.fold_aggregations) FoldAggregations();
    return Assemble();
  }

 private:
  struct Group {
    UnitKind kind;
    std::vector<NodeId> nodes;
  };

  bool Free(NodeId id) const { return id != kNoNode && unit_of_[id] < 0; }
  bool Compoundable(NodeId id) const { return Free(id) && !options_.single_op_nodes.count(id); }
  bool SameRegion(NodeId a, NodeId b) const {
    return options_.node_region.empty() || options_.node_region[a] == options_.node_region[b];
  }
  // `next` may join `id`'s compound: it is free, allowed to compound, and in the same region.
  bool CanExtend(NodeId id, NodeId next) const { return Compoundable(next) && SameRegion(id, next); }

  int NewGroup(UnitKind kind, std::vector<NodeId> nodes) {
    int group = static_cast<int>(groups_.size());
    for (NodeId n : nodes) unit_of_[n] = group;
    groups_.push_back({kind, std::move(nodes)});
    return group;
  }

  // Compound bodies first (they start at a Relu or a depthwise conv), then everything else.
  void FormBodies() {
    for (NodeId id : order_) {
      if (!Compoundable(id)) continue;
      const Node& node = graph_.nodes[id];
      if (node.op_type == "Relu") {
        NodeId conv = OnlyReader(graph_, id);
        if (!CanExtend(id, conv) || graph_.nodes[conv].op_type != "Conv") continue;
        NodeId pointwise = OnlyReader(graph_, conv);
        if (IsDepthwiseConv(graph_, graph_.nodes[conv]) && CanExtend(conv, pointwise) &&
            IsPointwiseConv(graph_, graph_.nodes[pointwise])) {
          NewGroup(UnitKind::kReluSepConv, {id, conv, pointwise});
        } else {
          NewGroup(UnitKind::kReluConv, {id, conv});
        }
      } else if (IsDepthwiseConv(graph_, node)) {
        NodeId pointwise = OnlyReader(graph_, id);
        if (CanExtend(id, pointwise) && IsPointwiseConv(graph_, graph_.nodes[pointwise]))
          NewGroup(UnitKind::kSepConv, {id, pointwise});
      }
    }
    for (NodeId id : order_) {
      if (!Free(id)) continue;
      const Node& node = graph_.nodes[id];
      UnitKind kind = node.op_type == "Conv" ? UnitKind::kConv
                      : IsPool(node)         ? UnitKind::kPool
                      : IsAggregation(node)  ? UnitKind::kAggregation
                                             : UnitKind::kOp;
      NewGroup(kind, {id});
    }
  }

  // Folds sums into their only reader, latest first so that Sum -> Sum -> Conv collapses into
  // the conv's unit.
  void FoldAggregations() {
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      NodeId id = *it;
      const Node& node = graph_.nodes[id];
      int group = unit_of_[id];
      if (!IsSum(node) || groups_[group].nodes.size() != 1 ||
          options_.single_op_nodes.count(id))
        continue;
      NodeId reader = OnlyReader(graph_, id);
      if (reader == kNoNode || options_.single_op_nodes.count(reader) || !SameRegion(id, reader))
        continue;
      Group& target = groups_[unit_of_[reader]];
      // The reader must be the head of its unit: folding into the middle would hide an input.
      if (target.nodes.empty() || !StartsWithNode(target, reader)) continue;
      std::vector<NodeId> merged = groups_[group].nodes;
      merged.insert(merged.end(), target.nodes.begin(), target.nodes.end());
      for (NodeId n : groups_[group].nodes) unit_of_[n] = unit_of_[reader];
      groups_[group].nodes.clear();
      target.nodes = std::move(merged);
    }
  }

  // True when `reader` is the first body node of the group (after already-folded inputs).
  bool StartsWithNode(const Group& group, NodeId reader) const {
    for (NodeId n : group.nodes) {
      if (n == reader) return true;
      if (!IsAggregation(graph_.nodes[n])) return false;
    }
    return false;
  }

  StatusOr<UnitGraph> Assemble() {
    UnitGraph result;
    result.unit_of_node.assign(graph_.nodes.size(), -1);
    // Units in the topological order of their last node keep producers before readers.
    std::vector<std::pair<size_t, int>> by_position;
    std::vector<size_t> position(graph_.nodes.size(), 0);
    for (size_t i = 0; i < order_.size(); ++i) position[order_[i]] = i;
    for (size_t g = 0; g < groups_.size(); ++g) {
      if (groups_[g].nodes.empty()) continue;
      size_t last = 0;
      for (NodeId n : groups_[g].nodes) last = std::max(last, position[n]);
      by_position.push_back({last, static_cast<int>(g)});
    }
    std::sort(by_position.begin(), by_position.end());
    for (const auto& [pos, g] : by_position) {
      Unit unit;
      unit.id = static_cast<UnitId>(result.units.size());
      unit.kind = groups_[g].kind;
      unit.nodes = groups_[g].nodes;
      std::sort(unit.nodes.begin(), unit.nodes.end(),
                [&](NodeId a, NodeId b) { return position[a] < position[b]; });
      for (NodeId n : unit.nodes) result.unit_of_node[n] = unit.id;
      result.units.push_back(std::move(unit));
    }
    for (Unit& unit : result.units) {
      for (NodeId n : unit.nodes) {
        const Node& node = graph_.nodes[n];
        OpCost cost = NodeCost(graph_, n);
        unit.flops += cost.flops;
        unit.bytes += cost.bytes_moved;
        for (ValueId in : node.inputs) {
          if (in == kNoValue || graph_.values[in].producer == kNoNode) continue;
          UnitId producer = result.unit_of_node[graph_.values[in].producer];
          if (producer != unit.id) unit.predecessors.push_back(producer);
        }
        for (ValueId out : node.outputs) {
          if (out == kNoValue) continue;
          const Value& value = graph_.values[out];
          bool external = value.is_graph_output;
          for (NodeId reader : value.consumers) {
            UnitId reader_unit = result.unit_of_node[reader];
            if (reader_unit != unit.id) {
              external = true;
              unit.successors.push_back(reader_unit);
            }
          }
          if (external) unit.outputs.push_back(out);
        }
      }
      for (auto* list : {&unit.predecessors, &unit.successors}) {
        std::sort(list->begin(), list->end());
        list->erase(std::unique(list->begin(), list->end()), list->end());
      }
      for (UnitId p : unit.predecessors) {
        if (p >= unit.id) return Internal("unit order is not topological at unit " +
                                          std::to_string(unit.id));
      }
    }
    return result;
  }

  const Graph& graph_;
  const UnitOptions& options_;
  std::vector<NodeId> order_;
  std::vector<int> unit_of_;  // NodeId -> group index
  std::vector<Group> groups_;
};

}  // namespace

std::string UnitKindName(UnitKind kind) {
  switch (kind) {
    case UnitKind::kConv: return "Conv";
    case UnitKind::kReluConv: return "ReluConv";
    case UnitKind::kSepConv: return "SepConv";
    case UnitKind::kReluSepConv: return "ReluSepConv";
    case UnitKind::kPool: return "Pool";
    case UnitKind::kAggregation: return "Aggregation";
    case UnitKind::kOp: return "Op";
  }
  return "Op";
}

StatusOr<UnitGraph> FormUnits(const Graph& graph, const UnitOptions& options) {
  return UnitBuilder(graph, options).Build();
}

}  // namespace ios
