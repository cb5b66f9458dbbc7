#include "compile/compile_schedule.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "compile/block_check.h"
#include "cost/analytic_model.h"
#include "cost/cached_stage_cost.h"
#include "plan/fingerprint_proto.h"
#include "runtime/cpu/cpu_device.h"
#include "profile/cpu/cpu_profiler.h"
#include "sched/ios_scheduler.h"
#include "sched/merge_convs.h"
#include "search_stats.pb.h"
#include "util/device_name.h"
#include "util/file_util.h"
#include "util/json_print.h"
#ifdef IOS_HAVE_CUDA
#include "compile/compile_cuda.h"
#endif

namespace ios {
namespace {

bool IsSim(const std::string& device) { return device.rfind("sim:", 0) == 0; }

int CpuCores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

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
  if (IsSim(options.device)) {
    IOS_ASSIGN_OR_RETURN(std::unique_ptr<AnalyticCostSource> sim,
                         MakeAnalyticCostSource(options.device.substr(4)));
    return std::unique_ptr<StageCostSource>(std::move(sim));
  }
  CpuProfilerOptions profiler;
  profiler.warmup_runs = options.profile_warmup;
  profiler.repeats = options.profile_repeats;
  profiler.settle_tolerance = options.profile_tolerance;
  profiler.bound_stages = options.stage_bounds != "off";
  return std::unique_ptr<StageCostSource>(std::make_unique<CpuProfilerCostSource>(profiler));
}

IosOptions SearchOptions(const PipelineOptions& options) {
  IosOptions search;
  search.max_group_units = options.max_units_per_group;
  search.max_groups = options.max_groups_per_stage;
  search.endings = options.endings == "reference" ? Endings::kReference : Endings::kPaper;
  search.strategies = options.schedule == "ios-parallel" ? IosStrategies::kConcurrentOnly
                      : options.schedule == "ios-merge"  ? IosStrategies::kMergeOnly
                                                         : IosStrategies::kBoth;
  search.time_budget_s = options.search_budget_s;
  search.max_transitions_per_part = options.max_transitions_per_part;
  search.progress = options.on_progress;
  return search;
}

std::vector<plan::StageLatency> StageLatencies(const Schedule& schedule,
                                               const std::vector<double>& latencies,
                                               const std::string& source) {
  std::vector<plan::StageLatency> out;
  size_t index = 0;
  for (size_t b = 0; b < schedule.blocks.size(); ++b) {
    for (size_t s = 0; s < schedule.blocks[b].stages.size(); ++s, ++index) {
      plan::StageLatency latency;
      latency.set_block(static_cast<int32_t>(b));
      latency.set_stage(static_cast<int32_t>(s));
      latency.set_latency_ms(index < latencies.size() ? latencies[index] : 0);
      latency.set_source(source);
      out.push_back(latency);
    }
  }
  return out;
}

StatusOr<ScheduleOutcome> SearchIos(const PipelineOptions& options, Graph& graph,
                                    const BlockStructure& blocks) {
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<StageCostSource> source, MakeCostSource(options, graph));
  CachedStageCost cost(*source);
  if (!options.timing_cache_path.empty())
    IOS_RETURN_IF_ERROR(cost.LoadTimingCache(options.timing_cache_path));
  IosOptions search = SearchOptions(options);
  // On the CPU, a part whose units alone already use the cores about as well as any schedule
  // could (its ceiling, sched/part_ceiling.h) under the margin that concurrent plans must save
  // runs sequentially unsearched: measuring its candidate stages could not pay. Merge stages,
  // which the ceiling does not bound, never pass the block check there (it cannot run them).
  if (options.check_blocks && cost.MeasuresBlocks())
    search.min_part_gain = options.min_concurrency_gain;
  if (cost.MeasuresBlocks()) search.profile_budget_s = options.profile_budget_s;
  // And the search checks itself as it goes (SearchCheck, block_check.h).
  SearchCheck search_check(graph, cost, options.min_concurrency_gain);
  if (options.check_blocks && cost.MeasuresBlocks())
    search.check_part = [&](const PartCheck& part) { return search_check.Check(part); };
  IOS_ASSIGN_OR_RETURN(IosSearchResult result, IosSchedule(graph, blocks, cost, search));
  // What the search bought: the baselines under the same cost source.
  const int streams = options.max_groups_per_stage > 0 ? options.max_groups_per_stage : 8;
  const Schedule sequential_schedule = SequentialSchedule(blocks);
  std::vector<double> sequential_stages;
  IOS_ASSIGN_OR_RETURN(double sequential, PredictScheduleLatency(graph, blocks, sequential_schedule,
                                                                 cost, &sequential_stages));
  Schedule greedy_schedule = GreedySchedule(blocks, streams);
  std::vector<double> greedy_stages;
  IOS_ASSIGN_OR_RETURN(
      double greedy, PredictScheduleLatency(graph, blocks, greedy_schedule, cost, &greedy_stages));
  const bool concurrent_allowed = search.strategies != IosStrategies::kMergeOnly;
  // Not after the search stopped itself: the greedy stages are concurrent too, and the parts
  // measured whole said that concurrency does not pay here, or the profiling budget is spent
  // (the block check would measure the greedy blocks).
  const int greedy_blocks =
      concurrent_allowed && !result.stopped_by_check && !result.stopped_by_budget
          ? KeepGreedyWhereFaster(greedy_schedule, greedy_stages, &result)
          : 0;
  const double searched = result.predicted_latency_ms;  // before the block check changes it
  BlockCheck block_check;
  int dropped_blocks = 0;
  // Where the check would measure blocks: when even the stage costs, which favour the
  // searched stages (the search keeps the lowest of noisy figures), predict the concurrent
  // blocks to save under the margin, the check would drop them whatever it measured (NasNet at
  // batch 8: predicted 3%, and 37 s of measuring blocks both ways), so they are dropped now.
  double unmeasured_gain = 0;
  int dropped_unmeasured = 0;
  if (options.check_blocks && cost.MeasuresBlocks()) {
    unmeasured_gain = PredictedConcurrentGainMs(sequential_schedule, sequential_stages, result);
    if (unmeasured_gain < options.min_concurrency_gain * sequential)
      dropped_unmeasured = DropConcurrentBlocks(sequential_schedule, sequential_stages, &result);
  }
  if (options.check_blocks) {
    IOS_ASSIGN_OR_RETURN(block_check, KeepSequentialWhereMeasuredFaster(
                                          graph, sequential_schedule, sequential_stages,
                                          cost, &result, options.min_concurrency_gain));
    if (block_check.checked > 0 &&
        block_check.kept_gain_ms + block_check.unchecked_gain_ms <
            options.min_concurrency_gain * sequential)
      dropped_blocks = DropConcurrentBlocks(sequential_schedule, sequential_stages, &result);
  }
  if (!options.timing_cache_path.empty())
    IOS_RETURN_IF_ERROR(cost.SaveTimingCache(options.timing_cache_path));
  if (const std::string counters = cost.CountersText(); !counters.empty())
    spdlog::info("{}: {}", cost.Name(), counters);

  proto::SearchStats stats;
  stats.set_model(options.model_path);
  stats.set_cost_source(cost.Name());
  stats.set_max_units_per_group(options.max_units_per_group);
  stats.set_max_groups_per_stage(options.max_groups_per_stage);
  stats.set_endings(options.endings);
  stats.set_schedule(options.schedule);
  int fallbacks = 0, no_room = 0, ceilings = 0, unsearched_after_check = 0;
  for (const PartSearchStats& part : result.parts) {
    proto::PartStats* p = stats.add_parts();
    p->set_block(part.block);
    p->set_part(part.part);
    p->set_units(part.units);
    p->set_width(part.width);
    p->set_states(part.states);
    p->set_transitions(part.transitions);
    p->set_stages_measured(part.stages_measured);
    p->set_search_seconds(part.search_seconds);
    p->set_latency_ms(part.latency_ms);
    p->set_fallback(part.fallback);
    p->set_reused_part(part.reused_part);
    p->set_transitions_bounded(part.transitions_bounded);
    p->set_bounds_checked(part.bounds_checked);
    p->set_bounds_broken(part.bounds_broken);
    p->set_ceiling_ms(part.ceiling_ms);
    p->set_no_room(part.no_room);
    p->set_unsearched_after_check(part.unsearched_after_check);
    if (part.unsearched_after_check) ++unsearched_after_check;
    if (!part.fallback.empty()) ++fallbacks;
    if (part.no_room) ++no_room;
    if (part.ceiling_ms >= 0) ++ceilings;
  }
  stats.set_search_seconds(result.search_seconds);
  stats.set_predicted_latency_ms(result.predicted_latency_ms);
  stats.set_searched_latency_ms(searched);
  stats.set_sequential_latency_ms(sequential);
  stats.set_greedy_latency_ms(greedy);
  stats.set_stage_cost_requests(cost.requests());
  stats.set_distinct_stages_measured(cost.distinct_measured());
  stats.set_unit_bounds_measured(cost.unit_bounds_measured());
  stats.set_profile_estimate_s(result.profile_estimate_s);
  stats.set_stopped_by_budget(result.stopped_by_budget);

  int64_t states = 0, transitions = 0, bounded = 0, checked = 0, broken = 0;
  for (const PartSearchStats& part : result.parts) {
    states += part.states;
    transitions += part.transitions;
    bounded += part.transitions_bounded;
    checked += part.bounds_checked;
    broken += part.bounds_broken;
  }
  // "; " rather than ", ": scripts/gpu/run_gpu_checks.py reads up to the next comma.
  const std::string composed = cost.composed() > 0 ? "; " + std::to_string(cost.composed()) +
                                                         " one-group stages summed from their units"
                                                   : "";
  Report(options,
         "IOS search (%s, r=%d, s=%d, %s endings): %zu parts, %lld states, %lld transitions, "
         "%lld distinct stages measured (%lld requests%s), %.3f s\n",
         cost.Name().c_str(), options.max_units_per_group, options.max_groups_per_stage,
         options.endings.c_str(), result.parts.size(), static_cast<long long>(states),
         static_cast<long long>(transitions), static_cast<long long>(cost.distinct_measured()),
         static_cast<long long>(cost.requests()), composed.c_str(), result.search_seconds);
  if (cost.BoundsStages())
    Report(options,
           "branch and bound: %lld transitions decided by a lower bound without measuring the "
           "stage (%lld units measured alone for the bounds); %lld of %lld stages measured "
           "after their bound came in below it\n",
           static_cast<long long>(bounded), static_cast<long long>(cost.unit_bounds_measured()),
           static_cast<long long>(broken), static_cast<long long>(checked));
  if (ceilings > 0)
    Report(options,
           "ceiling: %d of %d part(s) could gain under %.0f%% of their sequential "
           "latency with any schedule (their units alone use the cores about as well); they run "
           "sequentially, unsearched\n",
           no_room, ceilings, 100 * options.min_concurrency_gain);
  if (search_check.measured() > 0) {
    const std::string outcome =
        result.stopped_by_check
            ? "; they save under " +
                  std::to_string(std::lround(100 * options.min_concurrency_gain)) +
                  "% (--min-concurrency-gain), so the search stopped there and " +
                  std::to_string(unsearched_after_check) +
                  " later part(s) run their units one by one, unsearched"
            : "";
    Report(options,
           "search check: %d part(s) with concurrent stages measured whole, %.3f ms as searched "
           "against %.3f ms one unit at a time%s\n",
           search_check.measured(), search_check.ios_ms(), search_check.sequential_ms(),
           outcome.c_str());
  }
  if (result.stopped_by_budget)
    Report(options,
           "profile budget: the stages measured came to --profile-budget %g s of measuring "
           "(estimated from their latencies; %.0f s in all), so the search stopped and %d later "
           "part(s) run their units one by one, unsearched\n",
           options.profile_budget_s, result.profile_estimate_s, unsearched_after_check);
  Report(options, 
      "predicted latency (%s): %s %.3f ms, greedy %.3f ms, sequential %.3f ms "
      "(%.2fx over sequential, %.2fx over greedy)\n",
      cost.Name().c_str(), options.schedule.c_str(), searched, greedy, sequential,
      sequential / searched, greedy / searched);
  if (block_check.checked > 0)
    Report(options,
           "block check (%s): %d block(s) measured whole, %.3f ms as searched against %.3f ms "
           "sequential; %d keep the sequential stages, faster there\n",
           cost.Name().c_str(), block_check.checked, block_check.ios_ms,
           block_check.sequential_ms,
           block_check.replaced - block_check.reordered_only - block_check.unmeasured_replaced);
  if (block_check.unmeasured_replaced > 0)
    Report(options,
           "block check: %d segment(s) that cannot run whole keep the sequential stages (a "
           "merge stage is kept only when measured faster, concurrent stages where predicted "
           "to save %.0f%% or more)\n",
           block_check.unmeasured_replaced, 100 * options.min_concurrency_gain);
  if (block_check.reordered_only > 0)
    Report(options,
           "block check: %d block(s) only reorder ops on one stream; they keep the model's "
           "order\n",
           block_check.reordered_only);
  if (dropped_blocks > 0)
    Report(options,
           "block check: the concurrent blocks save %.3f ms (%.3f measured%s, %.3f predicted "
           "where not measured), less than the short OpenMP spin that concurrent plans run "
           "under is taken to cost (%.0f%% of the sequential %.3f ms, --min-concurrency-gain); "
           "%d block(s) run sequentially too\n",
           block_check.kept_gain_ms + block_check.unchecked_gain_ms, block_check.kept_gain_ms,
           block_check.kept_gain_remeasured ? " again" : " as they were chosen, at most",
           block_check.unchecked_gain_ms, 100 * options.min_concurrency_gain, sequential,
           dropped_blocks);
  if (dropped_unmeasured > 0)
    Report(options,
           "block check: the concurrent blocks are predicted to save %.3f ms, less than the "
           "short OpenMP spin that concurrent plans run under is taken to cost (%.0f%% of the "
           "sequential %.3f ms, --min-concurrency-gain); %d block(s) run sequentially, "
           "unmeasured\n",
           unmeasured_gain, 100 * options.min_concurrency_gain, sequential, dropped_unmeasured);
  if (result.predicted_latency_ms != searched)
    Report(options,
           "predicted latency of the plan written, after the block check: %.3f ms (%.2fx over "
           "sequential)\n",
           result.predicted_latency_ms, sequential / result.predicted_latency_ms);
  if (greedy_blocks > 0)
    Report(options, 
        "note: %d block(s) keep the greedy stages, predicted faster there than the "
        "search within the block's parts\n",
        greedy_blocks);
  if (fallbacks > 0)
    Report(options, "note: %d part(s) were scheduled greedily (see --stats-json 'fallback')\n",
                fallbacks);
  ScheduleOutcome outcome;
  outcome.schedule = std::move(result.schedule);
  outcome.stage_latencies = StageLatencies(outcome.schedule, result.stage_latency_ms, cost.Name());
  outcome.search_stats = stats;
  IOS_RETURN_IF_ERROR(ApplyMergeStages(graph, outcome.schedule));
  return outcome;
}

}  // namespace

StatusOr<plan::DeviceFingerprint> TargetDevice(const std::string& device) {
  if (device == "cpu") return CpuFingerprint();
  if (IsSim(device)) {
    IOS_ASSIGN_OR_RETURN(std::unique_ptr<AnalyticCostSource> sim,
                         MakeAnalyticCostSource(device.substr(4)));
    return ToPlanFingerprint(sim->Fingerprint());
  }
  if (!IsCudaDevice(device)) {
    return InvalidInput(
        "--device must be cpu, sim:NAME, a CUDA device ordinal, cuda or cuda:N, got '" + device +
        "'");
  }
#ifdef IOS_HAVE_CUDA
  return CudaTargetFingerprint(CudaOrdinalOf(device));
#else
  return InvalidInput("no CUDA device: this build of ios has no CUDA backend");
#endif
}

StatusOr<ScheduleOutcome> BuildSchedule(const PipelineOptions& options, Graph& graph,
                                        const BlockStructure& blocks) {
  if (options.schedule.rfind("ios", 0) == 0) return SearchIos(options, graph, blocks);
  int max_streams = options.max_streams;
  if (max_streams == 0) max_streams = options.device == "cpu" ? CpuCores() : 8;
  ScheduleOutcome outcome;
  outcome.schedule = options.schedule == "sequential" ? SequentialSchedule(blocks)
                                                      : GreedySchedule(blocks, max_streams);
  return outcome;
}

}  // namespace ios
