#include "compile/search_run.h"

#include <utility>

#include "compile/block_check.h"
#include "cost/analytic_model.h"
#include "profile/cpu/cpu_profiler.h"
#include "sched/schedule.h"
#ifdef IOS_HAVE_CUDA
#include "compile/compile_cuda.h"
#endif

namespace ios {
namespace {

IosStrategies Strategies(ScheduleKind schedule) {
  switch (schedule) {
    case ScheduleKind::kIosParallel:
      return IosStrategies::kConcurrentOnly;
    case ScheduleKind::kIosMerge:
      return IosStrategies::kMergeOnly;
    default:
      return IosStrategies::kBoth;
  }
}

IosOptions SearchOptions(const PipelineOptions& options, const SearchLimits& limits) {
  IosOptions search;
  search.max_group_units = options.max_units_per_group;
  search.max_groups = options.max_groups_per_stage;
  search.endings = options.endings;
  search.strategies = Strategies(options.schedule);
  search.time_budget_s = options.search_budget_s;
  search.max_transitions_per_part = options.max_transitions_per_part;
  search.progress = options.on_progress;
  search.min_part_gain = limits.min_part_gain;
  search.profile_budget_s = limits.profile_budget_s;
  return search;
}

}  // namespace

StatusOr<std::unique_ptr<StageCostSource>> MakeCostSource(const PipelineOptions& options,
                                                          const Graph& graph) {
  if (IsCudaDevice(options.device)) {
#ifdef IOS_HAVE_CUDA
    return MakeCudaCostSource(options, graph);
#else
    (void)graph;
    return InvalidInput("no CUDA device: this build of ios has no CUDA backend");
#endif
  }
  if (options.device.rfind("sim:", 0) == 0) {
    IOS_ASSIGN_OR_RETURN(std::unique_ptr<AnalyticCostSource> sim,
                         MakeAnalyticCostSource(options.device.substr(4)));
    return std::unique_ptr<StageCostSource>(std::move(sim));
  }
  CpuProfilerOptions profiler;
  profiler.warmup_runs = options.profile_warmup;
  profiler.repeats = options.profile_repeats;
  profiler.settle_tolerance = options.profile_tolerance;
  profiler.bound_stages = options.stage_bounds;
  return std::unique_ptr<StageCostSource>(std::make_unique<CpuProfilerCostSource>(profiler));
}

ConcurrencySettings ConcurrencySettingsFor(const PipelineOptions& options,
                                           const StageCostSource& cost) {
  ConcurrencySettings settings;
  settings.check_blocks = options.check_blocks;
  settings.measures_blocks = cost.MeasuresBlocks();
  settings.min_concurrency_gain = options.min_concurrency_gain;
  settings.profile_budget_s = options.profile_budget_s;
  settings.concurrent_allowed = Strategies(options.schedule) != IosStrategies::kMergeOnly;
  return settings;
}

StatusOr<SearchRun> RunIosSearch(const PipelineOptions& options, const Graph& graph,
                                 const BlockStructure& blocks, CachedStageCost& cost) {
  const SearchLimits limits = SearchLimitsFor(ConcurrencySettingsFor(options, cost));
  IosOptions search = SearchOptions(options, limits);
  // The search checks itself as it goes (SearchCheck, block_check.h).
  SearchCheck search_check(graph, cost, options.min_concurrency_gain);
  if (limits.check_parts)
    search.check_part = [&](const PartCheck& part) { return search_check.Check(part); };
  SearchRun run;
  IOS_ASSIGN_OR_RETURN(run.result, IosSchedule(graph, blocks, cost, search));
  run.search_check = {search_check.measured(), search_check.ios_ms(), search_check.sequential_ms()};
  // What the search bought: the baselines under the same cost source.
  Baselines& base = run.baselines;
  const int streams = options.max_groups_per_stage > 0 ? options.max_groups_per_stage : 8;
  base.sequential = SequentialSchedule(blocks);
  IOS_ASSIGN_OR_RETURN(base.sequential_ms, PredictScheduleLatency(graph, blocks, base.sequential,
                                                                  cost, &base.sequential_stages));
  base.greedy = GreedySchedule(blocks, streams);
  IOS_ASSIGN_OR_RETURN(base.greedy_ms, PredictScheduleLatency(graph, blocks, base.greedy, cost,
                                                              &base.greedy_stages));
  return run;
}

}  // namespace ios
