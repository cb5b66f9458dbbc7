#include "compile/compile_schedule.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <utility>

#include "compile/block_check.h"
#include "compile/concurrency_policy.h"
#include "compile/device_defaults.h"
#include "compile/search_report.h"
#include "compile/search_run.h"
#include "compile/search_statistics.h"
#include "cost/analytic_model.h"
#include "cost/cached_stage_cost.h"
#include "plan/fingerprint_proto.h"
#include "runtime/cpu/cpu_device.h"
#include "sched/merge_convs.h"
#include "util/device_name.h"
#ifdef IOS_HAVE_CUDA
#include "compile/compile_cuda.h"
#endif

namespace ios {
namespace {

bool IsSim(const std::string& device) { return device.rfind("sim:", 0) == 0; }

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

// The search, the concurrency policy on its schedule, the statistics and their report.
StatusOr<ScheduleOutcome> SearchIos(const PipelineOptions& options, Graph& graph,
                                    const BlockStructure& blocks) {
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<StageCostSource> source, MakeCostSource(options, graph));
  CachedStageCost cost(*source);
  if (!options.timing_cache_path.empty())
    IOS_RETURN_IF_ERROR(cost.LoadTimingCache(options.timing_cache_path));
  IOS_ASSIGN_OR_RETURN(SearchRun run, RunIosSearch(options, graph, blocks, cost));
  const BlockChecker block_check = [&](IosSearchResult* result) {
    return KeepSequentialWhereMeasuredFaster(graph, run.baselines.sequential,
                                             run.baselines.sequential_stages, cost, result,
                                             options.min_concurrency_gain);
  };
  IOS_ASSIGN_OR_RETURN(ConcurrencyOutcome policy,
                       ApplyConcurrencyPolicy(ConcurrencySettingsFor(options, cost), run.baselines,
                                              block_check, &run.result));
  if (!options.timing_cache_path.empty())
    IOS_RETURN_IF_ERROR(cost.SaveTimingCache(options.timing_cache_path));
  const CostFigures figures = CostFiguresOf(cost);
  if (!figures.counters.empty()) spdlog::info("{}: {}", figures.name, figures.counters);
  ScheduleOutcome outcome;
  outcome.search_stats = SearchStatistics(options, figures, run, policy);
  Report(options, "%s", FormatSearchReport(*outcome.search_stats).c_str());
  outcome.schedule = std::move(run.result.schedule);
  outcome.stage_latencies =
      StageLatencies(outcome.schedule, run.result.stage_latency_ms, figures.name);
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
  if (IsIosSearch(options.schedule)) return SearchIos(options, graph, blocks);
  ScheduleOutcome outcome;
  outcome.schedule = options.schedule == ScheduleKind::kSequential
                         ? SequentialSchedule(blocks)
                         : GreedySchedule(blocks, GreedyStreams(options, MachineCores()));
  return outcome;
}

}  // namespace ios
