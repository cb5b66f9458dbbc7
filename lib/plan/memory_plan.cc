#include "plan/memory_plan.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "plan/in_place.h"
#include "plan/tensor_views.h"
#include "util/checked_int.h"

namespace ios {
namespace {

int64_t AlignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Number of stages across all blocks.
int CountStages(const Schedule& schedule) {
  int stages = 0;
  for (const ScheduleBlock& block : schedule.blocks)
    stages += static_cast<int>(block.stages.size());
  return stages;
}

std::string DescribeValue(const Graph& graph, ValueId id) {
  return "value " + std::to_string(id) + " ('" + graph.values[id].name + "')";
}

// Bytes of a value's tensor; an error when its shape or dtype is unknown or the size overflows.
StatusOr<int64_t> PlacedBytes(const Graph& graph, ValueId id) {
  const Value& value = graph.values[id];
  int64_t element_size = static_cast<int64_t>(DTypeSize(value.dtype));
  if (!value.has_shape || element_size == 0)
    return Internal(DescribeValue(graph, id) + " has no inferred shape or dtype");
  int64_t bytes = element_size;
  for (int64_t d : value.dims) {
    if (d < 0 || (d > 0 && bytes > std::numeric_limits<int64_t>::max() / d))
      return Internal(DescribeValue(graph, id) + " has an invalid size " +
                      DimsToString(value.dims));
    bytes *= d;
  }
  return bytes;
}

struct Interval {
  int64_t begin = 0;  // byte range [begin, end)
  int64_t end = 0;
};

// Best fit: the smallest gap between the `busy` ranges (sorted by begin) that holds `bytes` at
// an aligned offset, lowest offset on ties; above everything when no gap fits.
int64_t FindOffset(const std::vector<Interval>& busy, int64_t bytes, int64_t alignment) {
  int64_t best_offset = -1;
  int64_t best_gap = std::numeric_limits<int64_t>::max();
  int64_t cursor = 0;  // everything below is taken or a considered gap
  for (const Interval& range : busy) {
    if (range.begin > cursor) {
      int64_t offset = AlignUp(cursor, alignment);
      int64_t gap = range.begin - cursor;
      if (offset + bytes <= range.begin && gap < best_gap) {
        best_gap = gap;
        best_offset = offset;
      }
    }
    cursor = std::max(cursor, range.end);
  }
  return best_offset >= 0 ? best_offset : AlignUp(cursor, alignment);
}

// The global stage of every scheduled node (-1 for the others).
std::vector<int> NodeStages(const Graph& graph, const Schedule& schedule) {
  std::vector<int> stage_of(graph.nodes.size(), -1);
  int stage_index = 0;
  for (const ScheduleBlock& block : schedule.blocks) {
    for (const ScheduleStage& stage : block.stages) {
      for (const ScheduleGroup& group : stage.groups)
        for (NodeId n : group.nodes)
          if (n >= 0 && n < static_cast<NodeId>(graph.nodes.size())) stage_of[n] = stage_index;
      ++stage_index;
    }
  }
  return stage_of;
}

// Per value, the nodes that read it in the last stage it is live in (`last`), each once.
std::vector<std::vector<NodeId>> LastStageReaders(const Graph& graph,
                                                  const std::vector<int>& node_stage,
                                                  const std::vector<int>& last) {
  std::vector<std::vector<NodeId>> readers(graph.values.size());
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.dead || node_stage[n] < 0) continue;
    for (ValueId in : node.inputs) {
      if (in == kNoValue || node_stage[n] != last[in]) continue;
      std::vector<NodeId>& mine = readers[in];
      if (mine.empty() || mine.back() != static_cast<NodeId>(n))
        mine.push_back(static_cast<NodeId>(n));
    }
  }
  return readers;
}

// Whether node `n` (in stage `stage`) may write its output over input `in`'s bytes: the op
// allows it (plan/in_place.h), and `in` dies with this node, no other node reading it in the
// same stage, where a concurrent group or a later node of the group could still read it.
bool InPlacePair(const Graph& graph, NodeId n, ValueId in, int stage, int in_last,
                 const std::vector<NodeId>& in_last_readers, const KernelCapsTable& kernels) {
  const Node& node = graph.nodes[n];
  bool allowed = false;
  for (size_t i = 0; i < node.inputs.size(); ++i)
    allowed = allowed || (node.inputs[i] == in && MayRunInPlace(graph, node, i, kernels));
  return allowed && in_last == stage && in_last_readers.size() == 1 && in_last_readers[0] == n;
}

// Per value: the input whose bytes this in-place output takes, or kNoValue (see PlanMemory).
std::vector<ValueId> FindInPlaceOutputs(const Graph& graph, const Schedule& schedule,
                                        const std::vector<LiveInterval>& live,
                                        const std::vector<TensorView>& views,
                                        const KernelCapsTable& kernels) {
  std::vector<ValueId> shares_with(graph.values.size(), kNoValue);
  std::vector<bool> in_a_view(graph.values.size(), false);
  for (const TensorView& view : views) in_a_view[view.value] = in_a_view[view.base] = true;
  std::vector<bool> interface(graph.values.size(), false);
  for (ValueId id : graph.inputs) interface[id] = true;
  for (ValueId id : graph.outputs) interface[id] = true;
  const std::vector<int> node_stage = NodeStages(graph, schedule);
  std::vector<int> last(graph.values.size());
  for (size_t v = 0; v < graph.values.size(); ++v) last[v] = live[v].last;
  const std::vector<std::vector<NodeId>> last_readers =
      LastStageReaders(graph, node_stage, last);
  std::vector<bool> taken(graph.values.size(), false);  // an input already overwritten
  for (const ScheduleBlock& block : schedule.blocks) {
    for (const ScheduleStage& stage : block.stages) {
      for (const ScheduleGroup& group : stage.groups) {
        for (NodeId n : group.nodes) {
          const Node& node = graph.nodes[n];
          if (node.outputs.size() != 1) continue;
          const ValueId out = node.outputs[0];
          if (out == kNoValue || live[out].first < 0 || in_a_view[out] || interface[out])
            continue;
          for (ValueId in : node.inputs) {
            if (in == kNoValue || graph.values[in].constant || live[in].first < 0 ||
                in_a_view[in] || interface[in] || taken[in] || in == out)
              continue;
            if (shares_with[in] != kNoValue && live[in].first == node_stage[n]) continue;
            if (!InPlacePair(graph, n, in, node_stage[n], live[in].last, last_readers[in], kernels))
              continue;
            shares_with[out] = in;
            taken[in] = true;
            break;
          }
        }
      }
    }
  }
  return shares_with;
}

}  // namespace

std::vector<ByteRange> PlacedRanges(const TensorPlacement& placement, const Value& value) {
  if (placement.pitch <= 0 || value.dims.empty() || value.dims[0] <= 1)
    return {{placement.offset, placement.offset + placement.bytes}};
  const int64_t items = value.dims[0];
  const int64_t item_bytes = placement.bytes / items;
  std::vector<ByteRange> ranges;
  ranges.reserve(static_cast<size_t>(items));
  for (int64_t i = 0; i < items; ++i) {
    const int64_t begin = placement.offset + i * placement.pitch;
    ranges.push_back({begin, begin + item_bytes});
  }
  return ranges;
}

std::vector<LiveInterval> ComputeLiveIntervals(const Graph& graph, const Schedule& schedule) {
  std::vector<LiveInterval> live(graph.values.size(), LiveInterval{-1, -1});
  const int last_stage = std::max(0, CountStages(schedule) - 1);
  for (ValueId id : graph.inputs)
    if (!graph.values[id].constant) live[id] = {0, 0};
  int stage_index = 0;
  for (const ScheduleBlock& block : schedule.blocks) {
    for (const ScheduleStage& stage : block.stages) {
      for (const ScheduleGroup& group : stage.groups) {
        for (NodeId n : group.nodes) {
          const Node& node = graph.nodes[n];
          for (ValueId out : node.outputs) {
            if (out == kNoValue || graph.values[out].constant) continue;
            live[out].first = stage_index;
            live[out].last = std::max(live[out].last, stage_index);
          }
          for (ValueId in : node.inputs) {
            if (in == kNoValue || graph.values[in].constant) continue;
            live[in].last = std::max(live[in].last, stage_index);
          }
        }
      }
      ++stage_index;
    }
  }
  for (ValueId id : graph.outputs)
    if (!graph.values[id].constant && live[id].first >= 0) live[id].last = last_stage;
  // Inputs live for the whole run too: no tensor reuses their bytes, so a session may run again
  // on the inputs it was given (a benchmark's repeated runs, a server's retry) and get the same
  // outputs. They cost the arena their own size.
  for (ValueId id : graph.inputs)
    if (!graph.values[id].constant) live[id].last = last_stage;
  return live;
}

StatusOr<MemoryPlan> PlanMemory(const Graph& graph, const Schedule& schedule,
                                const KernelCapsTable& kernels, int64_t alignment, bool slice_views,
                                bool in_place) {
  if (alignment <= 0 || (alignment & (alignment - 1)) != 0)
    return Internal("memory alignment " + std::to_string(alignment) + " is not a power of two");
  IOS_RETURN_IF_ERROR(ValidateSchedule(graph, schedule));
  std::vector<LiveInterval> live = ComputeLiveIntervals(graph, schedule);

  // A read of a value that nothing produces (and that is no input or constant) is a broken graph.
  for (const Node& node : graph.nodes) {
    if (node.dead) continue;
    for (ValueId in : node.inputs) {
      if (in != kNoValue && !graph.values[in].constant && live[in].first < 0)
        return Internal(DescribeValue(graph, in) + " is read but never produced");
    }
  }

  // Zero-copy slices: a view takes no bytes of its own, and its base lives as long as any view.
  std::vector<const TensorView*> view_of(graph.values.size(), nullptr);
  std::vector<TensorView> views;
  if (slice_views) views = FindSliceViews(graph, kernels);
  for (const TensorView& view : views) {
    if (live[view.value].first < 0 || live[view.base].first < 0) continue;
    view_of[view.value] = &view;
    live[view.base].first = std::min(live[view.base].first, live[view.value].first);
    live[view.base].last = std::max(live[view.base].last, live[view.value].last);
  }

  // In-place outputs (plan/in_place.h): such an output takes its input's bytes, and the two
  // are placed as one item live from the input's first stage to the output's last. A chain of
  // them shares one item, but only across stages: a value that is itself in place and read in
  // place in the stage that made it would leave three values on the same bytes in one stage.
  const std::vector<ValueId> shares_with =
      in_place ? FindInPlaceOutputs(graph, schedule, live, views, kernels)
               : std::vector<ValueId>(graph.values.size(), kNoValue);
  // Each in-place chain's root (the value that owns the bytes) and the stages it spans.
  std::vector<ValueId> root(graph.values.size(), kNoValue);
  std::vector<LiveInterval> span = live;
  for (size_t v = 0; v < graph.values.size(); ++v) {
    ValueId r = static_cast<ValueId>(v);
    while (shares_with[r] != kNoValue) r = shares_with[r];
    root[v] = r;
    if (r != static_cast<ValueId>(v) && live[v].first >= 0) {
      span[r].first = std::min(span[r].first, live[v].first);
      span[r].last = std::max(span[r].last, live[v].last);
    }
  }

  struct Item {
    ValueId value;
    int64_t bytes;
  };
  std::vector<Item> items;
  MemoryPlan plan;
  plan.alignment = alignment;
  std::vector<TensorPlacement> view_placements;
  // Every offset below is at most the placed items' bytes, each aligned, stacked: checked once
  // here, so that a graph whose tensors are each within int64 but not together is an error.
  CheckedInt64 total = 0;
  CheckedInt64 stacked = 0;
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (live[v].first < 0) continue;
    IOS_ASSIGN_OR_RETURN(int64_t bytes, PlacedBytes(graph, static_cast<ValueId>(v)));
    total += bytes;
    if (view_of[v] != nullptr) {
      view_placements.push_back({static_cast<ValueId>(v), view_of[v]->byte_offset, bytes,
                                 view_of[v]->base, view_of[v]->pitch});
      continue;
    }
    if (root[v] == static_cast<ValueId>(v)) {
      items.push_back({static_cast<ValueId>(v), bytes});
      stacked += CheckedInt64(bytes) + alignment;
    }
  }
  if (!total.ok() || !stacked.ok())
    return InvalidInput(graph.source_path + ": the graph's tensors need more than 2^63 bytes " +
                        "in all");
  plan.total_tensor_bytes = *total.get();
  // Largest first; ties by when they become live, then by id, so that the plan is deterministic.
  std::sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (span[a.value].first != span[b.value].first)
      return span[a.value].first < span[b.value].first;
    return a.value < b.value;
  });

  std::vector<TensorPlacement> placed;
  std::vector<Interval> busy;
  for (const Item& item : items) {
    const LiveInterval& mine = span[item.value];
    busy.clear();
    for (const TensorPlacement& other : placed) {
      const LiveInterval& theirs = span[other.value];
      bool overlap = mine.first <= theirs.last && theirs.first <= mine.last;
      if (overlap && other.bytes > 0) busy.push_back({other.offset, other.offset + other.bytes});
    }
    std::sort(busy.begin(), busy.end(),
              [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
    int64_t offset = item.bytes == 0 ? 0 : FindOffset(busy, item.bytes, alignment);
    placed.push_back({item.value, offset, item.bytes, kNoValue, 0});
    plan.arena_bytes = std::max(plan.arena_bytes, AlignUp(offset + item.bytes, alignment));
  }
  std::vector<int64_t> offset_of(graph.values.size(), -1);
  for (const TensorPlacement& p : placed) offset_of[p.value] = p.offset;
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (root[v] == static_cast<ValueId>(v) || live[v].first < 0) continue;
    offset_of[v] = offset_of[root[v]];
    placed.push_back({static_cast<ValueId>(v), offset_of[v], ValueBytes(graph.values[v]),
                      kNoValue, 0});
  }
  for (TensorPlacement& view : view_placements) {
    view.offset += offset_of[view.view_of];  // the base is never a view itself
    placed.push_back(view);
  }
  std::sort(placed.begin(), placed.end(),
            [](const TensorPlacement& a, const TensorPlacement& b) { return a.value < b.value; });
  plan.placements = std::move(placed);
  return plan;
}

// Independent of the planner: stages come from its own walk of the schedule, live intervals
// from the graph's nodes (not the schedule's order), and overlaps from a sweep per stage.
Status CheckMemoryPlan(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                       const KernelCapsTable& kernels) {
  const int64_t num_values = static_cast<int64_t>(graph.values.size());
  if (plan.alignment <= 0)
    return Internal("memory plan alignment " + std::to_string(plan.alignment));

  // The stage of every scheduled node.
  std::vector<int> node_stage(graph.nodes.size(), -1);
  int num_stages = 0;
  for (const ScheduleBlock& block : schedule.blocks) {
    for (const ScheduleStage& stage : block.stages) {
      for (const ScheduleGroup& group : stage.groups) {
        for (NodeId n : group.nodes) {
          if (n < 0 || n >= static_cast<NodeId>(graph.nodes.size()))
            return Internal("the schedule names node " + std::to_string(n) +
                            ", which does not exist");
          node_stage[n] = num_stages;
        }
      }
      ++num_stages;
    }
  }

  // Live stages of each value: from the stage that writes it (0 for a graph input) to the last
  // stage that reads it (the last stage for a graph output). `needed` marks the values that must
  // be placed: every non-constant value that a live node or the graph's interface mentions.
  std::vector<int> first(num_values, std::numeric_limits<int>::max());
  std::vector<int> last(num_values, -1);
  std::vector<bool> needed(num_values, false);
  auto touch = [&](ValueId v, int stage) {
    needed[v] = true;
    first[v] = std::min(first[v], stage);
    last[v] = std::max(last[v], stage);
  };
  for (ValueId v : graph.inputs) touch(v, 0);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.dead) continue;
    int stage = node_stage[n];
    if (stage < 0)
      return Internal("the schedule never runs " + graph.Describe(static_cast<NodeId>(n)));
    for (ValueId v : node.outputs)
      if (v != kNoValue) touch(v, stage);
    for (ValueId v : node.inputs)
      if (v != kNoValue) touch(v, stage);
  }
  for (ValueId v : graph.outputs) {
    needed[v] = true;
    last[v] = std::max(last[v], num_stages - 1);
    first[v] = std::min(first[v], last[v]);
  }

  // Every needed non-constant value placed once, with its size, aligned, inside the arena.
  std::vector<int> placement_of(num_values, -1);
  CheckedInt64 total = 0;
  for (size_t i = 0; i < plan.placements.size(); ++i) {
    const TensorPlacement& p = plan.placements[i];
    if (p.value < 0 || p.value >= num_values)
      return Internal("placement " + std::to_string(i) + " names value " + std::to_string(p.value) +
                      ", but the graph has " + std::to_string(num_values) + " values");
    const Value& value = graph.values[p.value];
    std::string what = "value " + std::to_string(p.value) + " ('" + value.name + "')";
    if (value.constant) return Internal(what + " is a constant but has an arena placement");
    if (placement_of[p.value] >= 0) return Internal(what + " is placed twice");
    placement_of[p.value] = static_cast<int>(i);
    int64_t expected = ValueBytes(value);
    if (p.bytes != expected)
      return Internal(what + " is placed with " + std::to_string(p.bytes) +
                      " bytes but its tensor " + DimsToString(value.dims) + " has " +
                      std::to_string(expected));
    // A view starts where its slice does: aligned to kViewAlignment, not to the arena's.
    const int64_t required = p.view_of == kNoValue ? plan.alignment : kViewAlignment;
    if (p.offset < 0 || p.offset % required != 0)
      return Internal(what + " is placed at offset " + std::to_string(p.offset) +
                      ", which is not a multiple of the alignment " + std::to_string(required));
    const CheckedInt64 end = CheckedInt64(p.offset) + p.bytes;
    if (!(end <= plan.arena_bytes))
      return Internal(what + " ends at byte " +
                      (end.ok() ? std::to_string(*end.get()) : std::string("2^63 or later")) +
                      ", past the arena of " + std::to_string(plan.arena_bytes) + " bytes");
    total += p.bytes;
  }
  for (int64_t v = 0; v < num_values; ++v) {
    if (needed[v] && !graph.values[v].constant && placement_of[v] < 0)
      return Internal("value " + std::to_string(v) + " ('" + graph.values[v].name +
                      "') has no placement in the memory plan");
  }
  // Views: inside a base that owns its bytes, disjoint from the base's other views, and the base
  // holds those bytes in every stage where the view is live.
  std::vector<std::vector<const TensorPlacement*>> views_of(static_cast<size_t>(num_values));
  for (const TensorPlacement& p : plan.placements) {
    if (p.view_of == kNoValue) continue;
    const std::string what =
        "view value " + std::to_string(p.value) + " ('" + graph.values[p.value].name + "')";
    if (p.view_of < 0 || p.view_of >= num_values || placement_of[p.view_of] < 0)
      return Internal(what + " is a view of value " + std::to_string(p.view_of) +
                      ", which has no placement");
    const TensorPlacement& base = plan.placements[static_cast<size_t>(placement_of[p.view_of])];
    if (base.view_of != kNoValue)
      return Internal(what + " is a view of a view (value " + std::to_string(p.view_of) + ")");
    const Value& view_value = graph.values[p.value];
    const Value& base_value = graph.values[p.view_of];
    // Row-major, or contiguous channels-blocked-8 (plan/tensor_views.h).
    const bool blocked = view_value.layout == Layout::kChannelsBlocked8 &&
                         base_value.layout == Layout::kChannelsBlocked8 && p.pitch == 0;
    if (!blocked &&
        (view_value.layout != Layout::kRowMajor || base_value.layout != Layout::kRowMajor))
      return Internal(what +
                      " or its base is channels-last; views are of row-major tensors, or "
                      "contiguous ones of blocked tensors, only");
    if (p.pitch != 0) {
      // Strided: the same batch, and the base's bytes per batch item between the slices.
      const bool batched = !view_value.dims.empty() && !base_value.dims.empty() &&
                           view_value.dims[0] == base_value.dims[0] && view_value.dims[0] > 0;
      if (!batched || CheckedInt64(p.pitch) * base_value.dims[0] != base.bytes ||
          p.pitch % kViewAlignment != 0 || p.bytes % view_value.dims[0] != 0)
        return Internal(what + " has a pitch of " + std::to_string(p.pitch) +
                        " bytes, which is not its base's bytes per batch item");
    }
    // Each item's range starts up to the base's size past the view's offset (PlacedRanges).
    if ((CheckedInt64(p.offset) + p.bytes + base.bytes).overflowed())
      return Internal(what + " at offset " + std::to_string(p.offset) +
                      " has byte ranges past 2^63");
    const std::vector<ByteRange> ranges = PlacedRanges(p, view_value);
    if (ranges.front().begin < base.offset || ranges.back().end > base.offset + base.bytes ||
        (p.pitch != 0 && ranges.front().end - base.offset > p.pitch))
      return Internal(what + " at bytes [" + std::to_string(ranges.front().begin) + ", " +
                      std::to_string(ranges.back().end) + ") is not inside its base at [" +
                      std::to_string(base.offset) + ", " +
                      std::to_string(base.offset + base.bytes) + ")");
    for (const TensorPlacement* sibling : views_of[static_cast<size_t>(p.view_of)]) {
      for (const ByteRange& mine : ranges) {
        for (const ByteRange& theirs : PlacedRanges(*sibling, graph.values[sibling->value])) {
          if (mine.begin < mine.end && theirs.begin < theirs.end && mine.begin < theirs.end &&
              theirs.begin < mine.end)
            return Internal(what + " overlaps value " + std::to_string(sibling->value) +
                            ", another view of the same base");
        }
      }
    }
    views_of[static_cast<size_t>(p.view_of)].push_back(&p);
    if (needed[p.value]) {
      needed[p.view_of] = true;
      first[p.view_of] = std::min(first[p.view_of], first[p.value]);
      last[p.view_of] = std::max(last[p.view_of], last[p.value]);
    }
  }
  if (total != plan.total_tensor_bytes)
    return Internal("the memory plan's total_tensor_bytes is " +
                    std::to_string(plan.total_tensor_bytes) + " but its placements add up to " +
                    (total.ok() ? std::to_string(*total.get()) : std::string("more than 2^63")));

  // An in-place output (plan/in_place.h) may share its input's bytes, exactly, in the stage of
  // the node that writes it, when that node is the input's only reader there and the last one.
  std::vector<NodeId> producer(num_values, -1);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].dead) continue;
    for (ValueId v : graph.nodes[n].outputs)
      if (v != kNoValue) producer[v] = static_cast<NodeId>(n);
  }
  const std::vector<std::vector<NodeId>> last_readers = LastStageReaders(graph, node_stage, last);
  auto in_place = [&](const TensorPlacement& a, const TensorPlacement& b, int stage) {
    if (a.offset != b.offset || a.bytes != b.bytes) return false;
    for (const auto& [out, in] :
         {std::make_pair(a.value, b.value), std::make_pair(b.value, a.value)}) {
      const NodeId n = producer[out];
      if (n >= 0 && node_stage[n] == stage && first[out] == stage &&
          views_of[static_cast<size_t>(in)].empty() &&
          InPlacePair(graph, n, in, stage, last[in], last_readers[in], kernels))
        return true;
    }
    return false;
  };

  // Per stage, the placed values live in it must not share a byte.
  for (int stage = 0; stage < num_stages; ++stage) {
    std::vector<const TensorPlacement*> live;
    for (const TensorPlacement& p : plan.placements)
      if (p.bytes > 0 && p.view_of == kNoValue && needed[p.value] && first[p.value] <= stage &&
          stage <= last[p.value])
        live.push_back(&p);
    std::sort(live.begin(), live.end(), [](const TensorPlacement* a, const TensorPlacement* b) {
      return a->offset < b->offset;
    });
    const TensorPlacement* reach = nullptr;  // the live range ending highest so far
    for (const TensorPlacement* p : live) {
      if (reach != nullptr && p->offset < reach->offset + reach->bytes &&
          !in_place(*p, *reach, stage)) {
        return Internal("value " + std::to_string(p->value) + " ('" + graph.values[p->value].name +
                        "') at bytes [" + std::to_string(p->offset) + ", " +
                        std::to_string(p->offset + p->bytes) + ") overlaps value " +
                        std::to_string(reach->value) + " ('" + graph.values[reach->value].name +
                        "') at [" + std::to_string(reach->offset) + ", " +
                        std::to_string(reach->offset + reach->bytes) + "), both live in stage " +
                        std::to_string(stage));
      }
      if (reach == nullptr || p->offset + p->bytes > reach->offset + reach->bytes) reach = p;
    }
  }
  return Status::Ok();
}

}  // namespace ios
