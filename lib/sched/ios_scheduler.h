// The IOS scheduler: Algorithm 1 of the paper. One dynamic program per block part over states
// S (the units not yet scheduled, a bitmask): cost[S] = min over endings S' of S of
// cost[S - S'] + latency(S'), where an ending is a non-empty S' ⊆ S with no edge from S' to
// S - S'. The stage S' runs last; its groups are the connected components of S' (units joined by
// an edge share a group, and run in order on one stream). Pruning keeps at most
// `max_groups` (s) groups per stage and `max_group_units` (r) units per group; 0 = unlimited.
//
// `Endings::kReference` enumerates only endings whose groups each have a single root (a unit
// plus its descendants in S), as the reference implementation does (its authors acknowledged
// the narrowing as a bug; the paper's Table 1 counts it).
//
// Stage costs: the search asks `cost` once per stage key (StageKeyer, stage_signature.h: the
// strategy and the groups as sequences of unit signatures, wiring left out), across all parts;
// a source must give stages with one key one latency. A part identical to an earlier one
// (part_key.h) takes its stages without a DP of its own (PartSearchStats::reused_part).
// Guards: max_states, max_transitions_per_part and time_budget_s make a part fall back to the
// greedy rule, with a warning and PartSearchStats::fallback saying why; never a hang.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sched/stage_cost_source.h"
#include "sched/blocks.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

enum class Endings { kPaper, kReference };
enum class IosStrategies { kBoth, kConcurrentOnly, kMergeOnly };

// How far a search is, for a progress display: reported after each part (or piece of one).
struct SearchProgress {
  int parts_done = 0;
  int parts_total = 0;
  int64_t stages_measured = 0;  // distinct stages whose cost was obtained so far
  double seconds = 0;           // since the search began
};

// A part the search has just scheduled, for IosOptions::check_part: its stages as searched and
// its units one per stage in order (the sequential schedule's stages for it), with their
// predicted latencies summed.
struct PartCheck {
  const ScheduleBlock& searched;
  const ScheduleBlock& sequential;
  double searched_ms = 0;
  double sequential_ms = 0;
};

struct IosOptions {
  int max_group_units = 3;  // r
  int max_groups = 8;       // s
  Endings endings = Endings::kPaper;
  IosStrategies strategies = IosStrategies::kBoth;
  double time_budget_s = 0;        // 0 = none; past it, the remaining parts are scheduled greedily
  int64_t max_states = 4'000'000;  // a part whose DP would exceed this falls back to greedy
  // A part whose DP evaluates more (S, S') pairs than this falls back to greedy: the guard
  // against a part whose states fit but whose endings explode (wide parts, loose pruning). The
  // largest part of the four benchmark networks evaluates 8.4e5 at r = 3, s = 8 (RandWire);
  // 5e7 take roughly 1-3 s at the DP's 20-50 ns per transition.
  int64_t max_transitions_per_part = 50'000'000;
  // Branch and bound (ios_dp.h), where the source bounds stages: a stage is measured only while
  // cost[S - S'] + (1 - bound_slack) * its bound is below the state's best. The bound and the
  // stage are two measurements, each settled within the profiler's 5% of its median, so a bound
  // can come in above its stage: 12% of the stages measured on RandWire at batch 8 (2 cores).
  // None by default all the same: a stage skipped that way would have beaten the state's best
  // by a median 0.6% (at most 4.3%) in that search, within the measurements' own noise and under
  // the 5% (--min-concurrency-gain) that concurrent blocks must save to be kept. There, a slack
  // of 10% measured 1029-1159 stages in 113-130 s, 5% 705-721 in 72-85 s, 2% 454 in 52 s and
  // none 319 in 34 s, all predicting 1.09-1.15x over sequential.
  double bound_slack = 0;
  // Where the source bounds stages: a part whose ceiling (sched/part_ceiling.h: what any
  // schedule of concurrent stages could save, from its units' timings) is under this fraction of
  // its sequential latency gets one unit per stage, in order, without a search: none of its
  // candidate stages is measured. 0 searches every part. Merged stages are not bounded by the
  // ceiling, so this is for sources whose plans keep no merge stage unmeasured (the CPU, whose
  // block check cannot run them).
  double min_part_gain = 0;
  // Called on the searching thread after each part; may be empty.
  std::function<void(const SearchProgress&)> progress;
  // Called after each part that the DP searched (not one that reused an identical part's
  // stages, had no room or fell back) and that it gave a stage of two groups or more or a merge;
  // returns whether to search on. Once it says no, every later part runs its units one per
  // stage, in order, unsearched (PartSearchStats::unsearched_after_check), identical parts
  // included. For a source whose stage costs may promise concurrency that whole runs do not
  // deliver (the CPU: SearchCheck, compile/block_check.h). May be empty.
  std::function<StatusOr<bool>(const PartCheck&)> check_part;
  // Where the source measures stages (a profiler): seconds of measuring for the search,
  // estimated as kProfileRunsPerMeasurement runs of everything it asked for (StageMemo::asked_ms,
  // plus each part check_part measured, both ways and twice). Once past it, every later part
  // runs its units one per stage, unsearched, as after a stop by check_part. The estimate comes
  // from the latencies themselves, not the clock, so a recompilation from a timing cache stops
  // at the same part and makes the same plan. 0 = none.
  double profile_budget_s = 0;
};

// A profiler's runs per measurement: one or two warm-up runs and two or three samples (the CPU
// profiler's counters: 3.3 runs per stage on RandWire at batch 8, 5.1 on NasNet).
inline constexpr double kProfileRunsPerMeasurement = 4;

struct PartSearchStats {
  int block = 0;
  int part = 0;
  int units = 0;
  int width = 0;
  int64_t states = 0;
  int64_t transitions = 0;      // (S, S') pairs evaluated
  int64_t stages_measured = 0;  // distinct stages whose cost this part obtained
  // Branch and bound (ios_dp.h), when the source bounds stages: transitions decided by a lower
  // bound without measuring the stage, stages measured after their bound was taken, and how
  // many of those measured below it.
  int64_t transitions_bounded = 0;
  int64_t bounds_checked = 0;
  int64_t bounds_broken = 0;
  double search_seconds = 0;
  double latency_ms = 0;  // predicted latency of the part's schedule
  std::string fallback;   // empty, or why the part was scheduled greedily
  // >= 0: this part is identical to parts[reused_part] (same units, DAG and tensor sharing) and
  // took its stages without a search of its own; states and transitions are that search's.
  int reused_part = -1;
  // With IosOptions::min_part_gain: the part's ceiling (-1 when not measured), and whether it
  // was under the margin, so that the part runs its units one by one unsearched.
  double ceiling_ms = -1;
  bool no_room = false;
  // IosOptions::check_part had stopped the search before this part, or profile_budget_s had
  // run out: it runs its units one per stage, unsearched.
  bool unsearched_after_check = false;
};

struct IosSearchResult {
  Schedule schedule;
  std::vector<PartSearchStats> parts;
  double search_seconds = 0;
  double predicted_latency_ms = 0;
  // Per stage of `schedule`, in order: its predicted latency.
  std::vector<double> stage_latency_ms;
  int parts_checked = 0;          // IosOptions::check_part calls
  bool stopped_by_check = false;  // one of them said to stop
  // IosOptions::profile_budget_s: the estimate (of everything asked, at the end), and whether it
  // ran out before some part.
  double profile_estimate_s = 0;
  bool stopped_by_budget = false;
};

StatusOr<IosSearchResult> IosSchedule(const Graph& graph, const BlockStructure& blocks,
                                      StageCostSource& cost, const IosOptions& options);

// The predicted latency of any schedule (e.g. sequential or greedy) under the same source:
// the sum of its stages' latencies. Stages must be made of whole units.
StatusOr<double> PredictScheduleLatency(const Graph& graph, const BlockStructure& blocks,
                                        const Schedule& schedule, StageCostSource& cost,
                                        std::vector<double>* stage_latency_ms);

}  // namespace ios
