#include "passes/eliminate_common_subexpressions.h"

#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace ios {
namespace {

// Ops whose every run draws new values: two of them are not one computation.
bool IsNondeterministic(const std::string& op_type) {
  static const std::unordered_set<std::string> ops = {"RandomNormal",     "RandomUniform",
                                                      "RandomNormalLike", "RandomUniformLike",
                                                      "Multinomial",      "Bernoulli"};
  return ops.count(op_type) != 0;
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.dims() == b.dims() && a.num_bytes() == b.num_bytes() &&
         (a.num_bytes() == 0 || std::memcmp(a.raw(), b.raw(), a.num_bytes()) == 0);
}

bool SameAttribute(const AttributeValue& a, const AttributeValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&b](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, Tensor>) {
          return SameTensor(x, y);
        } else {
          return x == y;  // a NaN float never equals itself: such nodes stay apart
        }
      },
      a);
}

bool SameAttributes(const AttributeMap& a, const AttributeMap& b) {
  if (a.all().size() != b.all().size()) return false;
  auto ia = a.all().begin();
  for (auto ib = b.all().begin(); ib != b.all().end(); ++ia, ++ib)
    if (ia->first != ib->first || !SameAttribute(ia->second, ib->second)) return false;
  return true;
}

void HashCombine(size_t& seed, size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

// Whether two nodes' inputs (merged nodes' outputs already replaced) are the same: the same
// values, or constants of the same content.
bool SameInputs(const Graph& graph, const std::vector<ValueId>& a, const std::vector<ValueId>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    if (a[i] == kNoValue || b[i] == kNoValue) return false;
    const std::optional<Tensor>& x = graph.values[a[i]].constant;
    const std::optional<Tensor>& y = graph.values[b[i]].constant;
    if (!x || !y || !SameTensor(*x, *y)) return false;
  }
  return true;
}

// A hash of what SameInputs compares: a constant by its dtype and shape only, so that weights
// are only read where two nodes could be the same.
size_t HashInputs(const Graph& graph, const std::vector<ValueId>& inputs, size_t seed) {
  for (ValueId in : inputs) {
    const Tensor* constant =
        in != kNoValue && graph.values[in].constant ? &*graph.values[in].constant : nullptr;
    if (constant == nullptr) {
      HashCombine(seed, static_cast<size_t>(in));
      continue;
    }
    HashCombine(seed, static_cast<size_t>(constant->dtype()));
    for (int64_t d : constant->dims()) HashCombine(seed, static_cast<size_t>(d));
  }
  return seed;
}

}  // namespace

int EliminateCommonSubexpressions(Graph& graph) {
  graph.RebuildUses();
  StatusOr<std::vector<NodeId>> order = graph.TopologicalOrder();
  if (!order.ok()) return 0;  // the plan's checks report the cycle
  // A merged node's output -> the kept node's (kNoValue: not replaced).
  std::vector<ValueId> replaced(graph.values.size(), kNoValue);
  auto read = [&replaced](ValueId id) {
    return id == kNoValue || replaced[static_cast<size_t>(id)] == kNoValue
               ? id
               : replaced[static_cast<size_t>(id)];
  };
  // Kept nodes by a hash of their op and inputs.
  std::unordered_map<size_t, std::vector<NodeId>> kept;
  int removed = 0;
  for (NodeId id : order.value()) {
    Node& node = graph.nodes[id];
    if (node.dead) continue;
    for (ValueId& in : node.inputs) in = read(in);
    if (node.outputs.empty() || IsNondeterministic(node.op_type)) continue;
    size_t hash = std::hash<std::string>()(node.op_type);
    HashCombine(hash, static_cast<size_t>(node.opset));
    std::vector<NodeId>& candidates = kept[HashInputs(graph, node.inputs, hash)];
    NodeId same = kNoNode;
    for (NodeId other : candidates) {
      const Node& o = graph.nodes[other];
      if (o.op_type == node.op_type && o.opset == node.opset &&
          o.outputs.size() == node.outputs.size() && SameInputs(graph, o.inputs, node.inputs) &&
          SameAttributes(o.attrs, node.attrs)) {
        same = other;
        break;
      }
    }
    // Every output read must have the kept node's counterpart, and none may be a graph output.
    bool mergeable = same != kNoNode;
    for (size_t i = 0; mergeable && i < node.outputs.size(); ++i) {
      const ValueId out = node.outputs[i];
      if (out == kNoValue) continue;
      mergeable = graph.nodes[same].outputs[i] != kNoValue && !graph.values[out].is_graph_output;
    }
    if (!mergeable) {
      candidates.push_back(id);
      continue;
    }
    for (size_t i = 0; i < node.outputs.size(); ++i)
      if (node.outputs[i] != kNoValue)
        replaced[static_cast<size_t>(node.outputs[i])] = graph.nodes[same].outputs[i];
    node.dead = true;
    ++removed;
  }
  if (removed == 0) return 0;
  graph.Compact();
  graph.RebuildUses();
  return removed;
}

}  // namespace ios
