// Two canonical forms of a stage.
//
// 1. StageSignature: the exact text of a stage. Two stages with the same signature run the same
//    kernels on the same shapes in the same arrangement, wherever they sit in the graph. Per
//    group, its ops in execution order, each with
//    - the unit it belongs to (unit kind; a new unit starts a new bracket),
//    - op type and opset,
//    - every input: dtype and dims, and where it comes from: `@k.o` = output o of the group's
//      k-th op, or `x`/`c` (a runtime value / a constant) read n times by the whole stage (`x2`:
//      two reads, e.g. two groups sharing their input); `-` for an omitted optional input,
//    - every output's dtype and dims,
//    - every attribute (sorted by name, the fused activation's `ios.*` attributes included),
//      floats written exactly (hexadecimal), tensors by dtype, dims and SHA-256 of their bytes.
//    Node, value and unit names and ids never appear. The groups are sorted (a stage is a
//    multiset of groups), and the strategy comes first. Unchanged by moving the stage elsewhere,
//    renaming, reordering the groups; changed by any shape, dtype, attribute, activation, opset,
//    op order, intra-group data flow, sharing of inputs, unit structure, or the strategy.
//
// 2. StageKeyer: the key under which a stage's latency is measured once (CachedStageCost, the
//    IOS search, the timing cache). It is coarser than the signature, on purpose:
//      key = strategy + multiset of groups, a group = the sequence of its units' signatures in
//            execution order, a unit's signature = StageSignature of the unit alone.
//    What a stage's latency depends on, and why the key keeps or drops it:
//    - Kept: every op's kernel (type, opset, attributes, activation) and the shapes and dtypes
//      of its inputs and outputs, weights included; the unit structure (a folded Sum is a
//      kernel with as many input reads as it has inputs); the order of the units within a group
//      (a group is one stream: on a GPU which of its kernels overlaps which kernel of another
//      stream depends on that order, so [big, small] beside [small, big] is not [big, small]
//      beside [big, small]); the number of groups and the strategy.
//    - Dropped: which earlier unit of a group feeds which later one (the intra-group data
//      flow). A group runs its kernels in order on one stream whatever feeds what; the kernels
//      and their shapes are the same. Dropped too: whether two groups read the same outside
//      tensor or two tensors of the same shape. Every kernel reads its inputs from device
//      memory either way; the launch count, FLOPs and bytes requested are identical.
//    - What a profiler would measure differently, honestly: cache locality. A consumer that
//      reads the tensor its predecessor in the group just wrote finds it in L2 (GPU) or in the
//      last-level cache (CPU); two groups sharing one input read it once from DRAM and then from
//      cache. So two stages with one key can differ by those cache hits, a few per cent on small
//      tensors on the CPU profiler, less on a GPU with a small L2 relative to the tensors. The
//      key takes the first stage of a kind it sees as the measurement of all of them; the
//      analytic model has no cache model, so for it the key is exact.
//    - Merge stages stay exact: a merge stage exists only when CanMergeStage holds, which
//      requires every conv to read the same tensor, so the key (the convs' signatures: input
//      shape, weights, pads, strides, activation) determines the merged conv completely. Whether
//      a stage may merge depends on the wiring and is decided per stage, never by key.
//    RandWire's nodes and NasNet's repeated cells produce many stages that differ only by
//    wiring; they share one key, so one measurement.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/stage_cost_source.h"
#include "ir/graph.h"
#include "sched/units.h"

namespace ios {

std::string StageSignature(const Graph& graph, const UnitGraph& units, const StageCandidate& stage);

// Interns sequences of int32 values: equal sequences get one id, ids count from 0. Lookups do not
// allocate; open addressing over a flat arena.
class SequenceInterner {
 public:
  SequenceInterner();
  // The id of the sequence, new or old.
  int32_t Intern(const int32_t* values, int count);
  // The id of the sequence, or -1 if it was never interned.
  int32_t Find(const int32_t* values, int count) const;
  int32_t size() const { return static_cast<int32_t>(begin_.size()) - 1; }
  // The sequence of an id.
  const int32_t* data(int32_t id) const { return arena_.data() + begin_[id]; }
  int length(int32_t id) const { return static_cast<int>(begin_[id + 1] - begin_[id]); }

 private:
  static uint64_t Hash(const int32_t* values, int count);
  bool Equal(int32_t id, const int32_t* values, int count) const;
  size_t Slot(uint64_t hash, const int32_t* values, int count) const;
  void Grow();

  std::vector<int32_t> arena_;
  std::vector<uint32_t> begin_;   // begin_[id]..begin_[id + 1] in arena_
  std::vector<uint64_t> hashes_;  // per id
  std::vector<int32_t> slots_;    // id or -1
};

// Integer keys of stages (point 2 above). Keys are stable for the life of the keyer and
// comparable across graphs: units are interned by their signature's text.
class StageKeyer {
 public:
  // Computes the signatures of the units of `units` once per (graph, unit graph); cheap when the
  // same pair comes again.
  void Bind(const Graph& graph, const UnitGraph& units);
  // The interned signature of a unit of the bound unit graph (-1 for an id out of range).
  int32_t UnitKey(UnitId unit) const {
    return unit >= 0 && static_cast<size_t>(unit) < unit_keys_.size() ? unit_keys_[unit] : -1;
  }
  // The key of a group, from its units' keys in execution order.
  int32_t GroupKey(const int32_t* unit_keys, int count) { return groups_.Intern(unit_keys, count); }
  // The key of a stage from its groups' keys, in any order (`group_keys` is sorted in place).
  int32_t StageKey(StageStrategy strategy, int32_t* group_keys, int count);
  // The key of a candidate of the bound unit graph.
  int32_t Key(const StageCandidate& stage);
  // The canonical text of a key, independent of interning order (for timing caches).
  std::string Text(int32_t stage_key) const;
  int32_t size() const { return stages_.size(); }

 private:
  const Graph* graph_ = nullptr;
  const UnitGraph* units_ = nullptr;
  size_t bound_nodes_ = 0;
  std::vector<int32_t> unit_keys_;                     // by UnitId of the bound unit graph
  std::unordered_map<std::string, int32_t> unit_ids_;  // unit signature -> id
  std::vector<std::string> unit_signatures_;           // by id
  SequenceInterner groups_;                            // unit ids -> group key
  SequenceInterner stages_;  // strategy, then sorted group keys -> stage key
  std::vector<int32_t> scratch_;
};

}  // namespace ios
