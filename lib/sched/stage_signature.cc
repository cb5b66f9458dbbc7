#include "sched/stage_signature.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
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
  *out += LayoutTag(value.layout);  // kernels run each layout differently
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

// ---- SequenceInterner ------------------------------------------------------------------------

SequenceInterner::SequenceInterner() : begin_{0}, slots_(64, -1) {}

uint64_t SequenceInterner::Hash(const int32_t* values, int count) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ static_cast<uint64_t>(count);
  for (int i = 0; i < count; ++i) {
    h ^= static_cast<uint32_t>(values[i]);
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
  }
  return h;
}

bool SequenceInterner::Equal(int32_t id, const int32_t* values, int count) const {
  return length(id) == count &&
         (count == 0 || std::memcmp(data(id), values, sizeof(int32_t) * count) == 0);
}

size_t SequenceInterner::Slot(uint64_t hash, const int32_t* values, int count) const {
  const size_t mask = slots_.size() - 1;
  size_t i = static_cast<size_t>(hash) & mask;
  while (slots_[i] >= 0 && !(hashes_[slots_[i]] == hash && Equal(slots_[i], values, count)))
    i = (i + 1) & mask;
  return i;
}

void SequenceInterner::Grow() {
  std::vector<int32_t> slots(slots_.size() * 2, -1);
  const size_t mask = slots.size() - 1;
  for (int32_t id = 0; id < size(); ++id) {
    size_t i = static_cast<size_t>(hashes_[id]) & mask;
    while (slots[i] >= 0) i = (i + 1) & mask;
    slots[i] = id;
  }
  slots_ = std::move(slots);
}

int32_t SequenceInterner::Find(const int32_t* values, int count) const {
  return slots_[Slot(Hash(values, count), values, count)];
}

int32_t SequenceInterner::Intern(const int32_t* values, int count) {
  const uint64_t hash = Hash(values, count);
  size_t i = Slot(hash, values, count);
  if (slots_[i] >= 0) return slots_[i];
  const int32_t id = size();
  arena_.insert(arena_.end(), values, values + count);
  begin_.push_back(static_cast<uint32_t>(arena_.size()));
  hashes_.push_back(hash);
  slots_[i] = id;
  if (static_cast<size_t>(size()) * 2 > slots_.size()) Grow();  // load factor <= 1/2
  return id;
}

// ---- StageKeyer ------------------------------------------------------------------------------

void StageKeyer::Bind(const Graph& graph, const UnitGraph& units) {
  if (graph_ == &graph && units_ == &units && unit_keys_.size() == units.units.size() &&
      bound_nodes_ == graph.nodes.size()) {
    return;
  }
  graph_ = &graph;
  units_ = &units;
  bound_nodes_ = graph.nodes.size();
  unit_keys_.assign(units.units.size(), -1);
  for (size_t u = 0; u < units.units.size(); ++u) {
    StageCandidate alone;
    alone.groups = {{static_cast<UnitId>(u)}};
    std::string signature = StageSignature(graph, units, alone);
    auto [it, inserted] =
        unit_ids_.emplace(std::move(signature), static_cast<int32_t>(unit_signatures_.size()));
    if (inserted) unit_signatures_.push_back(it->first);
    unit_keys_[u] = it->second;
  }
}

int32_t StageKeyer::StageKey(StageStrategy strategy, int32_t* group_keys, int count) {
  std::sort(group_keys, group_keys + count);
  scratch_.assign(1, static_cast<int32_t>(strategy));
  scratch_.insert(scratch_.end(), group_keys, group_keys + count);
  return stages_.Intern(scratch_.data(), static_cast<int>(scratch_.size()));
}

int32_t StageKeyer::Key(const StageCandidate& stage) {
  std::vector<int32_t> group_keys;
  group_keys.reserve(stage.groups.size());
  std::vector<int32_t> unit_keys;
  for (const std::vector<UnitId>& group : stage.groups) {
    unit_keys.clear();
    for (UnitId u : group) unit_keys.push_back(UnitKey(u));
    group_keys.push_back(GroupKey(unit_keys.data(), static_cast<int>(unit_keys.size())));
  }
  return StageKey(stage.strategy, group_keys.data(), static_cast<int>(group_keys.size()));
}

std::string StageKeyer::Text(int32_t stage_key) const {
  const int32_t* key = stages_.data(stage_key);
  const int length = stages_.length(stage_key);
  std::vector<std::string> groups;
  for (int g = 1; g < length; ++g) {
    std::string text = "{";
    const int32_t* units = groups_.data(key[g]);
    for (int k = 0; k < groups_.length(key[g]); ++k) {
      text += units[k] >= 0 ? unit_signatures_[units[k]] : std::string("?");
      text += '|';
    }
    groups.push_back(text + "}");
  }
  std::sort(groups.begin(), groups.end());  // group ids follow interning order; texts do not
  std::string text =
      static_cast<StageStrategy>(key[0]) == StageStrategy::kMerge ? "merge" : "concurrent";
  for (const std::string& group : groups) text += "\n" + group;
  return text;
}

}  // namespace ios
