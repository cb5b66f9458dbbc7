// The IOS search as iosc runs it: the cost source for --device (behind the timing cache), the
// search under the concurrency policy's limits, and the sequential and greedy baselines under
// the same source.
#pragma once

#include <memory>
#include <string>

#include "compile/concurrency_policy.h"
#include "compile/pipeline_options.h"
#include "cost/cached_stage_cost.h"
#include "ir/graph.h"
#include "sched/blocks.h"
#include "sched/ios_scheduler.h"
#include "util/status.h"

namespace ios {

// The stage cost source for options.device: the CPU profiler, an analytic model (sim:NAME) or
// the CUDA profiler.
StatusOr<std::unique_ptr<StageCostSource>> MakeCostSource(const PipelineOptions& options,
                                                          const Graph& graph);

// The policy's settings for these options and this source.
ConcurrencySettings ConcurrencySettingsFor(const PipelineOptions& options,
                                           const StageCostSource& cost);

// What the search's own check measured (SearchCheck, block_check.h).
struct SearchCheckFigures {
  int parts_measured = 0;
  double ios_ms = 0;
  double sequential_ms = 0;
};

struct SearchRun {
  IosSearchResult result;
  Baselines baselines;
  SearchCheckFigures search_check;
};

// Runs the search on `cost` and costs the baselines.
StatusOr<SearchRun> RunIosSearch(const PipelineOptions& options, const Graph& graph,
                                 const BlockStructure& blocks, CachedStageCost& cost);

}  // namespace ios
