// Private to the IOS scheduler: the dynamic program of one block part (ios_endings.h has the
// DAG and the enumerations), and the per-part table of stage costs it reads.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sched/stage_cost_source.h"
#include "sched/stage_signature.h"
#include "sched/ios_endings.h"
#include "sched/ios_scheduler.h"

namespace ios {

// uint64 -> V, open addressing with linear probing, power-of-two capacity, key and value side by
// side (one cache line per probe). Key 0 is kept aside, so slots need no occupancy flag.
template <typename V>
class FlatMaskMap {
 public:
  explicit FlatMaskMap(size_t expected = 16) { Rehash(Capacity(expected)); }

  // The value for `key`, or nullptr.
  const V* Find(uint64_t key) const {
    if (key == 0) return has_zero_ ? &zero_value_ : nullptr;
    for (size_t i = Hash(key) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return &slots_[i].value;
      if (slots_[i].key == 0) return nullptr;
    }
  }
  V* Find(uint64_t key) { return const_cast<V*>(static_cast<const FlatMaskMap*>(this)->Find(key)); }

  // Inserts or overwrites.
  void Set(uint64_t key, V value) {
    if (key == 0) {
      if (!has_zero_) ++size_;
      has_zero_ = true;
      zero_value_ = std::move(value);
      return;
    }
    if ((size_ + 1) * 2 > slots_.size()) Rehash(slots_.size() * 2);
    size_t i = Hash(key) & mask_;
    while (slots_[i].key != 0 && slots_[i].key != key) i = (i + 1) & mask_;
    if (slots_[i].key == 0) ++size_;
    slots_[i].key = key;
    slots_[i].value = std::move(value);
  }

  // Starts loading the slot where `key` would be (a hint; batches of lookups overlap their
  // cache misses this way).
  void Prefetch(uint64_t key) const {
    if (key != 0) __builtin_prefetch(&slots_[Hash(key) & mask_]);
  }

  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t key = 0;
    V value{};
  };
  static size_t Capacity(size_t expected) {
    size_t capacity = 16;
    while (capacity < expected * 2) capacity *= 2;
    return capacity;
  }
  static size_t Hash(uint64_t key) {  // splitmix64's finaliser
    key ^= key >> 30;
    key *= 0xbf58476d1ce4e5b9ULL;
    key ^= key >> 27;
    key *= 0x94d049bb133111ebULL;
    key ^= key >> 31;
    return static_cast<size_t>(key);
  }
  void Rehash(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    for (Slot& slot : old) {
      if (slot.key == 0) continue;
      size_t j = Hash(slot.key) & mask_;
      while (slots_[j].key != 0) j = (j + 1) & mask_;
      slots_[j] = std::move(slot);
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
  bool has_zero_ = false;
  V zero_value_{};
};

class Deadline {
 public:
  explicit Deadline(double budget_s);
  bool Passed() const;

 private:
  bool enabled_ = false;
  std::chrono::steady_clock::time_point end_;
};

// Stage latencies by stage key (StageKeyer, stage_signature.h) for a whole search: every part
// asks the source once per key, so a stage that an earlier part (a repeated cell) or another
// stage of the same part already costed, identical up to wiring, costs a few hash lookups.
struct StageMemo {
  StageMemo(const Graph& graph, const UnitGraph& units) { keyer.Bind(graph, units); }
  StageKeyer keyer;
  std::vector<double> latency_ms;  // by stage key; NaN = not asked yet
  // The latencies of what the search asked the source to measure (stages, except one-group
  // stages it composes of their units; units alone for the bounds), summed: what measuring took,
  // in runs of those, the same whether the figures came from a timing cache or were measured
  // now (IosOptions::profile_budget_s).
  double asked_ms = 0;
};

// The cost of a stage S' of one part, by mask: asked of the memo (then the source) once per
// strategy, and the strategy chosen as GENERATESTAGE does (Algorithm 1: concurrent if strictly
// cheaper, else merge). Groups are the components of S' ordered by their first unit, units in
// topological order.
//   kBoth:           concurrent always; merge too when CanMergeStage;
//   kConcurrentOnly: concurrent;
//   kMergeOnly:      merge when CanMergeStage; otherwise the stage is allowed only if it is a
//                    single group (<= r units, run as a one-group concurrent stage), so that
//                    every state still has an ending (a single sink unit always is one).
// Whether a stage may merge depends on its wiring (one shared input), so it is decided per mask;
// the merge latency is then keyed like any stage (exact, stage_signature.h).
//
// One 16-byte slot per distinct mask (a part can see millions): the chosen latency, with the
// strategy in the sign bit (negative = merge) and NaN for a stage the strategies rule out.
class StageTable {
 public:
  struct Entry {
    double latency_ms = 0;
    StageStrategy strategy = StageStrategy::kConcurrent;
    bool allowed = false;
  };

  StageTable(const Graph& graph, const UnitGraph& units, const PartDag& dag,
             StageCostSource& source, IosStrategies strategies, StageMemo& memo);

  // The DP's view: `allowed` is false when the strategies rule the stage out.
  StatusOr<Entry> Get(uint64_t mask);
  // Get's answer if the stage was seen before (the DP's fast path); false otherwise.
  bool Peek(uint64_t mask, Entry* entry) const {
    const double* packed = entries_.Find(mask);
    if (packed == nullptr) return false;
    *entry = Unpack(*packed);
    return true;
  }
  void Prefetch(uint64_t mask) const { entries_.Prefetch(mask); }
  // For the greedy fallback: always allowed (a stage kMergeOnly rules out runs concurrently).
  StatusOr<Entry> GetAllowingConcurrent(uint64_t mask);

  // Whether the source bounds stages (StageCostSource::BoundsStages) and the strategies let the
  // bounds pay: under kMergeOnly the stages that are measured are merges, which have none.
  bool bounded() const { return bounded_; }
  // A lower bound on Get(mask).latency_ms: the largest over the stage's groups of the sum of
  // their units alone at the stage's width (UnitAloneLatencyMs, asked once per unit and width).
  // 0 for a stage that may merge: a merged conv is not bounded by its parts.
  StatusOr<double> LowerBound(uint64_t mask);
  // UnitAloneLatencyMs of local unit `bit` at `width`, asked once per unit and width.
  StatusOr<double> UnitAlone(int bit, int width);

  // The stage's groups (components of `mask`, by first unit) as unit ids.
  StageCandidate Candidate(uint64_t mask, StageStrategy strategy) const;
  // Distinct stage keys this part asked the source for (keys earlier parts asked are free).
  int64_t measured() const { return measured_; }

 private:
  static Entry Unpack(double packed);
  static double Pack(const Entry& entry);
  // The components of `mask` (room for 64) and their groups' keys; returns their number.
  int GroupsOf(uint64_t mask, uint64_t* components, int32_t* group_keys);
  // The latency of the stage `mask` under `strategy`, whose groups have the keys `group_keys`.
  StatusOr<double> Latency(uint64_t mask, StageStrategy strategy, const int32_t* group_keys,
                           int num_groups);
  StatusOr<double> Ask(const StageCandidate& candidate);
  // CanMergeStage's first conditions (stage_cost.h), by mask: two groups or more, each one
  // Conv unit of one op. They reject almost every stage and are cheap.
  bool MayMerge(const uint64_t* components, int num_components) const;

  const Graph& graph_;
  const UnitGraph& units_;
  const PartDag& dag_;
  StageCostSource& source_;
  IosStrategies strategies_;
  StageMemo& memo_;
  std::vector<int32_t> unit_key_of_bit_;  // the keyer's unit key of each local unit
  uint64_t lone_convs_ = 0;               // local units that are a Conv unit of one op
  FlatMaskMap<double> entries_;           // Get's answers, packed, by mask
  FlatMaskMap<double> forced_;            // the fallback's concurrent latencies of ruled-out stages
  int64_t measured_ = 0;
  bool bounded_ = false;
  // UnitAloneLatencyMs by local unit and stage width; NaN = not asked yet.
  std::vector<std::vector<double>> unit_alone_ms_;
};

// PartDpResult::fallback and PartSearchStats::fallback once the time budget is spent.
inline constexpr char kTimeBudgetFallback[] = "time budget";

struct PartDpResult {
  std::vector<uint64_t> stages;  // execution order; empty when `fallback` is set
  double latency_ms = 0;
  int64_t states = 0;
  int64_t transitions = 0;
  // Transitions to a stage not measured yet whose lower bound showed it could not beat the
  // state's best (the stage was not measured for them).
  int64_t transitions_bounded = 0;
  // Stages measured after their bound was taken, and how many of them measured below it
  // (noise, or a bound that does not hold on this device).
  int64_t bounds_checked = 0;
  int64_t bounds_broken = 0;
  std::string fallback;  // why the DP gave up (max states, max transitions, time budget) or empty
};

// Runs Algorithm 1 on one part: enumerates the states (down-sets; gives up past
// options.max_states), then fills cost[S] and choice[S] in order of increasing |S| (gives up past
// options.max_transitions_per_part transitions), and rebuilds the stages from choice. Errors are
// the cost source's.
// Branch and bound, when stages.bounded(): per state, the endings whose stage is already known
// are evaluated first; the others wait, in order of cost[S - S'] + (1 - options.bound_slack) *
// LowerBound(S'), and are measured only while that is below the best total so far. Once it is
// not, no waiting ending can win (a stage costs at least its bound), so the choice is the one
// the full DP makes whenever the bounds hold. Stages that lose this way are never measured, and
// stay unknown to the table.
StatusOr<PartDpResult> RunPartDp(const PartDag& dag, const IosOptions& options, StageTable& stages,
                                 const Deadline& deadline);

// GreedySchedule's rule on one part: each stage takes every ready unit, up to `max_groups`
// (0 = all), in topological order.
std::vector<uint64_t> GreedyPartStages(const PartDag& dag, int max_groups);

}  // namespace ios
