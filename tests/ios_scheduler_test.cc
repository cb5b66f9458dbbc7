// The IOS dynamic program against an independent brute force on random small DAGs, plus the
// counts, pruning, strategies and fallbacks. Units, blocks and the graph are built by hand: one
// or two dummy ops per unit, wired so that ValidateSchedule sees the units' dependencies.
#include "sched/ios_scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "passes/canonicalize.h"
#include "sched/blocks.h"
#include "sched/dag_width.h"
#include "sched/schedule.h"
#include "test_graph_builder.h"
#include "test_paths.h"

namespace ios {
namespace {

using Edges = std::vector<std::pair<int, int>>;

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Latency = a deterministic function of the candidate (its sorted groups and strategy): each
// unit costs 1, scaled by a factor in [0.3, 1) drawn from the hash, so concurrency sometimes
// pays. Or a constant 1 ms. Counts the calls.
class FakeCost : public StageCostSource {
 public:
  explicit FakeCost(uint64_t seed, bool constant = false) : seed_(seed), constant_(constant) {}
  // Merged stages cost this fraction of their random latency.
  void set_merge_factor(double factor) { merge_factor_ = factor; }

  StatusOr<double> StageLatencyMs(const Graph&, const UnitGraph&,
                                  const StageCandidate& stage) override {
    ++calls_;
    // Hash of the sorted groups: groups come with their units in order, and sorting by first
    // unit orders disjoint groups.
    std::vector<const std::vector<UnitId>*> groups;
    for (const auto& group : stage.groups) groups.push_back(&group);
    std::sort(groups.begin(), groups.end(),
              [](const auto* a, const auto* b) { return a->front() < b->front(); });
    uint64_t h = 0x1234;
    size_t units = 0;
    for (const auto* group : groups) {
      for (UnitId u : *group) h = Mix(h ^ static_cast<uint64_t>(u + 1));
      h = Mix(h ^ 0xfeedULL);
      units += group->size();
    }
    h = Mix(h ^ static_cast<uint64_t>(stage.strategy));
    if (constant_) return 1.0;
    h = Mix(h ^ seed_);
    double fraction = static_cast<double>(h >> 11) * 0x1.0p-53;
    double ms = static_cast<double>(units) * (0.3 + 0.7 * fraction);
    return stage.strategy == StageStrategy::kMerge ? ms * merge_factor_ : ms;
  }
  std::string Name() const override { return "fake"; }
  DeviceFingerprint Fingerprint() const override { return {}; }

  int64_t calls() const { return calls_; }

 private:
  uint64_t seed_;
  bool constant_;
  double merge_factor_ = 1;
  int64_t calls_ = 0;
};

struct FakeModel {
  Graph graph;
  BlockStructure blocks;
  int n = 0;
  std::vector<uint64_t> succ;  // bit masks, for the independent checks below
  std::vector<uint64_t> pred;
};

// Units 0..n-1 in topological order (edges (u, v) need u < v); unit u has two ops when its tag
// (below) % 3 == 2.
// `part_sizes` cuts the single block into consecutive parts (empty = one part).
// The search asks the source once per stage key (units compared by signature, wiring ignored,
// stage_signature.h). FakeCost's latencies follow unit ids, so every unit carries its id as an
// attribute, and keys are distinct per set of groups. With `tags`, unit u carries tags[u] instead:
// units with equal tags (and as many ops and inputs) look alike, like repeated cells.
FakeModel MakeModel(int n, const Edges& edges, std::vector<int> part_sizes = {},
                    const std::vector<int>& tags = {}) {
  FakeModel m;
  m.n = n;
  m.succ.assign(n, 0);
  m.pred.assign(n, 0);
  UnitGraph& ug = m.blocks.unit_graph;
  ug.units.resize(n);
  for (auto [u, v] : edges) {
    EXPECT_LT(u, v);
    ug.units[u].successors.push_back(v);
    ug.units[v].predecessors.push_back(u);
    if (n <= 64) {
      m.succ[u] |= uint64_t{1} << v;
      m.pred[v] |= uint64_t{1} << u;
    }
  }
  Graph& g = m.graph;
  Value input;
  input.name = "x";
  ValueId x = g.AddValue(input);
  g.inputs.push_back(x);
  std::vector<ValueId> unit_output(n, kNoValue);
  for (int u = 0; u < n; ++u) {
    Unit& unit = ug.units[u];
    unit.id = u;
    unit.kind = UnitKind::kOp;
    auto sort_unique = [](std::vector<UnitId>& v) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    sort_unique(unit.successors);
    sort_unique(unit.predecessors);
    const int tag = tags.empty() ? u : tags[u];
    int ops = tag % 3 == 2 ? 2 : 1;
    ValueId previous = kNoValue;
    for (int k = 0; k < ops; ++k) {
      Node node;
      node.name = "u" + std::to_string(u) + "_" + std::to_string(k);
      node.op_type = "Relu";
      node.attrs.Set("tag", int64_t{tag});
      if (k == 0) {
        for (UnitId p : unit.predecessors) node.inputs.push_back(unit_output[p]);
        if (node.inputs.empty()) node.inputs.push_back(x);
      } else {
        node.inputs.push_back(previous);
      }
      Value out;
      out.name = node.name + ":0";
      previous = g.AddValue(out);
      node.outputs.push_back(previous);
      NodeId id = g.AddNode(node);
      unit.nodes.push_back(id);
      ug.unit_of_node.push_back(u);
    }
    unit_output[u] = previous;
    if (unit.successors.empty()) g.outputs.push_back(previous);
  }
  g.RebuildUses();

  Block block;
  std::vector<std::vector<int>> successors(n);
  for (int u = 0; u < n; ++u)
    successors[u] = {ug.units[u].successors.begin(), ug.units[u].successors.end()};
  for (int u = 0; u < n; ++u) block.units.push_back(u);
  block.width = n > 0 ? DagWidth(successors) : 0;
  if (part_sizes.empty()) part_sizes = {n};
  int begin = 0;
  for (int size : part_sizes) {
    BlockPart part;
    for (int u = begin; u < begin + size; ++u) part.units.push_back(u);
    part.width = block.width;
    block.parts.push_back(part);
    begin += size;
  }
  EXPECT_EQ(begin, n);
  m.blocks.blocks.push_back(block);
  return m;
}

Edges RandomEdges(int n, double p, std::mt19937_64& rng) {
  Edges edges;
  std::bernoulli_distribution coin(p);
  for (int v = 0; v < n; ++v)
    for (int u = 0; u < v; ++u)
      if (coin(rng)) edges.push_back({u, v});
  return edges;
}

IosOptions Options(Endings endings, int r, int s, IosStrategies strategies = IosStrategies::kBoth) {
  IosOptions options;
  options.endings = endings;
  options.max_group_units = r;
  options.max_groups = s;
  options.strategies = strategies;
  return options;
}

// ---- The independent brute force: endings straight from their definitions. ----

class BruteForce {
 public:
  BruteForce(const FakeModel& m, Endings endings, int r, int s, StageCostSource& cost)
      : m_(m), endings_(endings), r_(r), s_(s), cost_(cost) {}

  // Components of `set` by a plain depth-first search over the edge lists.
  std::vector<std::vector<int>> Components(uint64_t set) const {
    std::vector<std::vector<int>> components;
    uint64_t seen = 0;
    for (int start = 0; start < m_.n; ++start) {
      if (!(set >> start & 1) || (seen >> start & 1)) continue;
      std::vector<int> component, stack = {start};
      seen |= uint64_t{1} << start;
      while (!stack.empty()) {
        int u = stack.back();
        stack.pop_back();
        component.push_back(u);
        for (int v = 0; v < m_.n; ++v) {
          bool edge = (m_.succ[u] >> v & 1) || (m_.pred[u] >> v & 1);
          if (edge && (set >> v & 1) && !(seen >> v & 1)) {
            seen |= uint64_t{1} << v;
            stack.push_back(v);
          }
        }
      }
      std::sort(component.begin(), component.end());
      components.push_back(component);
    }
    return components;
  }

  // u and everything reachable from u, within `state`.
  uint64_t ClosureIn(int u, uint64_t state) const {
    uint64_t reached = uint64_t{1} << u;
    for (bool grew = true; grew;) {
      grew = false;
      for (int a = 0; a < m_.n; ++a) {
        if (!(reached >> a & 1)) continue;
        uint64_t more = m_.succ[a] & state & ~reached;
        if (more) {
          reached |= more;
          grew = true;
        }
      }
    }
    return reached;
  }

  bool IsEnding(uint64_t state, uint64_t ending) const {
    if (ending == 0 || (ending & ~state) != 0) return false;
    for (int u = 0; u < m_.n; ++u)
      if ((ending >> u & 1) && (m_.succ[u] & state & ~ending) != 0) return false;
    auto components = Components(ending);
    if (s_ > 0 && static_cast<int>(components.size()) > s_) return false;
    for (const auto& component : components) {
      if (r_ > 0 && static_cast<int>(component.size()) > r_) return false;
      if (endings_ == Endings::kReference) {
        uint64_t mask = 0;
        for (int u : component) mask |= uint64_t{1} << u;
        bool rooted = false;
        for (int u : component) rooted = rooted || ClosureIn(u, state) == mask;
        if (!rooted) return false;
      }
    }
    return true;
  }

  const std::vector<uint64_t>& EndingsOf(uint64_t state) {
    auto it = endings_of_.find(state);
    if (it != endings_of_.end()) return it->second;
    std::vector<uint64_t> list;
    for (uint64_t sub = state; sub != 0; sub = (sub - 1) & state)
      if (IsEnding(state, sub)) list.push_back(sub);
    return endings_of_[state] = list;
  }

  double StageCost(uint64_t ending) {
    auto it = stage_cost_.find(ending);
    if (it != stage_cost_.end()) return it->second;
    StageCandidate candidate;
    for (const auto& component : Components(ending))
      candidate.groups.push_back({component.begin(), component.end()});
    StatusOr<double> ms = cost_.StageLatencyMs(m_.graph, m_.blocks.unit_graph, candidate);
    EXPECT_TRUE(ms.ok());
    return stage_cost_[ending] = ms.value();
  }

  // Every schedule of `state`: every sequence of endings, the last stage chosen first.
  double BestOverAllSchedules(uint64_t state, double suffix) {
    if (state == 0) {
      ++schedules_;
      return suffix;
    }
    double best = std::numeric_limits<double>::infinity();
    for (uint64_t ending : EndingsOf(state))
      best = std::min(best, BestOverAllSchedules(state & ~ending, suffix + StageCost(ending)));
    return best;
  }

  bool IsDownSet(uint64_t set) const {
    for (int u = 0; u < m_.n; ++u)
      if ((set >> u & 1) && (m_.pred[u] & ~set) != 0) return false;
    return true;
  }

  // (states, transitions, distinct endings) over every down-set, from the definitions.
  void Count(int64_t* states, int64_t* transitions, int64_t* distinct) {
    std::set<uint64_t> all_endings;
    *states = *transitions = 0;
    uint64_t full = m_.n == 64 ? ~uint64_t{0} : (uint64_t{1} << m_.n) - 1;
    for (uint64_t set = 0;; ++set) {
      if (IsDownSet(set)) {
        ++*states;
        for (uint64_t e : EndingsOf(set)) {
          ++*transitions;
          all_endings.insert(e);
        }
      }
      if (set == full) break;
    }
    *distinct = static_cast<int64_t>(all_endings.size());
  }

  int64_t schedules() const { return schedules_; }

 private:
  const FakeModel& m_;
  Endings endings_;
  int r_, s_;
  StageCostSource& cost_;
  std::map<uint64_t, std::vector<uint64_t>> endings_of_;
  std::map<uint64_t, double> stage_cost_;
  int64_t schedules_ = 0;
};

// ---- Schedule checks ----

int PopCountOf(uint64_t mask) { return __builtin_popcountll(mask); }

// ValidateSchedule, plus: groups are made of whole units, connected, at most r units, stages at
// most s groups, groups of a stage are its components, and for kReference each group is a root
// with its descendants among the units not yet scheduled.
void ExpectValidIosSchedule(const FakeModel& m, const Schedule& schedule, Endings endings, int r,
                            int s) {
  Status valid = ValidateSchedule(m.graph, schedule);
  ASSERT_TRUE(valid.ok()) << valid.message();
  const UnitGraph& ug = m.blocks.unit_graph;
  FakeCost unused_cost(0);
  BruteForce helper(m, endings, r, s, unused_cost);
  ASSERT_EQ(schedule.blocks.size(), m.blocks.blocks.size());
  for (const ScheduleBlock& block : schedule.blocks) {
    // Units scheduled up to and including each stage = the state that stage ended.
    std::vector<uint64_t> stage_masks;
    for (const ScheduleStage& stage : block.stages) {
      if (s > 0) {
        EXPECT_LE(static_cast<int>(stage.groups.size()), s);
      }
      uint64_t stage_mask = 0;
      std::vector<uint64_t> group_masks;
      for (const ScheduleGroup& group : stage.groups) {
        uint64_t mask = 0;
        size_t i = 0;
        while (i < group.nodes.size()) {
          UnitId u = ug.unit_of_node[group.nodes[i]];
          const auto& nodes = ug.units[u].nodes;
          ASSERT_LE(i + nodes.size(), group.nodes.size());
          ASSERT_TRUE(std::equal(nodes.begin(), nodes.end(), group.nodes.begin() + i));
          mask |= uint64_t{1} << u;
          i += nodes.size();
        }
        if (r > 0) {
          EXPECT_LE(PopCountOf(mask), r);
        }
        EXPECT_EQ(helper.Components(mask).size(), 1u) << "a group is not connected";
        group_masks.push_back(mask);
        stage_mask |= mask;
      }
      EXPECT_EQ(helper.Components(stage_mask).size(), group_masks.size());
      stage_masks.push_back(stage_mask);
    }
    if (endings != Endings::kReference) continue;
    uint64_t state = 0;
    for (uint64_t mask : stage_masks) state |= mask;
    for (size_t k = block.stages.size(); k-- > 0;) {
      for (const auto& component : helper.Components(stage_masks[k])) {
        uint64_t mask = 0;
        for (int u : component) mask |= uint64_t{1} << u;
        bool rooted = false;
        for (int u : component) rooted = rooted || helper.ClosureIn(u, state) == mask;
        EXPECT_TRUE(rooted) << "a reference group is not a root with its descendants";
      }
      state &= ~stage_masks[k];
    }
  }
}

IosSearchResult RunIos(const FakeModel& m, StageCostSource& cost, const IosOptions& options) {
  StatusOr<IosSearchResult> result = IosSchedule(m.graph, m.blocks, cost, options);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? std::move(result).value() : IosSearchResult{};
}

struct Pruning {
  int r, s;
};
const Pruning kPrunings[] = {{0, 0}, {1, 1}, {2, 2}, {3, 8}, {2, 1}, {1, 3}, {0, 2}, {3, 0}};

TEST(IosSchedulerTest, MatchesBruteForceOnRandomDags) {
  std::mt19937_64 rng(20210404);
  std::uniform_int_distribution<int> size(1, 9);
  std::uniform_real_distribution<double> density(0.15, 0.7);
  int64_t total_schedules = 0;
  for (int trial = 0; trial < 300; ++trial) {
    int n = size(rng);
    FakeModel m = MakeModel(n, RandomEdges(n, density(rng), rng));
    for (Endings endings : {Endings::kPaper, Endings::kReference}) {
      for (const Pruning& pruning : kPrunings) {
        SCOPED_TRACE("trial " + std::to_string(trial) + " n " + std::to_string(n) + " r " +
                     std::to_string(pruning.r) + " s " + std::to_string(pruning.s) +
                     (endings == Endings::kPaper ? " paper" : " reference"));
        FakeCost cost(static_cast<uint64_t>(trial) * 7919u + 17u);
        IosOptions options = Options(endings, pruning.r, pruning.s);
        IosSearchResult result = RunIos(m, cost, options);
        ASSERT_EQ(result.parts.size(), 1u);
        const PartSearchStats& stats = result.parts[0];
        EXPECT_TRUE(stats.fallback.empty()) << stats.fallback;

        FakeCost brute_cost(static_cast<uint64_t>(trial) * 7919u + 17u);
        BruteForce brute(m, endings, pruning.r, pruning.s, brute_cost);
        uint64_t full = (uint64_t{1} << n) - 1;
        double best = brute.BestOverAllSchedules(full, 0);
        total_schedules += brute.schedules();
        EXPECT_NEAR(result.predicted_latency_ms, best, 1e-9 * std::max(1.0, best));

        int64_t states, transitions, distinct;
        brute.Count(&states, &transitions, &distinct);
        EXPECT_EQ(stats.states, states);
        EXPECT_EQ(stats.transitions, transitions);
        // No stage of fake units can merge: one concurrent measurement per distinct ending.
        EXPECT_EQ(stats.stages_measured, distinct);
        EXPECT_EQ(cost.calls(), distinct);

        ExpectValidIosSchedule(m, result.schedule, endings, pruning.r, pruning.s);
        std::vector<double> stage_ms;
        StatusOr<double> predicted =
            PredictScheduleLatency(m.graph, m.blocks, result.schedule, cost, &stage_ms);
        ASSERT_TRUE(predicted.ok()) << predicted.status().message();
        EXPECT_DOUBLE_EQ(predicted.value(), result.predicted_latency_ms);
        EXPECT_EQ(stage_ms, result.stage_latency_ms);
        EXPECT_DOUBLE_EQ(stats.latency_ms, result.predicted_latency_ms);
      }
    }
  }
  std::printf("brute force enumerated %lld schedules\n", static_cast<long long>(total_schedules));
}

TEST(IosSchedulerTest, PruningAndReferenceEndingsNeverBeatTheWiderSpace) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> size(2, 14);
  std::uniform_real_distribution<double> density(0.1, 0.6);
  for (int trial = 0; trial < 200; ++trial) {
    int n = size(rng);
    FakeModel m = MakeModel(n, RandomEdges(n, density(rng), rng));
    SCOPED_TRACE("trial " + std::to_string(trial));
    auto best = [&](Endings endings, int r, int s) {
      FakeCost cost(static_cast<uint64_t>(trial) + 1);
      return RunIos(m, cost, Options(endings, r, s)).predicted_latency_ms;
    };
    const double tolerance = 1e-9;
    for (Endings endings : {Endings::kPaper, Endings::kReference}) {
      double unlimited = best(endings, 0, 0);
      double medium = best(endings, 3, 8);
      double tight = best(endings, 1, 1);
      EXPECT_LE(unlimited, medium + tolerance);
      EXPECT_LE(medium, tight + tolerance);
      // r = s = 1: one unit per stage, in any order: the sum of the units' own latencies.
      FakeCost cost(static_cast<uint64_t>(trial) + 1);
      double singles = 0;
      for (UnitId u = 0; u < n; ++u) {
        StageCandidate one;
        one.groups = {{u}};
        singles += cost.StageLatencyMs(m.graph, m.blocks.unit_graph, one).value();
      }
      EXPECT_NEAR(tight, singles, 1e-9 * singles);
    }
    for (Pruning pruning : kPrunings) {
      EXPECT_LE(best(Endings::kPaper, pruning.r, pruning.s),
                best(Endings::kReference, pruning.r, pruning.s) + tolerance);
    }
  }
}

// A source with lower bounds, for the branch and bound (ios_dp.h). Unit u alone at width w costs
// a(u, w) = base(u) * (1 + slowdown (w - 1)), base in [0.3, 1) (a narrower share is slower:
// slowdown 0.6 by default; 1 where units scale perfectly across the device's share); a stage
// costs its largest group's sum of a(u, w), times a contention factor drawn from the stage's
// groups in [1 - undershoot, 1.5). With undershoot 0 the bounds hold; above it a stage can come in
// up to that fraction below its bound, as a noisy measurement can.
class BoundedFakeCost : public StageCostSource {
 public:
  BoundedFakeCost(uint64_t seed, bool bounds, double undershoot = 0, double slowdown = 0.6)
      : seed_(seed), bounds_(bounds), undershoot_(undershoot), slowdown_(slowdown) {}

  StatusOr<double> StageLatencyMs(const Graph&, const UnitGraph&,
                                  const StageCandidate& stage) override {
    ++stage_calls_;
    const int width = static_cast<int>(stage.groups.size());
    if (width > 1) ++multi_group_calls_;
    std::vector<std::vector<UnitId>> groups = stage.groups;
    std::sort(groups.begin(), groups.end());
    uint64_t h = Mix(seed_ ^ 0x5eedULL);
    double slowest = 0;
    for (const std::vector<UnitId>& group : groups) {
      double sum = 0;
      for (UnitId u : group) {
        sum += Alone(u, width);
        h = Mix(h ^ static_cast<uint64_t>(u + 1));
      }
      h = Mix(h ^ 0xfeedULL);
      slowest = std::max(slowest, sum);
    }
    const double fraction = static_cast<double>(h >> 11) * 0x1.0p-53;
    return slowest * (1 - undershoot_ + (0.5 + undershoot_) * fraction);
  }
  StatusOr<double> UnitAloneLatencyMs(const Graph&, const UnitGraph&, UnitId unit,
                                      int stage_width) override {
    ++unit_calls_;
    return Alone(unit, stage_width);
  }
  bool BoundsStages() const override { return bounds_; }
  std::string Name() const override { return "bounded-fake"; }
  DeviceFingerprint Fingerprint() const override { return {}; }

  int64_t stage_calls() const { return stage_calls_; }
  int64_t unit_calls() const { return unit_calls_; }
  int64_t multi_group_calls() const { return multi_group_calls_; }

  double Alone(UnitId u, int width) const {
    const uint64_t h = Mix(seed_ ^ (static_cast<uint64_t>(u) * 0x9e37ULL + 11));
    const double base = 0.3 + 0.7 * static_cast<double>(h >> 11) * 0x1.0p-53;
    return base * (1 + slowdown_ * (width - 1));
  }

 private:
  uint64_t seed_;
  bool bounds_;
  double undershoot_;
  double slowdown_;
  int64_t stage_calls_ = 0;
  int64_t unit_calls_ = 0;
  int64_t multi_group_calls_ = 0;
};

// Branch and bound with bounds that hold (or overshoot by less than the slack) finds the full
// search's optimum while measuring fewer stages.
TEST(IosSchedulerTest, BranchAndBoundKeepsTheOptimumAndSkipsStages) {
  std::mt19937_64 rng(20261127);
  std::uniform_int_distribution<int> size(2, 11);
  std::uniform_real_distribution<double> density(0.1, 0.6);
  const Pruning prunings[] = {{3, 2}, {0, 0}, {2, 3}, {1, 2}};
  struct Mode {
    double undershoot, slack;
  };
  // Bounds that hold, searched without slack; bounds up to 9% too high, searched with 10%.
  for (Mode mode : {Mode{0, 0}, Mode{0.09, 0.1}}) {
    int64_t full_calls = 0, bounded_calls = 0, bounded_transitions = 0, broken = 0;
    for (int trial = 0; trial < 150; ++trial) {
      const int n = size(rng);
      FakeModel m = MakeModel(n, RandomEdges(n, density(rng), rng));
      for (const Pruning& pruning : prunings) {
        SCOPED_TRACE("undershoot " + std::to_string(mode.undershoot) + " trial " +
                     std::to_string(trial) + " n " + std::to_string(n) + " r " +
                     std::to_string(pruning.r) + " s " + std::to_string(pruning.s));
        IosOptions options = Options(Endings::kPaper, pruning.r, pruning.s);
        options.bound_slack = mode.slack;
        const uint64_t seed = static_cast<uint64_t>(trial) * 31u + 5u;
        BoundedFakeCost full_cost(seed, /*bounds=*/false, mode.undershoot);
        IosSearchResult full = RunIos(m, full_cost, options);
        BoundedFakeCost bounded_cost(seed, /*bounds=*/true, mode.undershoot);
        IosSearchResult bounded = RunIos(m, bounded_cost, options);
        ASSERT_EQ(bounded.parts.size(), 1u);
        EXPECT_NEAR(bounded.predicted_latency_ms, full.predicted_latency_ms,
                    1e-9 * full.predicted_latency_ms);
        ExpectValidIosSchedule(m, bounded.schedule, Endings::kPaper, pruning.r, pruning.s);
        const PartSearchStats& stats = bounded.parts[0];
        EXPECT_EQ(stats.transitions, full.parts[0].transitions);
        EXPECT_EQ(full.parts[0].transitions_bounded, 0);
        EXPECT_EQ(stats.stages_measured, bounded_cost.stage_calls());
        if (mode.undershoot == 0) {
          EXPECT_EQ(stats.bounds_broken, 0);
        }
        EXPECT_LE(stats.bounds_broken, stats.bounds_checked);
        // Every unit is asked once per width at most.
        EXPECT_LE(bounded_cost.unit_calls(), int64_t{n} * (pruning.s == 0 ? n : pruning.s));
        EXPECT_LE(bounded_cost.stage_calls(), full_cost.stage_calls());
        full_calls += full_cost.stage_calls();
        bounded_calls += bounded_cost.stage_calls();
        bounded_transitions += stats.transitions_bounded;
        broken += stats.bounds_broken;
      }
    }
    std::printf("undershoot %.2f: %lld stages measured with bounds, %lld without\n",
                mode.undershoot, static_cast<long long>(bounded_calls),
                static_cast<long long>(full_calls));
    EXPECT_GT(bounded_transitions, 0);
    EXPECT_LT(10 * bounded_calls, 6 * full_calls);  // 45% and 52% here
    if (mode.undershoot > 0) {
      EXPECT_GT(broken, 0);  // some stages did come in below their bound
    }
  }
}

// Without slack, bounds that overshoot can lose the optimum: the slack is what keeps it.
TEST(IosSchedulerTest, BranchAndBoundWithoutSlackTrustsItsBounds) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> size(4, 11);
  std::uniform_real_distribution<double> density(0.1, 0.5);
  int missed = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const int n = size(rng);
    FakeModel m = MakeModel(n, RandomEdges(n, density(rng), rng));
    IosOptions options = Options(Endings::kPaper, 3, 2);
    options.bound_slack = 0;
    const uint64_t seed = static_cast<uint64_t>(trial) + 99u;
    BoundedFakeCost full_cost(seed, false, 0.3);
    BoundedFakeCost bounded_cost(seed, true, 0.3);
    const double full = RunIos(m, full_cost, options).predicted_latency_ms;
    const double bounded = RunIos(m, bounded_cost, options).predicted_latency_ms;
    EXPECT_GE(bounded, full - 1e-9 * full);  // never better than the full search
    if (bounded > full * (1 + 1e-9)) ++missed;
  }
  EXPECT_GT(missed, 0);
  IosOptions bad = Options(Endings::kPaper, 3, 2);
  bad.bound_slack = 1.5;
  FakeModel m = MakeModel(3, {{0, 1}});
  BoundedFakeCost cost(1, true);
  EXPECT_FALSE(IosSchedule(m.graph, m.blocks, cost, bad).ok());
}

// The part ceiling (part_ceiling.h), against its definition computed here: the sequential
// latency minus max(critical path, summed device time), each unit at its best share of widths
// 1..s. Units that scale perfectly (a unit at share 1/w takes w times as long) leave no room: the
// part runs one unit per stage, unsearched, and no stage of two groups or more is measured.
// Units slowed by less than that leave room, and the search runs as without the margin.
TEST(IosSchedulerTest, PartCeilingSkipsTheSearchOfPartsWithoutRoom) {
  std::mt19937_64 rng(20261128);
  std::uniform_int_distribution<int> size(3, 11);
  std::uniform_real_distribution<double> density(0.0, 0.4);
  int no_room = 0, searched = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = size(rng);
    FakeModel m = MakeModel(n, RandomEdges(n, density(rng), rng));
    const int s = 1 + trial % 3;
    const double slowdown = trial % 2 == 0 ? 1.0 : 0.6;
    SCOPED_TRACE("trial " + std::to_string(trial) + " n " + std::to_string(n) + " s " +
                 std::to_string(s) + " slowdown " + std::to_string(slowdown));
    IosOptions options = Options(Endings::kPaper, 3, s, IosStrategies::kConcurrentOnly);
    options.min_part_gain = 0.05;
    const uint64_t seed = static_cast<uint64_t>(trial) * 7u + 3u;
    BoundedFakeCost cost(seed, /*bounds=*/true, 0, slowdown);
    IosSearchResult result = RunIos(m, cost, options);
    ASSERT_EQ(result.parts.size(), 1u);
    const PartSearchStats& stats = result.parts[0];
    const int width = m.blocks.blocks[0].parts[0].width;
    if (width < 2) {
      EXPECT_EQ(stats.ceiling_ms, -1);  // a chain: nothing to bound
      EXPECT_FALSE(stats.no_room);
      continue;
    }
    // The definition, from the fake's own unit timings.
    const int widths = std::min(s, width);
    double sequential = 0, work = 0, path = 0;
    std::vector<double> finish(static_cast<size_t>(n), 0);
    for (int u = 0; u < n; ++u) {
      double fastest = cost.Alone(u, 1), device = fastest;
      for (int w = 2; w <= widths; ++w) {
        fastest = std::min(fastest, cost.Alone(u, w));
        device = std::min(device, cost.Alone(u, w) / w);
      }
      sequential += cost.Alone(u, 1);
      work += device;
      double start = 0;
      for (int v = 0; v < u; ++v)
        if (m.pred[u] >> v & 1) start = std::max(start, finish[v]);
      finish[u] = start + fastest;
      path = std::max(path, finish[u]);
    }
    const double ceiling = sequential - std::max(work, path);
    EXPECT_NEAR(stats.ceiling_ms, ceiling, 1e-9 * sequential);
    EXPECT_EQ(stats.no_room, ceiling < 0.05 * sequential);
    if (slowdown == 1.0 || s == 1) {
      // Perfect scaling: the work term is the units' summed timings, so no gain is possible.
      EXPECT_NEAR(ceiling, 0, 1e-9 * sequential);
    }
    if (stats.no_room) {
      ++no_room;
      EXPECT_EQ(stats.states, 0);
      EXPECT_EQ(cost.multi_group_calls(), 0);
      ASSERT_EQ(result.schedule.blocks.size(), 1u);
      EXPECT_EQ(result.schedule.blocks[0].stages.size(), static_cast<size_t>(n));
      for (const ScheduleStage& stage : result.schedule.blocks[0].stages)
        EXPECT_EQ(stage.groups.size(), 1u);
      ExpectValidIosSchedule(m, result.schedule, Endings::kPaper, 1, 1);
    } else {
      ++searched;
      // The same search as without the margin.
      IosOptions plain = options;
      plain.min_part_gain = 0;
      BoundedFakeCost plain_cost(seed, /*bounds=*/true, 0, slowdown);
      IosSearchResult without = RunIos(m, plain_cost, plain);
      EXPECT_NEAR(result.predicted_latency_ms, without.predicted_latency_ms,
                  1e-9 * without.predicted_latency_ms);
      EXPECT_EQ(stats.transitions, without.parts[0].transitions);
    }
  }
  EXPECT_GT(no_room, 10);
  EXPECT_GT(searched, 10);
}

// Hand counts with a constant 1 ms per stage. States include the empty one (the paper's
// Figure 5 counts six states for a -> b plus an independent c); a transition is one (S, S')
// pair with S' an ending of S under the pruning.
// Perfect concurrency: a stage costs its longest group, one ms per unit.
class WideCost : public StageCostSource {
 public:
  StatusOr<double> StageLatencyMs(const Graph&, const UnitGraph&,
                                  const StageCandidate& stage) override {
    size_t longest = 0;
    for (const auto& group : stage.groups) longest = std::max(longest, group.size());
    return static_cast<double>(longest);
  }
  std::string Name() const override { return "wide"; }
  DeviceFingerprint Fingerprint() const override { return {}; }
};

TEST(IosSchedulerTest, CheckPartSeesEachSearchedConcurrentPartAndCanStopTheSearch) {
  // Parts: three independent units; a chain of three; three independent units, twice.
  const Edges edges = {{3, 4}, {4, 5}};
  FakeModel m = MakeModel(12, edges, {3, 3, 3, 3});
  WideCost cost;
  std::vector<std::pair<size_t, size_t>> seen;  // stages searched, stages one unit at a time
  std::vector<std::pair<double, double>> predicted;
  IosOptions options = Options(Endings::kPaper, 3, 8);
  options.check_part = [&](const PartCheck& part) -> StatusOr<bool> {
    seen.push_back({part.searched.stages.size(), part.sequential.stages.size()});
    predicted.push_back({part.searched_ms, part.sequential_ms});
    for (const ScheduleStage& stage : part.sequential.stages) EXPECT_EQ(stage.groups.size(), 1u);
    return true;
  };
  IosSearchResult searched_on = RunIos(m, cost, options);
  // The chain has no concurrent stage to check.
  ASSERT_EQ(seen.size(), 3u);
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i], (std::pair<size_t, size_t>{1, 3})) << i;
    EXPECT_EQ(predicted[i], (std::pair<double, double>{1, 3})) << i;
  }
  EXPECT_EQ(searched_on.parts_checked, 3);
  EXPECT_FALSE(searched_on.stopped_by_check);
  EXPECT_DOUBLE_EQ(searched_on.predicted_latency_ms, 1 + 3 + 1 + 1);
  for (const PartSearchStats& part : searched_on.parts) EXPECT_FALSE(part.unsearched_after_check);

  // Stopped at the first check: the later parts run one unit per stage, unsearched.
  seen.clear();
  options.check_part = [&](const PartCheck& part) -> StatusOr<bool> {
    seen.push_back({part.searched.stages.size(), part.sequential.stages.size()});
    return false;
  };
  IosSearchResult stopped = RunIos(m, cost, options);
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(stopped.parts_checked, 1);
  EXPECT_TRUE(stopped.stopped_by_check);
  ASSERT_EQ(stopped.parts.size(), 4u);
  EXPECT_FALSE(stopped.parts[0].unsearched_after_check);
  for (size_t p = 1; p < 4; ++p) {
    EXPECT_TRUE(stopped.parts[p].unsearched_after_check) << p;
    EXPECT_EQ(stopped.parts[p].transitions, 0) << p;
  }
  ASSERT_EQ(stopped.schedule.blocks.size(), 1u);
  ASSERT_EQ(stopped.schedule.blocks[0].stages.size(), 1u + 9u);
  EXPECT_EQ(stopped.schedule.blocks[0].stages[0].groups.size(), 3u);
  for (size_t i = 1; i < 10; ++i) {
    const ScheduleStage& stage = stopped.schedule.blocks[0].stages[i];
    ASSERT_EQ(stage.groups.size(), 1u);
    EXPECT_EQ(stage.groups[0].nodes.size(), m.blocks.unit_graph.units[i + 2].nodes.size()) << i;
  }
  EXPECT_DOUBLE_EQ(stopped.predicted_latency_ms, 1 + 9);
  ExpectValidIosSchedule(m, stopped.schedule, Endings::kPaper, 3, 8);

  // An error from the check ends the search with it.
  options.check_part = [](const PartCheck&) -> StatusOr<bool> { return Internal("no device"); };
  StatusOr<IosSearchResult> failed = IosSchedule(m.graph, m.blocks, cost, options);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("no device"), std::string::npos);
}

// The profiling budget stops the search as the check does, at the part where the latencies of
// what it asked for say so: the same figures give the same stop, however they were obtained.
TEST(IosSchedulerTest, ProfileBudgetStopsTheSearchWhereTheLatenciesSay) {
  // Parts: three independent units; a chain of three; three independent units, twice.
  const Edges edges = {{3, 4}, {4, 5}};
  FakeModel m = MakeModel(12, edges, {3, 3, 3, 3});
  WideCost cost;
  IosOptions options = Options(Endings::kPaper, 3, 8);
  IosSearchResult unbounded = RunIos(m, cost, options);
  EXPECT_FALSE(unbounded.stopped_by_budget);
  EXPECT_GT(unbounded.profile_estimate_s, 0);
  EXPECT_DOUBLE_EQ(unbounded.predicted_latency_ms, 1 + 3 + 1 + 1);

  // A budget of everything the search asks for is never passed.
  options.profile_budget_s = unbounded.profile_estimate_s;
  IosSearchResult within = RunIos(m, cost, options);
  EXPECT_FALSE(within.stopped_by_budget);
  EXPECT_DOUBLE_EQ(within.profile_estimate_s, unbounded.profile_estimate_s);

  // The first part's stages pass a tiny one: the later parts run one unit per stage.
  options.profile_budget_s = 1e-9;
  IosSearchResult stopped = RunIos(m, cost, options);
  EXPECT_TRUE(stopped.stopped_by_budget);
  EXPECT_FALSE(stopped.stopped_by_check);
  ASSERT_EQ(stopped.parts.size(), 4u);
  EXPECT_FALSE(stopped.parts[0].unsearched_after_check);
  EXPECT_GT(stopped.parts[0].transitions, 0);
  for (size_t p = 1; p < 4; ++p) {
    EXPECT_TRUE(stopped.parts[p].unsearched_after_check) << p;
    EXPECT_EQ(stopped.parts[p].transitions, 0) << p;
  }
  EXPECT_DOUBLE_EQ(stopped.predicted_latency_ms, 1 + 9);
  EXPECT_LT(stopped.profile_estimate_s, unbounded.profile_estimate_s);
  ExpectValidIosSchedule(m, stopped.schedule, Endings::kPaper, 3, 8);

  // The parts the check measures count too: both ways, twice (1 ms searched, 3 ms one unit at a
  // time, for each of the three parts with a concurrent stage).
  options.profile_budget_s = 0;
  options.check_part = [](const PartCheck&) -> StatusOr<bool> { return true; };
  IosSearchResult checked = RunIos(m, cost, options);
  ASSERT_EQ(checked.parts_checked, 3);
  EXPECT_NEAR(checked.profile_estimate_s - unbounded.profile_estimate_s,
              kProfileRunsPerMeasurement * 3 * 2 * (1 + 3) / 1000.0, 1e-12);

  // One-group stages that the source composes of their units measure nothing of their own.
  class ComposingCost : public WideCost {
   public:
    bool ComposesOneGroupStages() const override { return true; }
  } composing;
  options.check_part = nullptr;
  IosSearchResult composed = RunIos(m, composing, options);
  EXPECT_DOUBLE_EQ(composed.predicted_latency_ms, unbounded.predicted_latency_ms);
  EXPECT_LT(composed.profile_estimate_s, unbounded.profile_estimate_s);

  options.profile_budget_s = -1;
  EXPECT_FALSE(IosSchedule(m.graph, m.blocks, cost, options).ok());
}

struct HandCase {
  const char* name;
  int n;
  Edges edges;
  Endings endings;
  int r, s;
  int64_t states, transitions, stages_measured;
  double latency_ms;
};

TEST(IosSchedulerTest, HandCountedStatesAndTransitions) {
  const HandCase cases[] = {
      // a -> b -> c. Endings of abc: c, bc, abc; of ab: b, ab; of a: a.
      {"chain3", 3, {{0, 1}, {1, 2}}, Endings::kPaper, 0, 0, 4, 6, 6, 1},
      // r = 1: only the last unit: c, b, a.
      {"chain3 r1", 3, {{0, 1}, {1, 2}}, Endings::kPaper, 1, 0, 4, 3, 3, 3},
      // r = 2: abc has c, bc; ab has b, ab; a has a. Best: [a] [bc] or [ab] [c].
      {"chain3 r2", 3, {{0, 1}, {1, 2}}, Endings::kPaper, 2, 0, 4, 5, 5, 2},
      // Figure 5: a -> b, c. abc: b, c, bc, ab, abc; ab: b, ab; ac: a, c, ac; a; c.
      {"figure5", 3, {{0, 1}}, Endings::kPaper, 0, 0, 6, 12, 7, 1},
      {"figure5 reference", 3, {{0, 1}}, Endings::kReference, 0, 0, 6, 12, 7, 1},
      // Two independent units: ab: a, b, ab; a; b.
      {"pair", 2, {}, Endings::kPaper, 0, 0, 4, 5, 3, 1},
      // s = 1: ab: a, b; a; b.
      {"pair s1", 2, {}, Endings::kPaper, 0, 1, 4, 4, 2, 2},
      // Diamond a -> b, c -> d. abcd: d, bd, cd, bcd, abcd; abc: b, c, bc, abc; ab: b, ab;
      // ac: c, ac; a: a. Distinct: 12.
      {"diamond", 4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}, Endings::kPaper, 0, 0, 6, 14, 12, 1},
      // The reference drops bcd (two roots b and c share d): 13 transitions, 11 distinct.
      {"diamond reference",
       4,
       {{0, 1}, {0, 2}, {1, 3}, {2, 3}},
       Endings::kReference,
       0,
       0,
       6,
       13,
       11,
       1},
      // r = 3, s = 8: abcd drops abcd; bcd (3 units, one group) stays. 13 transitions.
      {"diamond r3", 4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}, Endings::kPaper, 3, 8, 6, 13, 11, 2},
  };
  for (const HandCase& c : cases) {
    SCOPED_TRACE(c.name);
    FakeModel m = MakeModel(c.n, c.edges);
    FakeCost cost(0, /*constant=*/true);
    IosSearchResult result = RunIos(m, cost, Options(c.endings, c.r, c.s));
    ASSERT_EQ(result.parts.size(), 1u);
    EXPECT_EQ(result.parts[0].states, c.states);
    EXPECT_EQ(result.parts[0].transitions, c.transitions);
    EXPECT_EQ(result.parts[0].stages_measured, c.stages_measured);
    EXPECT_DOUBLE_EQ(result.predicted_latency_ms, c.latency_ms);
    ExpectValidIosSchedule(m, result.schedule, c.endings, c.r, c.s);
  }
}

TEST(IosSchedulerTest, SeveralPartsAndBlocksOfSixtyFourPlusUnits) {
  // Two parts; then a 70-unit part that is searched as pieces of 64 and 6.
  std::mt19937_64 rng(3);
  FakeModel m = MakeModel(12, RandomEdges(12, 0.3, rng), {5, 7});
  FakeCost cost(5);
  IosSearchResult result = RunIos(m, cost, Options(Endings::kPaper, 3, 8));
  ASSERT_EQ(result.parts.size(), 2u);
  EXPECT_EQ(result.parts[0].units, 5);
  EXPECT_EQ(result.parts[1].part, 1);
  ExpectValidIosSchedule(m, result.schedule, Endings::kPaper, 3, 8);
  StatusOr<double> predicted =
      PredictScheduleLatency(m.graph, m.blocks, result.schedule, cost, nullptr);
  ASSERT_TRUE(predicted.ok());
  EXPECT_DOUBLE_EQ(predicted.value(), result.predicted_latency_ms);

  Edges chain_ish;  // narrow: each unit feeds the next two
  for (int u = 0; u + 1 < 70; ++u) {
    chain_ish.push_back({u, u + 1});
    if (u + 2 < 70) chain_ish.push_back({u, u + 2});
  }
  FakeModel big = MakeModel(70, chain_ish);
  Status valid_before = ValidateSchedule(big.graph, SequentialSchedule(big.blocks));
  ASSERT_TRUE(valid_before.ok()) << valid_before.message();
  IosSearchResult split = RunIos(big, cost, Options(Endings::kPaper, 3, 8));
  ASSERT_EQ(split.parts.size(), 2u);
  EXPECT_EQ(split.parts[0].units, 64);
  EXPECT_EQ(split.parts[1].units, 6);
  EXPECT_TRUE(split.parts[0].fallback.empty());
  Status valid = ValidateSchedule(big.graph, split.schedule);
  EXPECT_TRUE(valid.ok()) << valid.message();
}

TEST(IosSchedulerTest, StrategiesWithoutMergeableStages) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    int n = 2 + trial % 10;
    FakeModel m = MakeModel(n, RandomEdges(n, 0.3, rng));
    FakeCost a(trial), b(trial), c(trial);
    IosSearchResult both = RunIos(m, a, Options(Endings::kPaper, 3, 8, IosStrategies::kBoth));
    IosSearchResult concurrent =
        RunIos(m, b, Options(Endings::kPaper, 3, 8, IosStrategies::kConcurrentOnly));
    EXPECT_DOUBLE_EQ(both.predicted_latency_ms, concurrent.predicted_latency_ms);
    // Merge only, and nothing merges: every stage is one group of at most r units.
    IosSearchResult merge = RunIos(m, c, Options(Endings::kPaper, 3, 8, IosStrategies::kMergeOnly));
    ExpectValidIosSchedule(m, merge.schedule, Endings::kPaper, 3, 8);
    for (const ScheduleStage& stage : merge.schedule.blocks[0].stages) {
      EXPECT_EQ(stage.groups.size(), 1u);
      EXPECT_EQ(stage.strategy, StageStrategy::kConcurrent);
    }
    EXPECT_GE(merge.predicted_latency_ms, both.predicted_latency_ms - 1e-9);
  }
}

TEST(IosSchedulerTest, OperatorMergeOnRealConvs) {
  // stem conv -> {1x1, 3x3 p1, 1x1} on the same tensor -> Concat: the three can merge.
  testing::GraphBuilder b;
  ValueId x = b.Input("x", {1, 3, 8, 8});
  ValueId stem = b.Conv(x, 4, 3, 1);
  std::vector<ValueId> branches = {b.Conv(stem, 4, 1), b.Conv(stem, 6, 3, 1), b.Conv(stem, 2, 1)};
  AttributeMap axis;
  axis.Set("axis", int64_t{1});
  Graph g = b.Finish({b.Op("Concat", branches, axis)});
  ASSERT_TRUE(Canonicalize(g, CanonicalizeOptions{}, nullptr).ok());
  StatusOr<BlockStructure> blocks = PartitionIntoBlocks(g, BlockOptions{});
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();

  auto merge_stages = [](const Schedule& schedule) {
    int count = 0;
    for (const ScheduleBlock& block : schedule.blocks)
      for (const ScheduleStage& stage : block.stages)
        if (stage.strategy == StageStrategy::kMerge) {
          EXPECT_GE(stage.groups.size(), 2u);
          ++count;
        }
    return count;
  };
  for (IosStrategies strategies :
       {IosStrategies::kBoth, IosStrategies::kConcurrentOnly, IosStrategies::kMergeOnly}) {
    FakeCost cost(3);
    cost.set_merge_factor(0.1);  // merging always pays
    StatusOr<IosSearchResult> result =
        IosSchedule(g, blocks.value(), cost, Options(Endings::kPaper, 3, 8, strategies));
    ASSERT_TRUE(result.ok()) << result.status().message();
    Status valid = ValidateSchedule(g, result->schedule);
    EXPECT_TRUE(valid.ok()) << valid.message();
    if (strategies == IosStrategies::kConcurrentOnly) {
      EXPECT_EQ(merge_stages(result->schedule), 0);
    } else {
      EXPECT_GE(merge_stages(result->schedule), 1);
    }
    if (strategies == IosStrategies::kMergeOnly) {
      for (const ScheduleBlock& block : result->schedule.blocks)
        for (const ScheduleStage& stage : block.stages)
          if (stage.strategy != StageStrategy::kMerge) {
            EXPECT_EQ(stage.groups.size(), 1u);
          }
    }
    StatusOr<double> predicted =
        PredictScheduleLatency(g, blocks.value(), result->schedule, cost, nullptr);
    ASSERT_TRUE(predicted.ok()) << predicted.status().message();
    EXPECT_DOUBLE_EQ(predicted.value(), result->predicted_latency_ms);
  }
  // With merging never paying, kBoth keeps the concurrent stages.
  FakeCost expensive(3);
  expensive.set_merge_factor(100);
  StatusOr<IosSearchResult> concurrent =
      IosSchedule(g, blocks.value(), expensive, Options(Endings::kPaper, 3, 8));
  ASSERT_TRUE(concurrent.ok());
  EXPECT_EQ(merge_stages(concurrent->schedule), 0);
}

TEST(IosSchedulerTest, FallsBackToGreedyPastMaxStatesOrTimeBudget) {
  std::mt19937_64 rng(99);
  FakeModel m = MakeModel(14, RandomEdges(14, 0.2, rng), {7, 7});
  FakeCost cost(1);
  IosOptions tiny_states = Options(Endings::kPaper, 3, 2);
  tiny_states.max_states = 3;
  IosSearchResult result = RunIos(m, cost, tiny_states);
  ASSERT_EQ(result.parts.size(), 2u);
  for (const PartSearchStats& part : result.parts) {
    EXPECT_NE(part.fallback.find("max_states"), std::string::npos) << part.fallback;
    EXPECT_GT(part.states, 3);
  }
  ExpectValidIosSchedule(m, result.schedule, Endings::kPaper, 1, 2);  // greedy: one unit a group
  StatusOr<double> predicted =
      PredictScheduleLatency(m.graph, m.blocks, result.schedule, cost, nullptr);
  ASSERT_TRUE(predicted.ok());
  EXPECT_DOUBLE_EQ(predicted.value(), result.predicted_latency_ms);

  IosOptions no_time = Options(Endings::kReference, 3, 8);
  no_time.time_budget_s = 1e-9;
  IosSearchResult late = RunIos(m, cost, no_time);
  ASSERT_EQ(late.parts.size(), 2u);
  for (const PartSearchStats& part : late.parts) EXPECT_EQ(part.fallback, "time budget");
  ExpectValidIosSchedule(m, late.schedule, Endings::kPaper, 1, 8);

  // Merge only: greedy stages that cannot merge still run, concurrently.
  IosOptions merge_only = Options(Endings::kPaper, 3, 8, IosStrategies::kMergeOnly);
  merge_only.time_budget_s = 1e-9;
  FakeCost merge_cost(1);
  IosSearchResult merge_late = RunIos(m, merge_cost, merge_only);
  ExpectValidIosSchedule(m, merge_late.schedule, Endings::kPaper, 1, 8);
  bool several_groups = false;
  for (const ScheduleStage& stage : merge_late.schedule.blocks[0].stages)
    several_groups = several_groups || stage.groups.size() > 1;
  EXPECT_TRUE(several_groups);
  int64_t measured = 0;
  for (const PartSearchStats& part : merge_late.parts) measured += part.stages_measured;
  EXPECT_EQ(measured, merge_cost.calls());
  predicted = PredictScheduleLatency(m.graph, m.blocks, merge_late.schedule, merge_cost, nullptr);
  ASSERT_TRUE(predicted.ok());
  EXPECT_DOUBLE_EQ(predicted.value(), merge_late.predicted_latency_ms);

  // On a block of one part, the fallback is exactly GreedySchedule with max_streams = s.
  FakeModel one_part = MakeModel(14, RandomEdges(14, 0.2, rng));
  for (int s : {0, 1, 3}) {
    IosOptions options = Options(Endings::kPaper, 3, s);
    options.time_budget_s = 1e-9;
    IosSearchResult fallback = RunIos(one_part, cost, options);
    Schedule greedy = GreedySchedule(one_part.blocks, s);
    ASSERT_EQ(fallback.schedule.blocks.size(), 1u);
    ASSERT_EQ(fallback.schedule.blocks[0].stages.size(), greedy.blocks[0].stages.size());
    for (size_t k = 0; k < greedy.blocks[0].stages.size(); ++k) {
      const auto& mine = fallback.schedule.blocks[0].stages[k].groups;
      const auto& theirs = greedy.blocks[0].stages[k].groups;
      ASSERT_EQ(mine.size(), theirs.size());
      for (size_t i = 0; i < mine.size(); ++i) EXPECT_EQ(mine[i].nodes, theirs[i].nodes);
    }
  }
}

// The guard against runaway parts: a part whose states fit but whose endings explode falls back
// to greedy once it has evaluated max_transitions_per_part transitions, and the next part is
// searched as usual; a part too wide for max_states never starts its DP. Neither hangs.
TEST(IosSchedulerTest, RunawayPartsFallBackQuickly) {
  using Clock = std::chrono::steady_clock;
  // 18 independent units (2^18 states, ~10^8 endings at s = 8), then a 6-unit chain.
  Edges chain;
  for (int u = 18; u < 23; ++u) chain.push_back({u, u + 1});
  FakeModel wide = MakeModel(24, chain, {18, 6});
  for (Endings endings : {Endings::kPaper, Endings::kReference}) {
    FakeCost cost(11);
    IosOptions options = Options(endings, 3, 8);
    options.max_transitions_per_part = 200'000;
    const auto start = Clock::now();
    IosSearchResult result = RunIos(wide, cost, options);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("18 independent units, transition cap 2e5: %.3f s\n", seconds);
    EXPECT_LT(seconds, 30.0);  // about 0.1 s; generous for a loaded machine
    ASSERT_EQ(result.parts.size(), 2u);
    EXPECT_NE(result.parts[0].fallback.find("max_transitions_per_part"), std::string::npos)
        << result.parts[0].fallback;
    EXPECT_EQ(result.parts[0].transitions, 200'000);
    EXPECT_EQ(result.parts[0].states, int64_t{1} << 18);
    EXPECT_TRUE(result.parts[1].fallback.empty()) << result.parts[1].fallback;
    ExpectValidIosSchedule(wide, result.schedule, Endings::kPaper, 3, 8);
    // Greedy on the wide part: stages of s = 8 ready units, then the chain's stages.
    ASSERT_FALSE(result.schedule.blocks[0].stages.empty());
    EXPECT_EQ(result.schedule.blocks[0].stages[0].groups.size(), 8u);
  }

  // 40 independent units: 2^40 states; max_states stops the enumeration.
  FakeModel forty = MakeModel(40, {});
  FakeCost cost(12);
  IosOptions options = Options(Endings::kPaper, 3, 8);
  options.max_states = 100'000;
  options.max_transitions_per_part = 100'000;
  const auto start = Clock::now();
  IosSearchResult result = RunIos(forty, cost, options);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("40 independent units, state cap 1e5: %.3f s\n", seconds);
  EXPECT_LT(seconds, 30.0);
  ASSERT_EQ(result.parts.size(), 1u);
  EXPECT_NE(result.parts[0].fallback.find("max_states"), std::string::npos)
      << result.parts[0].fallback;
  ExpectValidIosSchedule(forty, result.schedule, Endings::kPaper, 1, 8);
  EXPECT_EQ(result.schedule.blocks[0].stages.size(), 5u);  // 40 units, 8 a stage

  IosOptions bad = Options(Endings::kPaper, 3, 8);
  bad.max_transitions_per_part = 0;
  EXPECT_FALSE(IosSchedule(forty.graph, forty.blocks, cost, bad).ok());
}

// Latency from what the stage key keeps: per group the sequence of its units' tags (MakeModel's
// look-alike attribute) and ops, the groups as a multiset, the strategy.
class TagCost : public StageCostSource {
 public:
  StatusOr<double> StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                  const StageCandidate& stage) override {
    ++calls;
    std::vector<uint64_t> groups;
    for (const auto& group : stage.groups) {
      uint64_t h = 0x5eed;
      for (UnitId u : group) {
        const Node& first = graph.nodes[units.units[u].nodes.front()];
        h = Mix(h ^ static_cast<uint64_t>(first.attrs.GetInt("tag", -1).value() + 1));
        h = Mix(h ^ units.units[u].nodes.size());
      }
      groups.push_back(h);
    }
    std::sort(groups.begin(), groups.end());
    uint64_t h = Mix(static_cast<uint64_t>(stage.strategy));
    for (uint64_t g : groups) h = Mix(h ^ g);
    const double fraction = static_cast<double>(h >> 11) * 0x1.0p-53;
    size_t count = 0;
    for (const auto& group : stage.groups) count += group.size();
    return static_cast<double>(count) * (0.3 + 0.7 * fraction);
  }
  std::string Name() const override { return "tag"; }
  DeviceFingerprint Fingerprint() const override { return {}; }
  int64_t calls = 0;
};

// Stages identical up to wiring share one measurement, across parts (repeated cells) and within a
// part, and the search stays optimal for a source that, like the stage key, ignores wiring.
TEST(IosSchedulerTest, LookAlikeStagesShareOneMeasurement) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 40; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int k = 3 * (1 + trial % 3);  // a multiple of 3: units u and u + k have as many ops
    // Two parts with the same DAG; unit u looks like unit u + k, so the second part is the first
    // one again (PartKey) and reuses its stages without a search.
    Edges cell = RandomEdges(k, 0.35, rng);
    Edges both = cell;
    for (auto [u, v] : cell) both.push_back({u + k, v + k});
    std::vector<int> tags(2 * k);
    for (int u = 0; u < 2 * k; ++u) tags[u] = u % k;
    FakeModel cells = MakeModel(2 * k, both, {k, k}, tags);
    // The same, with the second cell's units in another topological order (the cell's sinks
    // first among equals, here: its units reversed where the DAG allows): no reuse, but every
    // stage of the second cell is a stage of the first one up to renaming.
    std::vector<int> order(k);  // order[i] = the unit of the cell placed at local position i
    {
      std::vector<int> indegree(k, 0);
      for (auto [u, v] : cell) ++indegree[v];
      std::vector<bool> placed(k, false);
      for (int i = 0; i < k; ++i) {
        int pick = -1;
        for (int u = k - 1; u >= 0 && pick < 0; --u)
          if (!placed[u] && indegree[u] == 0) pick = u;
        placed[pick] = true;
        order[i] = pick;
        for (auto [u, v] : cell)
          if (u == pick) --indegree[v];
      }
    }
    std::vector<int> position(k);
    for (int i = 0; i < k; ++i) position[order[i]] = i;
    Edges renamed = cell, renamed_alone;
    for (auto [u, v] : cell) {
      renamed.push_back({position[u] + k, position[v] + k});
      renamed_alone.push_back({position[u], position[v]});
    }
    std::vector<int> renamed_tags(2 * k);
    for (int i = 0; i < k; ++i) {
      renamed_tags[i] = i;
      renamed_tags[i + k] = order[i];
    }
    FakeModel reordered = MakeModel(2 * k, renamed, {k, k}, renamed_tags);
    FakeModel reordered_alone = MakeModel(k, renamed_alone, {}, order);
    const bool same_order = order == [&] {
      std::vector<int> identity(k);
      for (int i = 0; i < k; ++i) identity[i] = i;
      return identity;
    }();
    for (Endings endings : {Endings::kPaper, Endings::kReference}) {
      FakeCost cost(static_cast<uint64_t>(trial));
      IosSearchResult result = RunIos(cells, cost, Options(endings, 3, 8));
      ASSERT_EQ(result.parts.size(), 2u);
      EXPECT_EQ(result.parts[0].reused_part, -1);
      EXPECT_EQ(result.parts[1].reused_part, 0);
      EXPECT_GT(result.parts[0].stages_measured, 0);
      EXPECT_EQ(result.parts[1].stages_measured, 0);  // the second cell costs nothing
      EXPECT_EQ(cost.calls(), result.parts[0].stages_measured);
      EXPECT_EQ(result.parts[0].transitions, result.parts[1].transitions);
      EXPECT_DOUBLE_EQ(result.parts[0].latency_ms, result.parts[1].latency_ms);
      ExpectValidIosSchedule(cells, result.schedule, endings, 3, 8);

      FakeCost reordered_cost(static_cast<uint64_t>(trial));
      IosSearchResult again = RunIos(reordered, reordered_cost, Options(endings, 3, 8));
      ASSERT_EQ(again.parts.size(), 2u);
      EXPECT_EQ(again.parts[1].reused_part, same_order ? 0 : -1);
      // Searched, but its stages are mostly known by key: at least its single units are.
      FakeCost alone_cost(static_cast<uint64_t>(trial));
      IosSearchResult alone = RunIos(reordered_alone, alone_cost, Options(endings, 3, 8));
      EXPECT_LE(again.parts[1].stages_measured, alone.parts[0].stages_measured - k);
      EXPECT_EQ(again.parts[0].transitions, again.parts[1].transitions);
      ExpectValidIosSchedule(reordered, again.schedule, endings, 3, 8);
    }

    // Within one part: units three apart look alike. The DP equals the brute force under a
    // source that depends only on what the key keeps, with fewer measurements than endings.
    const int n = 4 + trial % 6;
    std::vector<int> period3(n);
    for (int u = 0; u < n; ++u) period3[u] = u % 3;
    FakeModel m = MakeModel(n, RandomEdges(n, 0.3, rng), {}, period3);
    for (Endings endings : {Endings::kPaper, Endings::kReference}) {
      for (const Pruning& pruning : kPrunings) {
        TagCost cost;
        IosSearchResult result = RunIos(m, cost, Options(endings, pruning.r, pruning.s));
        TagCost brute_cost;
        BruteForce brute(m, endings, pruning.r, pruning.s, brute_cost);
        const double best = brute.BestOverAllSchedules((uint64_t{1} << n) - 1, 0);
        EXPECT_NEAR(result.predicted_latency_ms, best, 1e-9 * std::max(1.0, best));
        int64_t states, transitions, distinct;
        brute.Count(&states, &transitions, &distinct);
        EXPECT_EQ(result.parts[0].transitions, transitions);
        EXPECT_LE(result.parts[0].stages_measured, distinct);
        EXPECT_EQ(cost.calls, result.parts[0].stages_measured);
      }
    }
  }
}

TEST(IosSchedulerTest, RejectsBadOptionsAndPartialUnits) {
  FakeModel m = MakeModel(3, {{0, 1}, {1, 2}});
  FakeCost cost(1);
  IosOptions bad = Options(Endings::kPaper, -1, 8);
  EXPECT_FALSE(IosSchedule(m.graph, m.blocks, cost, bad).ok());
  // Unit 2 has two ops; a group with only one of them is refused.
  Schedule schedule = SequentialSchedule(m.blocks);
  schedule.blocks[0].stages[2].groups[0].nodes.pop_back();
  EXPECT_FALSE(PredictScheduleLatency(m.graph, m.blocks, schedule, cost, nullptr).ok());
  // The sequential schedule costs the sum of its units.
  StatusOr<double> sequential =
      PredictScheduleLatency(m.graph, m.blocks, SequentialSchedule(m.blocks), cost, nullptr);
  ASSERT_TRUE(sequential.ok());
  EXPECT_GT(sequential.value(), 0);
}

// ---- Search size and time on RandWire-sized parts (printed, not asserted). ----

// A random DAG of n units whose units read 1-3 of the previous `window` units, with one exit
// unit reading every unit nothing else reads.
Edges WindowDag(int n, int window, std::mt19937_64& rng) {
  Edges edges;
  std::vector<bool> read(n, false);
  for (int v = 1; v < n - 1; ++v) {
    std::uniform_int_distribution<int> count(1, 3);
    int k = count(rng);
    std::set<int> from;
    for (int i = 0; i < k; ++i) {
      std::uniform_int_distribution<int> pick(std::max(0, v - window), v - 1);
      from.insert(pick(rng));
    }
    for (int u : from) {
      edges.push_back({u, v});
      read[u] = true;
    }
  }
  for (int u = 0; u < n - 1; ++u)
    if (!read[u]) edges.push_back({u, n - 1});
  return edges;
}

// A RandWire stage from testdata/randwire (the reference's graph files: node count, edge count,
// then "u v" edges with u < v) plus its exit unit, which reads every node without successors.
// An empty model if the file is missing.
FakeModel RandWireStage(const std::string& file_name) {
  std::ifstream file(testing::TestSourceDir() + "/testdata/randwire/" + file_name);
  if (!file) return FakeModel{};
  int nodes = 0, edge_count = 0;
  file >> nodes >> edge_count;
  Edges edges;
  std::vector<bool> has_successor(nodes, false);
  for (int i = 0; i < edge_count; ++i) {
    int u = 0, v = 0;
    file >> u >> v;
    edges.push_back({u, v});
    has_successor[u] = true;
  }
  for (int u = 0; u < nodes; ++u)
    if (!has_successor[u]) edges.push_back({u, nodes});
  return MakeModel(nodes + 1, edges);
}

const char* const kRandWireFiles[] = {"ws-16-4-0.75-2.txt", "ws-32-4-0.75-3.txt",
                                      "ws-32-4-0.75-4.txt", "ws-32-4-0.75-5.txt"};

void PrintSearch(const char* name, const FakeModel& m) {
  std::printf("%s: %d units, width %d\n", name, m.n, m.blocks.blocks[0].width);
  for (Endings endings : {Endings::kPaper, Endings::kReference}) {
    for (Pruning pruning : {Pruning{3, 8}, Pruning{0, 0}}) {
      FakeCost cost(42);
      IosOptions options = Options(endings, pruning.r, pruning.s);
      options.time_budget_s = 120;
      auto start = std::chrono::steady_clock::now();
      IosSearchResult result = RunIos(m, cost, options);
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ASSERT_EQ(result.parts.size(), 1u);
      const PartSearchStats& part = result.parts[0];
      std::printf(
          "  %-9s r=%d s=%d: %.3f s, states %lld, transitions %lld, stages measured %lld, "
          "latency %.4f%s%s\n",
          endings == Endings::kPaper ? "paper" : "reference", pruning.r, pruning.s, seconds,
          static_cast<long long>(part.states), static_cast<long long>(part.transitions),
          static_cast<long long>(part.stages_measured), part.latency_ms,
          part.fallback.empty() ? "" : ", fallback: ", part.fallback.c_str());
      Status valid = ValidateSchedule(m.graph, result.schedule);
      EXPECT_TRUE(valid.ok()) << valid.message();
    }
  }
}

TEST(IosSchedulerPerfTest, RandWireSizedParts) {
  // A synthetic 33-unit DAG of width 8.
  for (uint64_t seed = 1;; ++seed) {
    std::mt19937_64 rng(seed);
    FakeModel m = MakeModel(33, WindowDag(33, 10, rng));
    if (m.blocks.blocks[0].width != 8) continue;
    PrintSearch("synthetic", m);
    break;
  }
  // RandWire's stages: the DP of the whole network's random part at r = 3, s = 8.
  std::vector<FakeModel> stages;
  for (const char* file : kRandWireFiles) {
    stages.push_back(RandWireStage(file));
    if (stages.back().n == 0) GTEST_SKIP() << "no RandWire graph file " << file;
  }
  PrintSearch("randwire ws-32-4-0.75-4", stages[2]);
  for (Endings endings : {Endings::kPaper, Endings::kReference}) {
    double seconds = 0;
    int64_t transitions = 0;
    for (const FakeModel& m : stages) {
      FakeCost cost(42);
      auto start = std::chrono::steady_clock::now();
      IosSearchResult result = RunIos(m, cost, Options(endings, 3, 8));
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      transitions += result.parts[0].transitions;
    }
    std::printf("randwire, all four stages, %s endings, r=3 s=8: %.3f s, %lld transitions\n",
                endings == Endings::kPaper ? "paper" : "reference", seconds,
                static_cast<long long>(transitions));
  }
}

// The paper's Table 1 counts transitions with the reference's endings and no pruning, on the
// largest block of each network. Built here by hand from reference-models/README.md.
TEST(IosSchedulerTest, ReferenceEndingsReproduceTableOne) {
  struct Case {
    const char* name;
    FakeModel model;
    int width;
    int64_t reference_transitions, paper_transitions;
  };
  // SqueezeNet fire with a bypass conv: squeeze -> {expand 1x1, expand 3x3} -> concat; the
  // bypass conv; the exit sums concat and bypass. Table 1: 6 units, width 3, 51 transitions.
  FakeModel squeeze = MakeModel(6, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 5}, {4, 5}});
  // Inception V3 block E: 1x1 | 1x1 -> {1x3, 3x1} | 1x1 -> 3x3 -> {1x3, 3x1} | pool -> 1x1,
  // then the concat. Table 1: 11 units, width 6, 4.9e3 transitions.
  FakeModel inception_e = MakeModel(11, {{0, 10},
                                         {1, 2},
                                         {1, 3},
                                         {2, 10},
                                         {3, 10},
                                         {4, 5},
                                         {5, 6},
                                         {5, 7},
                                         {6, 10},
                                         {7, 10},
                                         {8, 9},
                                         {9, 10}});
  std::vector<Case> cases = {{"squeezenet fire", squeeze, 3, 51, 60},
                             {"inception E", inception_e, 6, 4871, 5040}};
  // RandWire's third stage (ws-32-4-0.75-4): Table 1: 33 units, width 8, 1.2e6 transitions.
  FakeModel randwire = RandWireStage("ws-32-4-0.75-4.txt");
  if (randwire.n > 0) cases.push_back({"randwire stage 3", randwire, 8, 1170663, 3560808});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.model.blocks.blocks[0].width, c.width);
    for (Endings endings : {Endings::kReference, Endings::kPaper}) {
      FakeCost cost(0, /*constant=*/true);
      IosSearchResult result = RunIos(c.model, cost, Options(endings, 0, 0));
      EXPECT_EQ(result.parts[0].transitions,
                endings == Endings::kReference ? c.reference_transitions : c.paper_transitions);
    }
  }
}

}  // namespace
}  // namespace ios
