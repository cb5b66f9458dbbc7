#include "profile/profiled_stage.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "sched/merge_convs.h"

namespace ios {

std::string NodeKernelSignature(const Graph& graph, NodeId id) {
  const Node& node = graph.nodes[id];
  std::string signature = node.op_type + "|" + node.name;
  for (ValueId v : node.inputs)
    signature += "|" + (v == kNoValue ? std::string("-") : DimsToString(graph.values[v].dims));
  for (ValueId v : node.outputs)
    signature += "|" + (v == kNoValue ? std::string("-") : DimsToString(graph.values[v].dims));
  return signature;
}

StatusOr<ScheduleStage> NodeStageOf(const UnitGraph& units, const StageCandidate& stage) {
  ScheduleStage nodes_stage;
  nodes_stage.strategy = stage.strategy;
  for (const std::vector<UnitId>& group : stage.groups) {
    ScheduleGroup& nodes = nodes_stage.groups.emplace_back();
    for (UnitId u : group) {
      if (u < 0 || u >= static_cast<UnitId>(units.units.size()))
        return Internal("stage names unit " + std::to_string(u) + " of " +
                        std::to_string(units.units.size()));
      const Unit& unit = units.units[u];
      nodes.nodes.insert(nodes.nodes.end(), unit.nodes.begin(), unit.nodes.end());
    }
  }
  return nodes_stage;
}

Status CheckStageNodesLive(const Graph& graph, const ScheduleStage& stage) {
  for (const ScheduleGroup& group : stage.groups) {
    for (NodeId n : group.nodes) {
      if (n < 0 || n >= static_cast<NodeId>(graph.nodes.size()) || graph.nodes[n].dead)
        return Internal("stage names node " + std::to_string(n) + ", which is not live");
    }
  }
  return Status::Ok();
}

std::vector<StageBuffer> StageBuffers(const Graph& graph, const ScheduleStage& stage) {
  std::vector<bool> produced(graph.values.size(), false);
  for (const ScheduleGroup& group : stage.groups)
    for (NodeId n : group.nodes)
      for (ValueId out : graph.nodes[n].outputs)
        if (out != kNoValue) produced[out] = true;
  std::vector<bool> seen(graph.values.size(), false);
  std::vector<StageBuffer> buffers;
  std::map<size_t, int> taken[2];  // per kind (input, produced) and byte size: buffers so far
  auto add = [&](ValueId v) {
    if (v == kNoValue || seen[v]) return;
    seen[v] = true;
    const Value& value = graph.values[v];
    if (value.constant) return;
    const size_t bytes = static_cast<size_t>(ValueBytes(value));
    if (bytes == 0) return;
    const bool is_produced = produced[v];
    buffers.push_back(StageBuffer{v, bytes, is_produced, taken[is_produced ? 1 : 0][bytes]++});
  };
  for (const ScheduleGroup& group : stage.groups) {
    for (NodeId n : group.nodes) {
      for (ValueId in : graph.nodes[n].inputs) add(in);
      for (ValueId out : graph.nodes[n].outputs) add(out);
    }
  }
  return buffers;
}

std::vector<StageBuffer> BlockBuffers(const Graph& graph, const ScheduleBlock& block) {
  ScheduleStage all;
  std::vector<int> stage_of(graph.nodes.size(), -1);
  for (size_t s = 0; s < block.stages.size(); ++s) {
    for (const ScheduleGroup& group : block.stages[s].groups) {
      all.groups.push_back(group);
      for (NodeId n : group.nodes) stage_of[static_cast<size_t>(n)] = static_cast<int>(s);
    }
  }
  std::vector<StageBuffer> buffers = StageBuffers(graph, all);
  if (block.stages.size() < 2) return buffers;
  // Each produced value's stages: produced in `first`, last read in `last` (within the block).
  struct Life {
    size_t buffer;
    int first = 0, last = 0;
  };
  std::vector<Life> lives;
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (!buffers[b].produced) continue;
    const Value& value = graph.values[buffers[b].value];
    Life life{b, stage_of[static_cast<size_t>(value.producer)], 0};
    life.last = life.first;
    for (NodeId reader : value.consumers)
      if (stage_of[static_cast<size_t>(reader)] >= 0)
        life.last = std::max(life.last, stage_of[static_cast<size_t>(reader)]);
    lives.push_back(life);
  }
  std::stable_sort(lives.begin(), lives.end(),
                   [](const Life& a, const Life& b) { return a.first < b.first; });
  // Slots of any size: a value takes the smallest free slot that holds it, else the largest
  // free one (which grows to hold it), else a new one. With exact sizes only, NasNet's many
  // shapes kept a slot per shape.
  std::vector<size_t> slot_bytes;
  std::vector<int> slot_of(buffers.size(), -1);
  std::set<std::pair<size_t, int>> free_slots;    // (bytes, slot)
  std::vector<std::pair<int, const Life*>> busy;  // (last stage, life) of buffers in use
  size_t next = 0;
  for (int s = 0; s < static_cast<int>(block.stages.size()); ++s) {
    // Buffers whose last reader ran in an earlier stage are free again.
    for (auto it = busy.begin(); it != busy.end();) {
      if (it->first < s) {
        const int slot = slot_of[it->second->buffer];
        free_slots.insert({slot_bytes[static_cast<size_t>(slot)], slot});
        it = busy.erase(it);
      } else {
        ++it;
      }
    }
    for (; next < lives.size() && lives[next].first == s; ++next) {
      const size_t bytes = buffers[lives[next].buffer].bytes;
      int slot;
      if (free_slots.empty()) {
        slot = static_cast<int>(slot_bytes.size());
        slot_bytes.push_back(bytes);
      } else {
        auto fit = free_slots.lower_bound({bytes, -1});
        if (fit == free_slots.end()) fit = std::prev(fit);  // the largest, grown
        slot = fit->second;
        free_slots.erase(fit);
        size_t& held = slot_bytes[static_cast<size_t>(slot)];
        held = std::max(held, bytes);
      }
      slot_of[lives[next].buffer] = slot;
      busy.emplace_back(lives[next].last, &lives[next]);
    }
  }
  // Each slot is a pool buffer of its final size: its index among the slots of that size.
  std::map<size_t, int> of_size;
  std::vector<int> pool_index(slot_bytes.size());
  for (size_t slot = 0; slot < slot_bytes.size(); ++slot)
    pool_index[slot] = of_size[slot_bytes[slot]]++;
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (slot_of[b] < 0) continue;
    buffers[b].bytes = slot_bytes[static_cast<size_t>(slot_of[b])];
    buffers[b].pool_index = pool_index[static_cast<size_t>(slot_of[b])];
  }
  return buffers;
}

void FillRandomStageInput(float* data, size_t count, std::mt19937& rng) {
  // splitmix64 seeded from `rng`: mt19937 through uniform_real_distribution filled 0.7 GB/s,
  // and batch-8 CPU profiles fill tens of GB of stage inputs. Each 64-bit draw gives two floats:
  // 23 random mantissa bits make a float in [1, 2), moved to [-1, 1).
  uint64_t state = (static_cast<uint64_t>(rng()) << 32) | rng();
  auto to_float = [](uint32_t bits) {
    float f;
    const uint32_t one_to_two = 0x3F800000u | (bits >> 9);
    std::memcpy(&f, &one_to_two, sizeof(f));
    return 2.f * f - 3.f;
  };
  for (size_t i = 0; i < count; i += 2) {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    data[i] = to_float(static_cast<uint32_t>(z));
    if (i + 1 < count) data[i + 1] = to_float(static_cast<uint32_t>(z >> 32));
  }
}

Schedule OneStageSchedule(const ScheduleStage& stage, const std::string& kind) {
  Schedule schedule;
  schedule.kind = kind;
  schedule.blocks.resize(1);
  schedule.blocks[0].stages.push_back(stage);
  return schedule;
}

StatusOr<MergeStageKey> MergeStageKeyOf(const Graph& graph, const ScheduleStage& stage) {
  MergeStageKey key;
  for (const ScheduleGroup& group : stage.groups) {
    if (group.nodes.size() != 1)
      return Internal("a merge stage needs one conv per group; a group has " +
                      std::to_string(group.nodes.size()) + " ops");
    const NodeId n = group.nodes[0];
    if (graph.nodes[n].op_type != "Conv")
      return Internal("a merge stage holds " + graph.Describe(n) + ", which is not a Conv");
    key.convs.push_back(n);
    key.signature += NodeKernelSignature(graph, n) + ";";
  }
  return key;
}

StatusOr<MergedScratchStage> BuildMergedScratchStage(const Graph& graph,
                                                     const std::vector<NodeId>& convs) {
  MergedScratchStage merged;
  Graph& scratch = merged.graph;
  scratch.name = graph.name;
  scratch.source_path = graph.source_path;
  scratch.opset = graph.opset;
  std::map<ValueId, ValueId> copied;  // graph's value -> scratch value
  auto copy_value = [&](ValueId id) -> ValueId {
    if (id == kNoValue) return kNoValue;
    auto it = copied.find(id);
    if (it != copied.end()) return it->second;
    const Value& from = graph.values[id];
    Value value;
    value.name = from.name;
    value.dtype = from.dtype;
    value.dims = from.dims;
    value.has_shape = from.has_shape;
    value.constant = from.constant;
    value.layout = from.layout;
    const ValueId to = scratch.AddValue(std::move(value));
    copied[id] = to;
    return to;
  };
  Schedule schedule;
  schedule.kind = "profiler-merge";
  schedule.blocks.resize(1);
  ScheduleStage& scratch_stage = schedule.blocks[0].stages.emplace_back();
  scratch_stage.strategy = StageStrategy::kMerge;
  for (NodeId n : convs) {
    const Node& from = graph.nodes[n];
    Node node = from;
    node.inputs.clear();
    node.outputs.clear();
    for (ValueId in : from.inputs) {
      const bool is_new = in != kNoValue && copied.count(in) == 0;
      const ValueId to = copy_value(in);
      if (is_new && !scratch.values[to].constant) scratch.inputs.push_back(to);
      node.inputs.push_back(to);
    }
    for (ValueId out : from.outputs) node.outputs.push_back(copy_value(out));
    const NodeId id = scratch.AddNode(std::move(node));
    for (ValueId out : scratch.nodes[id].outputs)
      if (out != kNoValue) scratch.outputs.push_back(out);
    scratch_stage.groups.push_back(ScheduleGroup{{id}});
  }
  scratch.RebuildUses();
  IOS_RETURN_IF_ERROR(
      ApplyMergeStages(scratch, schedule).WithContext("merging a stage to profile it"));
  if (schedule.blocks.size() != 1 || schedule.blocks[0].stages.size() != 1)
    return Internal("ApplyMergeStages changed the shape of a one-stage schedule");
  merged.stage = schedule.blocks[0].stages[0];
  return merged;
}

}  // namespace ios
