// The compile pipeline, iosc's and the public API's: import the model, canonicalise it, cut it
// into blocks, choose the schedule (the IOS search with its cost source, or a baseline), merge
// convs, plan memory and build the plan, writing what the options ask for (the plan, the blocks,
// the canonical ONNX, the search statistics, the schedule's picture) and reporting each step
// through PipelineOptions::report.
#pragma once

#include <optional>

#include "compile/pipeline_options.h"
#include "iosplan.pb.h"
#include "search_stats.pb.h"
#include "util/status.h"

namespace ios {

struct PipelineResult {
  std::optional<plan::Plan> plan;                 // with keep_plan: the plan, weights included
  std::optional<proto::SearchStats> search_stats;  // for the IOS schedules
};

StatusOr<PipelineResult> RunPipeline(const PipelineOptions& options);

}  // namespace ios
