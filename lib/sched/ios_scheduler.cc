// IosSchedule runs one dynamic program per block part (ios_dp.h) over the part's states
// (ios_endings.h), and falls back to the greedy rule for a part whose DP would be too large or
// once the time budget is spent. A part of more than 64 units (one uint64 per state) is cut into
// consecutive pieces of at most 64, each searched on its own (with a warning). With
// IosOptions::min_part_gain, a part whose ceiling (part_ceiling.h) is under the margin runs its
// units one per stage, in order, and no stage of it is searched.
//
// What the statistics count (PartSearchStats):
//   states           the part's down-sets, the empty one included (every down-set is reachable);
//   transitions      (S, S') pairs the enumeration produced, S' an ending of S under the pruning,
//                    including those the strategies then rule out (kMergeOnly);
//   stages_measured  distinct stage keys (StageKeyer, stage_signature.h: strategy and groups
//                    up to wiring) this part asked the source for; keys an earlier part asked
//                    for are not asked again (repeated cells cost nothing);
//   latency_ms       the sum of the part's stage latencies, in execution order;
//   transitions_bounded, bounds_checked, bounds_broken
//                    the branch and bound's (ios_dp.h), 0 when the source gives no bounds;
//   reused_part      a part identical to an earlier one (PartKey: same units, DAG and tensor
//                    sharing) takes that part's stages without running the DP again; its states
//                    and transitions are then those of the search it reuses;
//   ceiling_ms       what any schedule of the part could save (part_ceiling.h), -1 when not
//                    measured; no_room when that is under IosOptions::min_part_gain;
//   unsearched_after_check
//                    IosOptions::check_part stopped the search at an earlier part, or
//                    profile_budget_s ran out.
// Strategies: kBoth measures the concurrent stage, and the merged one when CanMergeStage; it
// keeps the concurrent one only if strictly cheaper (Algorithm 1, L30). kMergeOnly allows a stage
// that cannot merge only when it is a single group (at most r units, run on one stream), so that
// every state keeps an ending; its greedy fallback runs unmergeable stages concurrently.
// Stage groups are ordered by their first unit, units within a group in topological order.
#include "sched/ios_scheduler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>

#include "sched/dag_width.h"
#include "sched/ios_dp.h"
#include "sched/ios_endings.h"
#include "sched/part_ceiling.h"
#include "sched/part_key.h"

namespace ios {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// IosOptions::profile_budget_s's estimate of the measuring done so far.
double ProfileEstimateS(const StageMemo& memo) {
  return kProfileRunsPerMeasurement * memo.asked_ms / 1000;
}

std::vector<std::vector<UnitId>> SplitIntoPieces(const std::vector<UnitId>& units) {
  std::vector<std::vector<UnitId>> pieces;
  for (size_t begin = 0; begin < units.size(); begin += kMaxPartUnits) {
    size_t end = std::min(units.size(), begin + kMaxPartUnits);
    pieces.emplace_back(units.begin() + begin, units.begin() + end);
  }
  return pieces;
}

int PieceWidth(const PartDag& dag) {
  std::vector<std::vector<int>> successors(dag.n);
  for (int i = 0; i < dag.n; ++i)
    for (uint64_t m = dag.succ[i]; m; m &= m - 1) successors[i].push_back(LowestBit(m));
  return DagWidth(successors);
}

// The stage of the part's units in `mask`, as a schedule holds it: each group's units' nodes.
ScheduleStage MakeStage(const UnitGraph& unit_graph, const StageTable& table, uint64_t mask,
                        StageStrategy strategy) {
  ScheduleStage stage;
  stage.strategy = strategy;
  for (const std::vector<UnitId>& units : table.Candidate(mask, strategy).groups) {
    ScheduleGroup group;
    for (UnitId u : units) {
      const auto& nodes = unit_graph.units[u].nodes;
      group.nodes.insert(group.nodes.end(), nodes.begin(), nodes.end());
    }
    stage.groups.push_back(std::move(group));
  }
  return stage;
}

Status CheckOptions(const IosOptions& options) {
  if (options.max_group_units < 0)
    return InvalidInput("IOS: max units per group (r) must be >= 0 (0 = no limit)");
  if (options.max_groups < 0)
    return InvalidInput("IOS: max groups per stage (s) must be >= 0 (0 = no limit)");
  if (options.max_states < 1) return InvalidInput("IOS: max_states must be >= 1");
  if (options.max_transitions_per_part < 1)
    return InvalidInput("IOS: max_transitions_per_part must be >= 1");
  if (!(options.bound_slack >= 0 && options.bound_slack <= 1))
    return InvalidInput("IOS: bound_slack must be in [0, 1]");
  if (!(options.time_budget_s >= 0))
    return InvalidInput("IOS: the time budget must be >= 0 seconds (0 = none)");
  if (!(options.profile_budget_s >= 0))
    return InvalidInput("IOS: the profiling budget must be >= 0 seconds (0 = none)");
  return Status::Ok();
}

// The units whose nodes a schedule's group runs, in order; an error for a group that is empty,
// names a node in no unit or splits a unit.
StatusOr<std::vector<UnitId>> GroupUnits(const Graph& graph, const UnitGraph& unit_graph,
                                         const ScheduleGroup& group) {
  if (group.nodes.empty()) return InvalidInput("schedule has an empty group");
  std::vector<UnitId> units;
  for (size_t i = 0; i < group.nodes.size();) {
    NodeId n = group.nodes[i];
    UnitId u = n >= 0 && n < static_cast<NodeId>(unit_graph.unit_of_node.size())
                   ? unit_graph.unit_of_node[n]
                   : -1;
    if (u < 0 || u >= static_cast<UnitId>(unit_graph.units.size()))
      return InvalidInput("schedule names node " + std::to_string(n) + ", in no unit");
    const std::vector<NodeId>& nodes = unit_graph.units[u].nodes;
    if (nodes.empty()) return Internal("unit " + std::to_string(u) + " has no nodes");
    if (i + nodes.size() > group.nodes.size() ||
        !std::equal(nodes.begin(), nodes.end(), group.nodes.begin() + i)) {
      return InvalidInput("a schedule group splits the unit of " + graph.Describe(n) +
                          "; stages must be made of whole units");
    }
    units.push_back(u);
    i += nodes.size();
  }
  return units;
}

// One search over every block's parts, piece by piece: the state that the parts share (the
// stage memo, the parts searched so far, the time budget, the progress) and the result.
class IosSearch {
 public:
  IosSearch(const Graph& graph, const BlockStructure& blocks, StageCostSource& cost,
            const IosOptions& options)
      : graph_(graph),
        blocks_(blocks),
        unit_graph_(blocks.unit_graph),
        cost_(cost),
        options_(options),
        start_(std::chrono::steady_clock::now()),
        deadline_(options.time_budget_s),
        memo_(graph, unit_graph_) {
    result_.schedule.kind = "ios";
    for (const Block& block : blocks.blocks)
      for (const BlockPart& part : block.parts)
        progress_.parts_total += static_cast<int>(SplitIntoPieces(part.units).size());
  }

  StatusOr<IosSearchResult> Run() {
    for (size_t b = 0; b < blocks_.blocks.size(); ++b) {
      ScheduleBlock scheduled;
      for (size_t p = 0; p < blocks_.blocks[b].parts.size(); ++p)
        IOS_RETURN_IF_ERROR(SearchPart(b, p, &scheduled));
      result_.schedule.blocks.push_back(std::move(scheduled));
    }
    result_.predicted_latency_ms = 0;
    for (double ms : result_.stage_latency_ms) result_.predicted_latency_ms += ms;
    result_.profile_estimate_s = ProfileEstimateS(memo_);
    result_.search_seconds = SecondsSince(start_);
    return std::move(result_);
  }

 private:
  // Parts searched so far by PartKey: the index of their stats and their stages.
  struct Searched {
    size_t stats_index;
    std::vector<uint64_t> stages;
  };

  Status SearchPart(size_t b, size_t p, ScheduleBlock* scheduled) {
    const BlockPart& part = blocks_.blocks[b].parts[p];
    std::vector<std::vector<UnitId>> pieces = SplitIntoPieces(part.units);
    if (pieces.size() > 1) {
      spdlog::warn("IOS: block {} part {} has {} units; searching it as {} pieces of at most {}", b,
                   p, part.units.size(), pieces.size(), kMaxPartUnits);
    }
    for (const std::vector<UnitId>& piece : pieces) {
      const auto piece_start = std::chrono::steady_clock::now();
      IOS_ASSIGN_OR_RETURN(PartDag dag, BuildPartDag(unit_graph_, piece));
      PartSearchStats stats;
      stats.block = static_cast<int>(b);
      stats.part = static_cast<int>(p);
      stats.units = dag.n;
      stats.width = pieces.size() > 1 ? PieceWidth(dag) : part.width;
      StageTable table(graph_, unit_graph_, dag, cost_, options_.strategies, memo_);
      bool searched_here = false;  // the DP ran for this piece
      IOS_ASSIGN_OR_RETURN(std::vector<uint64_t> stage_masks,
                           ChooseStages(dag, table, &stats, &searched_here));
      if (!stats.fallback.empty()) {
        spdlog::warn("IOS: block {} part {} ({} units) scheduled greedily: {}", b, p, dag.n,
                     stats.fallback);
        stage_masks = GreedyPartStages(dag, options_.max_groups);
      }
      const size_t first_stage = scheduled->stages.size();
      IOS_ASSIGN_OR_RETURN(stats.latency_ms,
                           AppendStages(table, stage_masks, !stats.fallback.empty(), scheduled));
      if (options_.check_part && searched_here)
        IOS_RETURN_IF_ERROR(CheckPart(dag, table, *scheduled, first_stage, stats.latency_ms));
      stats.stages_measured = table.measured();
      stats.search_seconds = SecondsSince(piece_start);
      FinishPiece(std::move(stats));
    }
    return Status::Ok();
  }

  // The piece's stages: none searched once out of time (a fallback), one unit per stage in
  // order once the search has stopped, an identical earlier part's, or the search's own.
  StatusOr<std::vector<uint64_t>> ChooseStages(const PartDag& dag, StageTable& table,
                                               PartSearchStats* stats, bool* searched_here) {
    if (!out_of_time_ && deadline_.Passed()) out_of_time_ = true;
    if (!result_.stopped_by_check && options_.profile_budget_s > 0 &&
        ProfileEstimateS(memo_) > options_.profile_budget_s)
      result_.stopped_by_budget = true;  // stays so: the estimate only grows
    if (out_of_time_) {
      stats->fallback = kTimeBudgetFallback;
      return std::vector<uint64_t>{};
    }
    if (result_.stopped_by_check || result_.stopped_by_budget) {
      stats->unsearched_after_check = true;
      return GreedyPartStages(dag, 1);  // one unit per stage, in order
    }
    std::vector<int64_t> key = PartKey(graph_, unit_graph_, dag, memo_.keyer);
    auto same = searched_.find(key);
    if (same != searched_.end()) {  // an identical part: its optimum is this one's
      const PartSearchStats& original = result_.parts[same->second.stats_index];
      stats->states = original.states;
      stats->transitions = original.transitions;
      stats->ceiling_ms = original.ceiling_ms;
      stats->no_room = original.no_room;
      stats->reused_part = static_cast<int>(same->second.stats_index);
      return same->second.stages;
    }
    IOS_ASSIGN_OR_RETURN(std::vector<uint64_t> stages,
                         SearchNewPart(dag, table, stats, searched_here));
    if (stats->fallback.empty())
      searched_.emplace(std::move(key), Searched{result_.parts.size(), stages});
    return stages;
  }

  // A part not seen before: one unit per stage when its ceiling leaves no room, else the DP.
  StatusOr<std::vector<uint64_t>> SearchNewPart(const PartDag& dag, StageTable& table,
                                                PartSearchStats* stats, bool* searched_here) {
    if (options_.min_part_gain > 0 && table.bounded() && stats->width > 1) {
      const int widths =
          options_.max_groups > 0 ? std::min(options_.max_groups, stats->width) : stats->width;
      IOS_ASSIGN_OR_RETURN(PartCeiling ceiling, MeasurePartCeiling(dag, table, widths));
      stats->ceiling_ms = ceiling.GainMs();
      stats->no_room = ceiling.GainMs() < options_.min_part_gain * ceiling.sequential_ms;
    }
    if (stats->no_room) return GreedyPartStages(dag, 1);  // one unit per stage, in order
    IOS_ASSIGN_OR_RETURN(PartDpResult dp, RunPartDp(dag, options_, table, deadline_));
    stats->states = dp.states;
    stats->transitions = dp.transitions;
    stats->transitions_bounded = dp.transitions_bounded;
    stats->bounds_checked = dp.bounds_checked;
    stats->bounds_broken = dp.bounds_broken;
    stats->fallback = dp.fallback;
    if (dp.fallback == kTimeBudgetFallback) out_of_time_ = true;
    *searched_here = dp.fallback.empty();
    return std::move(dp.stages);
  }

  // Appends the stages of `masks` to `scheduled` and their latencies to the result; returns
  // their sum.
  StatusOr<double> AppendStages(StageTable& table, const std::vector<uint64_t>& masks,
                                bool fallback, ScheduleBlock* scheduled) {
    double total_ms = 0;
    for (uint64_t mask : masks) {
      StatusOr<StageTable::Entry> entry =
          fallback ? table.GetAllowingConcurrent(mask) : table.Get(mask);
      if (!entry.ok()) return entry.status();
      if (!entry->allowed) return Internal("IOS: chose a stage its strategies rule out");
      scheduled->stages.push_back(MakeStage(unit_graph_, table, mask, entry->strategy));
      result_.stage_latency_ms.push_back(entry->latency_ms);
      total_ms += entry->latency_ms;
    }
    return total_ms;
  }

  // IosOptions::check_part on a searched piece that has a concurrent or merge stage (its stages
  // from `first_stage` on), against its units one per stage.
  Status CheckPart(const PartDag& dag, StageTable& table, const ScheduleBlock& scheduled,
                   size_t first_stage, double part_ms) {
    ScheduleBlock searched_stages;
    bool concurrent = false;
    for (size_t i = first_stage; i < scheduled.stages.size(); ++i) {
      const ScheduleStage& stage = scheduled.stages[i];
      concurrent = concurrent || stage.groups.size() > 1 || stage.strategy == StageStrategy::kMerge;
      searched_stages.stages.push_back(stage);
    }
    if (!concurrent) return Status::Ok();
    ScheduleBlock sequential_stages;
    double sequential_ms = 0;
    for (uint64_t mask : GreedyPartStages(dag, 1)) {
      IOS_ASSIGN_OR_RETURN(StageTable::Entry entry, table.GetAllowingConcurrent(mask));
      sequential_stages.stages.push_back(MakeStage(unit_graph_, table, mask, entry.strategy));
      sequential_ms += entry.latency_ms;
    }
    ++result_.parts_checked;
    IOS_ASSIGN_OR_RETURN(
        bool search_on,
        options_.check_part(PartCheck{searched_stages, sequential_stages, part_ms, sequential_ms}));
    memo_.asked_ms += 2 * (part_ms + sequential_ms);
    if (!search_on) result_.stopped_by_check = true;
    return Status::Ok();
  }

  void FinishPiece(PartSearchStats stats) {
    progress_.parts_done += 1;
    progress_.stages_measured += stats.stages_measured;
    result_.parts.push_back(std::move(stats));
    if (options_.progress) {
      progress_.seconds = SecondsSince(start_);
      options_.progress(progress_);
    }
  }

  const Graph& graph_;
  const BlockStructure& blocks_;
  const UnitGraph& unit_graph_;
  StageCostSource& cost_;
  const IosOptions& options_;
  const std::chrono::steady_clock::time_point start_;
  const Deadline deadline_;
  StageMemo memo_;  // stage latencies by key, shared by all parts
  std::map<std::vector<int64_t>, Searched> searched_;
  IosSearchResult result_;
  bool out_of_time_ = false;
  SearchProgress progress_;
};

}  // namespace

StatusOr<IosSearchResult> IosSchedule(const Graph& graph, const BlockStructure& blocks,
                                      StageCostSource& cost, const IosOptions& options) {
  IOS_RETURN_IF_ERROR(CheckOptions(options));
  return IosSearch(graph, blocks, cost, options).Run();
}

StatusOr<double> PredictScheduleLatency(const Graph& graph, const BlockStructure& blocks,
                                        const Schedule& schedule, StageCostSource& cost,
                                        std::vector<double>* stage_latency_ms) {
  const UnitGraph& unit_graph = blocks.unit_graph;
  if (stage_latency_ms) stage_latency_ms->clear();
  double total = 0;
  for (const ScheduleBlock& block : schedule.blocks) {
    for (const ScheduleStage& stage : block.stages) {
      StageCandidate candidate;
      candidate.strategy = stage.strategy;
      if (stage.groups.empty()) return InvalidInput("schedule has a stage without groups");
      for (const ScheduleGroup& group : stage.groups) {
        IOS_ASSIGN_OR_RETURN(std::vector<UnitId> units, GroupUnits(graph, unit_graph, group));
        candidate.groups.push_back(std::move(units));
      }
      if (stage.strategy == StageStrategy::kMerge && !CanMergeStage(graph, unit_graph, candidate))
        return InvalidInput("schedule has a merge stage whose convs cannot be merged");
      IOS_ASSIGN_OR_RETURN(double ms, cost.StageLatencyMs(graph, unit_graph, candidate));
      if (stage_latency_ms) stage_latency_ms->push_back(ms);
      total += ms;
    }
  }
  return total;
}

}  // namespace ios
