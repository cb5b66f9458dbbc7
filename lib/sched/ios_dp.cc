#include "sched/ios_dp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace ios {

Deadline::Deadline(double budget_s) {
  if (budget_s > 0) {
    enabled_ = true;
    end_ = std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(budget_s));
  }
}

bool Deadline::Passed() const { return enabled_ && std::chrono::steady_clock::now() >= end_; }

StageTable::StageTable(const Graph& graph, const UnitGraph& units, const PartDag& dag,
                       StageCostSource& source, IosStrategies strategies, StageMemo& memo)
    : graph_(graph),
      units_(units),
      dag_(dag),
      source_(source),
      strategies_(strategies),
      memo_(memo),
      unit_key_of_bit_(dag.n, -1),
      bounded_(source.BoundsStages() && strategies != IosStrategies::kMergeOnly),
      unit_alone_ms_(dag.n) {
  for (int i = 0; i < dag.n; ++i) {
    const UnitId u = dag.unit_of_bit[i];
    unit_key_of_bit_[i] = memo.keyer.UnitKey(u);
    const Unit& unit = units.units[u];
    if (unit.kind == UnitKind::kConv && unit.nodes.size() == 1) lone_convs_ |= Bit(i);
  }
}

StageCandidate StageTable::Candidate(uint64_t mask, StageStrategy strategy) const {
  StageCandidate candidate;
  candidate.strategy = strategy;
  uint64_t components[kMaxPartUnits];
  const int count = ComponentsInto(dag_, mask, components);
  for (int c = 0; c < count; ++c) {
    std::vector<UnitId> group;
    group.reserve(PopCount(components[c]));
    for (uint64_t m = components[c]; m; m &= m - 1) group.push_back(dag_.unit_of_bit[LowestBit(m)]);
    candidate.groups.push_back(std::move(group));
  }
  return candidate;
}

bool StageTable::MayMerge(const uint64_t* components, int num_components) const {
  if (num_components < 2) return false;
  for (int c = 0; c < num_components; ++c) {
    if (PopCount(components[c]) != 1 || (components[c] & ~lone_convs_) != 0) return false;
  }
  return true;
}

StatusOr<double> StageTable::LowerBound(uint64_t mask) {
  uint64_t components[kMaxPartUnits];
  const int width = ComponentsInto(dag_, mask, components);
  if (strategies_ != IosStrategies::kConcurrentOnly && MayMerge(components, width)) return 0.0;
  double bound = 0;
  for (int g = 0; g < width; ++g) {
    double sum = 0;
    for (uint64_t m = components[g]; m; m &= m - 1) {
      IOS_ASSIGN_OR_RETURN(double alone, UnitAlone(LowestBit(m), width));
      sum += alone;
    }
    bound = std::max(bound, sum);
  }
  return bound;
}

StatusOr<double> StageTable::UnitAlone(int bit, int width) {
  std::vector<double>& by_width = unit_alone_ms_[bit];
  if (by_width.size() <= static_cast<size_t>(width))
    by_width.resize(static_cast<size_t>(width) + 1, std::numeric_limits<double>::quiet_NaN());
  if (std::isnan(by_width[width])) {
    IOS_ASSIGN_OR_RETURN(by_width[width],
                         source_.UnitAloneLatencyMs(graph_, units_, dag_.unit_of_bit[bit], width));
    memo_.asked_ms += by_width[width];
  }
  return by_width[width];
}

StageTable::Entry StageTable::Unpack(double packed) {
  Entry entry;
  if (std::isnan(packed)) return entry;
  entry.allowed = true;
  entry.strategy = std::signbit(packed) ? StageStrategy::kMerge : StageStrategy::kConcurrent;
  entry.latency_ms = std::fabs(packed);
  return entry;
}

double StageTable::Pack(const Entry& entry) {
  if (!entry.allowed) return std::numeric_limits<double>::quiet_NaN();
  return entry.strategy == StageStrategy::kMerge ? -entry.latency_ms : entry.latency_ms;
}

StatusOr<double> StageTable::Ask(const StageCandidate& candidate) {
  StatusOr<double> ms = source_.StageLatencyMs(graph_, units_, candidate);
  if (!ms.ok()) return ms.status();
  ++measured_;
  if (!(ms.value() >= 0) || std::isinf(ms.value())) {
    return Internal("stage cost source '" + source_.Name() + "' returned the latency " +
                    std::to_string(ms.value()) + " ms");
  }
  return ms.value();
}

int StageTable::GroupsOf(uint64_t mask, uint64_t* components, int32_t* group_keys) {
  const int num_groups = ComponentsInto(dag_, mask, components);
  for (int g = 0; g < num_groups; ++g) {
    int32_t unit_keys[kMaxPartUnits];
    int count = 0;
    for (uint64_t m = components[g]; m; m &= m - 1)
      unit_keys[count++] = unit_key_of_bit_[LowestBit(m)];
    group_keys[g] = memo_.keyer.GroupKey(unit_keys, count);
  }
  return num_groups;
}

StatusOr<double> StageTable::Latency(uint64_t mask, StageStrategy strategy,
                                     const int32_t* group_keys, int num_groups) {
  int32_t keys[kMaxPartUnits];
  std::copy(group_keys, group_keys + num_groups, keys);
  const int32_t key = memo_.keyer.StageKey(strategy, keys, num_groups);
  std::vector<double>& known = memo_.latency_ms;
  if (static_cast<size_t>(key) >= known.size())
    known.resize(static_cast<size_t>(key) + 1, std::numeric_limits<double>::quiet_NaN());
  if (!std::isnan(known[key])) return known[key];
  const StageCandidate candidate = Candidate(mask, strategy);
  IOS_ASSIGN_OR_RETURN(double ms, Ask(candidate));
  known[key] = ms;
  // A one-group stage that the source composes of its units runs nothing of its own.
  if (!ComposedOfUnits(source_, candidate)) memo_.asked_ms += ms;
  return ms;
}

StatusOr<StageTable::Entry> StageTable::Get(uint64_t mask) {
  Entry entry;
  if (Peek(mask, &entry)) return entry;
  // GENERATESTAGE (Algorithm 1, L23-33), with the groups' keys built from the units' keys.
  uint64_t components[kMaxPartUnits];
  int32_t group_keys[kMaxPartUnits];
  const int num_groups = GroupsOf(mask, components, group_keys);
  bool has_merge = false;
  double merge_ms = 0;
  if (strategies_ != IosStrategies::kConcurrentOnly && MayMerge(components, num_groups) &&
      CanMergeStage(graph_, units_, Candidate(mask, StageStrategy::kMerge))) {  // the full check
    IOS_ASSIGN_OR_RETURN(merge_ms, Latency(mask, StageStrategy::kMerge, group_keys, num_groups));
    has_merge = true;
  }
  bool has_concurrent = false;
  double concurrent_ms = 0;
  if (strategies_ != IosStrategies::kMergeOnly || (!has_merge && num_groups == 1)) {
    IOS_ASSIGN_OR_RETURN(concurrent_ms,
                         Latency(mask, StageStrategy::kConcurrent, group_keys, num_groups));
    has_concurrent = true;
  }
  if (has_merge && !(has_concurrent && concurrent_ms < merge_ms)) {
    entry = {merge_ms, StageStrategy::kMerge, true};
  } else if (has_concurrent) {
    entry = {concurrent_ms, StageStrategy::kConcurrent, true};
  }
  entries_.Set(mask, Pack(entry));
  return entry;
}

StatusOr<StageTable::Entry> StageTable::GetAllowingConcurrent(uint64_t mask) {
  IOS_ASSIGN_OR_RETURN(Entry entry, Get(mask));
  if (entry.allowed) return entry;
  // Only kMergeOnly rules stages out, and then it never asked for their concurrent latency.
  entry = {0, StageStrategy::kConcurrent, true};
  if (const double* known = forced_.Find(mask)) {
    entry.latency_ms = *known;
  } else {
    uint64_t components[kMaxPartUnits];
    int32_t group_keys[kMaxPartUnits];
    const int num_groups = GroupsOf(mask, components, group_keys);
    IOS_ASSIGN_OR_RETURN(entry.latency_ms,
                         Latency(mask, StageStrategy::kConcurrent, group_keys, num_groups));
    forced_.Set(mask, entry.latency_ms);
  }
  return entry;
}

namespace {

constexpr int kClockEvery = 4096;  // transitions or states between two looks at the clock
constexpr int kBatch = 64;         // endings evaluated together, their lookups prefetched

// The inner loop of Algorithm 1 (L16-21) for one state. The enumerator hands over endings one by
// one; they are evaluated in batches so that the cache misses of the two table lookups per
// transition (the stage's cost, cost[S - S']) overlap.
struct DpContext {
  const Deadline* deadline = nullptr;
  StageTable* stages = nullptr;
  const FlatMaskMap<int32_t>* index = nullptr;
  const std::vector<double>* cost = nullptr;
  uint64_t state = 0;
  double best = 0;
  uint64_t best_choice = 0;
  int64_t transitions = 0;
  int64_t max_transitions = 0;
  bool late = false;
  bool too_many = false;
  Status error;
  uint64_t batch[kBatch];
  int batch_size = 0;
  // Branch and bound (StageTable::bounded): endings whose stage is not known yet wait for the
  // state's known endings, then are measured in order of their bound while it can still win.
  struct Waiting {
    double bound = 0;     // rest_ms + stage_bound
    double rest_ms = 0;   // cost[S - S']
    double stage_bound = 0;
    uint64_t ending = 0;
  };
  bool bounded = false;
  double slack = 0;  // IosOptions::bound_slack
  std::vector<Waiting> waiting;
  int64_t transitions_bounded = 0;
  int64_t bounds_checked = 0;
  int64_t bounds_broken = 0;

  bool Add(uint64_t ending) {
    batch[batch_size++] = ending;
    if (batch_size == kBatch) return Flush();
    return true;
  }

  bool Flush() {
    int size = batch_size;
    batch_size = 0;
    for (int i = 0; i < size; ++i) {
      stages->Prefetch(batch[i]);
      index->Prefetch(state & ~batch[i]);
    }
    for (int i = 0; i < size; ++i) {
      if (!Evaluate(batch[i])) return false;
    }
    return true;
  }

  bool Evaluate(uint64_t ending) {
    if (transitions == max_transitions) {  // the guard: this transition would be one too many
      too_many = true;
      return false;
    }
    if ((++transitions % kClockEvery) == 0 && deadline->Passed()) {
      late = true;
      return false;
    }
    StageTable::Entry entry;
    const bool known = stages->Peek(ending, &entry);
    if (known && !entry.allowed) return true;
    const int32_t* rest = index->Find(state & ~ending);
    if (rest == nullptr) {
      error = Internal("IOS: the remainder of a state is not a state");
      return false;
    }
    if (!known) {
      if (bounded) {
        waiting.push_back({0, (*cost)[*rest], 0, ending});
        return true;
      }
      if (!Measure(ending, &entry)) return false;
      if (!entry.allowed) return true;
    }
    Consider((*cost)[*rest] + entry.latency_ms, ending);
    return true;
  }

  void Consider(double total, uint64_t ending) {
    if (total < best) {
      best = total;
      best_choice = ending;
    }
  }

  // A new stage: the source may take long to measure it (a profiler runs it).
  bool Measure(uint64_t ending, StageTable::Entry* entry) {
    if (deadline->Passed()) {
      late = true;
      return false;
    }
    StatusOr<StageTable::Entry> got = stages->Get(ending);
    if (!got.ok()) {
      error = got.status();
      return false;
    }
    *entry = got.value();
    return true;
  }

  // The waiting endings, after every known one: cheapest bound first, until none can win.
  bool ResolveWaiting() {
    for (Waiting& w : waiting) {
      w.bound = std::numeric_limits<double>::infinity();
      if (!(w.rest_ms < best)) continue;  // loses even if the stage were free
      StatusOr<double> stage_bound = stages->LowerBound(w.ending);
      if (!stage_bound.ok()) {
        error = stage_bound.status();
        return false;
      }
      w.stage_bound = stage_bound.value();
      w.bound = w.rest_ms + w.stage_bound * (1 - slack);
    }
    std::sort(waiting.begin(), waiting.end(),
              [](const Waiting& a, const Waiting& b) { return a.bound < b.bound; });
    for (size_t i = 0; i < waiting.size(); ++i) {
      const Waiting& w = waiting[i];
      if (!(w.bound < best)) {
        transitions_bounded += static_cast<int64_t>(waiting.size() - i);
        break;
      }
      StageTable::Entry entry;
      if (!Measure(w.ending, &entry)) return false;
      if (!entry.allowed) continue;
      ++bounds_checked;
      if (entry.latency_ms < w.stage_bound) ++bounds_broken;
      Consider(w.rest_ms + entry.latency_ms, w.ending);
    }
    return true;
  }
};

}  // namespace

StatusOr<PartDpResult> RunPartDp(const PartDag& dag, const IosOptions& options, StageTable& stages,
                                 const Deadline& deadline) {
  PartDpResult result;
  // 1. The states: every down-set of the part.
  std::vector<uint64_t> states;
  bool too_many = false;
  bool late = false;
  ForEachDownSet(dag, [&](uint64_t state) {
    states.push_back(state);
    if (static_cast<int64_t>(states.size()) > options.max_states) {
      too_many = true;
      return false;
    }
    if (states.size() % kClockEvery == 0 && deadline.Passed()) {
      late = true;
      return false;
    }
    return true;
  });
  result.states = static_cast<int64_t>(states.size());
  if (too_many) {
    result.fallback = "more than " + std::to_string(options.max_states) + " states (max_states)";
    return result;
  }
  if (late) {
    result.fallback = kTimeBudgetFallback;
    return result;
  }

  // 2. Smaller states first: S - S' is always done before S.
  {
    std::vector<std::vector<uint64_t>> by_size(dag.n + 1);
    for (uint64_t state : states) by_size[PopCount(state)].push_back(state);
    states.clear();
    for (const auto& bucket : by_size) states.insert(states.end(), bucket.begin(), bucket.end());
  }
  FlatMaskMap<int32_t> index(states.size());
  for (size_t i = 0; i < states.size(); ++i) index.Set(states[i], static_cast<int32_t>(i));
  std::vector<double> cost(states.size(), 0);
  std::vector<uint64_t> choice(states.size(), 0);

  // 3. cost[S] = min over endings S' of cost[S - S'] + latency(S').
  DpContext context;
  context.deadline = &deadline;
  context.stages = &stages;
  context.index = &index;
  context.cost = &cost;
  context.max_transitions = options.max_transitions_per_part;
  context.bounded = stages.bounded();
  context.slack = options.bound_slack;
  DpContext* ctx = &context;
  const MaskCallback visit = [ctx](uint64_t ending) { return ctx->Add(ending); };
  EndingEnumerator enumerator(dag, options.endings, options.max_group_units, options.max_groups);
  for (size_t i = 0; i < states.size(); ++i) {
    if (states[i] == 0) continue;  // cost[∅] = 0
    context.state = states[i];
    context.best = std::numeric_limits<double>::infinity();
    context.best_choice = 0;
    context.batch_size = 0;
    context.waiting.clear();
    if (enumerator.ForEach(states[i], visit) && context.Flush()) context.ResolveWaiting();
    if (!context.error.ok()) return context.error;
    if (context.late || context.too_many) {
      result.transitions = context.transitions;
      result.transitions_bounded = context.transitions_bounded;
      result.fallback = context.late
                            ? kTimeBudgetFallback
                            : "more than " + std::to_string(options.max_transitions_per_part) +
                                  " transitions (max_transitions_per_part)";
      return result;
    }
    if (context.best_choice == 0)
      return Internal("IOS: a state has no ending under the pruning (a bug)");
    cost[i] = context.best;
    choice[i] = context.best_choice;
  }
  result.transitions = context.transitions;
  result.transitions_bounded = context.transitions_bounded;
  result.bounds_checked = context.bounds_checked;
  result.bounds_broken = context.bounds_broken;

  // 4. The schedule, from choice[] (Algorithm 1, L6-11).
  for (uint64_t state = dag.all; state != 0;) {
    const int32_t* i = index.Find(state);
    if (i == nullptr) return Internal("IOS: lost a state while rebuilding the schedule");
    result.stages.push_back(choice[*i]);
    state &= ~choice[*i];
  }
  std::reverse(result.stages.begin(), result.stages.end());
  const int32_t* all = index.Find(dag.all);
  result.latency_ms = all ? cost[*all] : 0;
  return result;
}

std::vector<uint64_t> GreedyPartStages(const PartDag& dag, int max_groups) {
  std::vector<uint64_t> stages;
  uint64_t done = 0;
  while (done != dag.all) {
    uint64_t stage = 0;
    int count = 0;
    for (uint64_t m = dag.all & ~done; m; m &= m - 1) {
      int u = LowestBit(m);
      if ((dag.pred[u] & ~done) != 0) continue;
      stage |= Bit(u);
      if (max_groups > 0 && ++count == max_groups) break;
    }
    stages.push_back(stage);
    done |= stage;
  }
  return stages;
}

}  // namespace ios
