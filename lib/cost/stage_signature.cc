#include "cost/stage_signature.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "util/sha256.h"

namespace ios {
namespace {

// Strings are length-prefixed so that no content can imitate a separator.
void AppendString(const std::string& s, std::string* out) {
  *out += std::to_string(s.size());
  *out += ':';
  *out += s;
}

void AppendFloat(double value, std::string* out) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%a", value);
  *out += buffer;
}

void AppendDims(const Dims& dims, std::string* out) {
  *out += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) *out += ',';
    *out += std::to_string(dims[i]);
  }
  *out += ']';
}

void AppendType(const Value& value, std::string* out) {
  *out += DTypeName(value.dtype);
  if (value.has_shape) {
    AppendDims(value.dims, out);
  } else {
    *out += "[?]";
  }
}

void AppendAttribute(const AttributeValue& value, std::string* out) {
  if (const auto* i = std::get_if<int64_t>(&value)) {
    *out += "i" + std::to_string(*i);
  } else if (const auto* f = std::get_if<float>(&value)) {
    *out += 'f';
    AppendFloat(*f, out);
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    *out += 's';
    AppendString(*s, out);
  } else if (const auto* ints = std::get_if<std::vector<int64_t>>(&value)) {
    *out += "I";
    AppendDims(*ints, out);
  } else if (const auto* floats = std::get_if<std::vector<float>>(&value)) {
    *out += "F[";
    for (size_t k = 0; k < floats->size(); ++k) {
      if (k > 0) *out += ',';
      AppendFloat((*floats)[k], out);
    }
    *out += ']';
  } else if (const auto* strings = std::get_if<std::vector<std::string>>(&value)) {
    *out += "S[";
    for (const std::string& s : *strings) AppendString(s, out);
    *out += ']';
  } else if (const auto* tensor = std::get_if<Tensor>(&value)) {
    *out += "T" + DTypeName(tensor->dtype());
    AppendDims(tensor->dims(), out);
    *out +=
        Sha256Hex(std::string(reinterpret_cast<const char*>(tensor->raw()), tensor->num_bytes()));
  }
}

// The ops of a group in execution order.
std::vector<NodeId> GroupNodes(const UnitGraph& units, const std::vector<UnitId>& group,
                               std::vector<UnitId>* unit_of_op) {
  std::vector<NodeId> nodes;
  for (UnitId u : group) {
    if (u < 0 || static_cast<size_t>(u) >= units.units.size()) continue;
    for (NodeId n : units.units[u].nodes) {
      nodes.push_back(n);
      unit_of_op->push_back(u);
    }
  }
  return nodes;
}

}  // namespace

std::string StageSignature(const Graph& graph, const UnitGraph& units,
                           const StageCandidate& stage) {
  // Per group: its ops, and for each value produced inside the group (op index, output index).
  struct GroupOps {
    std::vector<NodeId> nodes;
    std::vector<UnitId> unit_of_op;
    std::map<ValueId, std::pair<size_t, size_t>> produced;
  };
  std::vector<GroupOps> groups(stage.groups.size());
  for (size_t g = 0; g < stage.groups.size(); ++g) {
    groups[g].nodes = GroupNodes(units, stage.groups[g], &groups[g].unit_of_op);
  }

  // Reads of values from outside the reading group, counted over the whole stage.
  std::map<ValueId, int> external_reads;
  for (GroupOps& group : groups) {
    for (size_t k = 0; k < group.nodes.size(); ++k) {
      const Node& node = graph.nodes[group.nodes[k]];
      for (ValueId in : node.inputs) {
        if (in != kNoValue && !group.produced.count(in)) ++external_reads[in];
      }
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        if (node.outputs[o] != kNoValue) group.produced[node.outputs[o]] = {k, o};
      }
    }
    group.produced.clear();  // rebuilt while writing, so that only earlier ops count
  }

  std::vector<std::string> group_keys;
  for (GroupOps& group : groups) {
    std::string key;
    UnitId current_unit = -1;
    for (size_t k = 0; k < group.nodes.size(); ++k) {
      if (k == 0 || group.unit_of_op[k] != current_unit) {
        if (k > 0) key += "]";
        current_unit = group.unit_of_op[k];
        key += "[" + UnitKindName(units.units[current_unit].kind) + ":";
      }
      const Node& node = graph.nodes[group.nodes[k]];
      key += "<";
      AppendString(node.op_type, &key);
      key += "/" + std::to_string(node.opset) + "(";
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (i > 0) key += ',';
        const ValueId in = node.inputs[i];
        if (in == kNoValue) {
          key += '-';
          continue;
        }
        AppendType(graph.values[in], &key);
        auto inside = group.produced.find(in);
        if (inside != group.produced.end()) {
          key += "@" + std::to_string(inside->second.first) + "." +
                 std::to_string(inside->second.second);
        } else {
          key += graph.values[in].constant.has_value() ? 'c' : 'x';
          key += std::to_string(external_reads[in]);
        }
      }
      key += ")->(";
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        if (o > 0) key += ',';
        if (node.outputs[o] == kNoValue) {
          key += '-';
        } else {
          AppendType(graph.values[node.outputs[o]], &key);
          group.produced[node.outputs[o]] = {k, o};
        }
      }
      key += "){";
      for (const auto& [name, value] : node.attrs.all()) {
        AppendString(name, &key);
        key += '=';
        AppendAttribute(value, &key);
        key += ';';
      }
      key += "}>";
    }
    if (!group.nodes.empty()) key += "]";
    group_keys.push_back(std::move(key));
  }
  std::sort(group_keys.begin(), group_keys.end());

  std::string signature = stage.strategy == StageStrategy::kMerge ? "merge" : "concurrent";
  signature += "{" + std::to_string(group_keys.size()) + "}";
  for (const std::string& key : group_keys) {
    signature += "{";
    signature += key;
    signature += "}";
  }
  return signature;
}

}  // namespace ios
