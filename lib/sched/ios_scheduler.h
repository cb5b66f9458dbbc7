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
#pragma once

#include <string>
#include <vector>

#include "cost/stage_cost.h"
#include "sched/blocks.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

enum class Endings { kPaper, kReference };
enum class IosStrategies { kBoth, kConcurrentOnly, kMergeOnly };

struct IosOptions {
  int max_group_units = 3;  // r
  int max_groups = 8;       // s
  Endings endings = Endings::kPaper;
  IosStrategies strategies = IosStrategies::kBoth;
  double time_budget_s = 0;  // 0 = none; past it, the remaining parts are scheduled greedily
  int64_t max_states = 4'000'000;  // a part whose DP would exceed this falls back to greedy
};

struct PartSearchStats {
  int block = 0;
  int part = 0;
  int units = 0;
  int width = 0;
  int64_t states = 0;
  int64_t transitions = 0;      // (S, S') pairs evaluated
  int64_t stages_measured = 0;  // distinct stages whose cost this part obtained
  double search_seconds = 0;
  double latency_ms = 0;  // predicted latency of the part's schedule
  std::string fallback;   // empty, or why the part was scheduled greedily
};

struct IosSearchResult {
  Schedule schedule;
  std::vector<PartSearchStats> parts;
  double search_seconds = 0;
  double predicted_latency_ms = 0;
  // Per stage of `schedule`, in order: its predicted latency.
  std::vector<double> stage_latency_ms;
};

StatusOr<IosSearchResult> IosSchedule(const Graph& graph, const BlockStructure& blocks,
                                      StageCostSource& cost, const IosOptions& options);

// The predicted latency of any schedule (e.g. sequential or greedy) under the same source:
// the sum of its stages' latencies. Stages must be made of whole units.
StatusOr<double> PredictScheduleLatency(const Graph& graph, const BlockStructure& blocks,
                                        const Schedule& schedule, StageCostSource& cost,
                                        std::vector<double>* stage_latency_ms);

}  // namespace ios
