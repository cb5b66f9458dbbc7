// Chooses the schedule iosc writes: sequential, greedy, or the IOS search with its cost source,
// and reports what the search bought.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compile/pipeline_options.h"
#include "iosplan.pb.h"
#include "search_stats.pb.h"
#include "ir/graph.h"
#include "sched/blocks.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

struct ScheduleOutcome {
  Schedule schedule;
  std::vector<plan::StageLatency> stage_latencies;  // empty when no cost source was used
  std::optional<proto::SearchStats> search_stats;   // the IOS search's
};

// The device fingerprint for --device (cpu or sim:NAME; a CUDA ordinal fails cleanly).
StatusOr<plan::DeviceFingerprint> TargetDevice(const std::string& device);

// Builds the schedule. For the IOS schedules it also applies operator merges to `graph`,
// prints the search summary, and writes --timing-cache (the pipeline writes --stats-json, once
// the plan's slow nodes are known: compile/slow_nodes.h).
StatusOr<ScheduleOutcome> BuildSchedule(const PipelineOptions& options, Graph& graph,
                                        const BlockStructure& blocks);

}  // namespace ios
