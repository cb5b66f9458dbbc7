// The IOS search's statistics (search_stats.proto): what --stats-json writes, the public API's
// Plan::statistics_json() returns and iosc's printed summary is made from (search_report.h).
#pragma once

#include <string>

#include "compile/concurrency_policy.h"
#include "compile/pipeline_options.h"
#include "compile/search_run.h"
#include "passes/canonicalize.h"
#include "search_stats.pb.h"

namespace ios {

// The cost source's counts over the search and the baselines (CachedStageCost's).
struct CostFigures {
  std::string name;
  int64_t requests = 0;
  int64_t distinct_measured = 0;
  int64_t unit_bounds_measured = 0;
  int64_t composed = 0;
  bool bounds_stages = false;
  std::string counters;
};

CostFigures CostFiguresOf(const CachedStageCost& cost);

// `run.result` is the schedule as the policy left it (`policy`).
proto::SearchStats SearchStatistics(const PipelineOptions& options, const CostFigures& cost,
                                    const SearchRun& run, const ConcurrencyOutcome& policy);

proto::CanonicalizeStats CanonicalizeStatistics(const CanonicalizeStats& stats);

}  // namespace ios
