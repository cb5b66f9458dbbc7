// Traced runs as a Chrome trace-event file (the JSON that Perfetto, ui.perfetto.dev, and
// chrome://tracing open): one track per stream with a span per op (its node name, op type,
// shapes, block, stage and group, and the threads it was given), a span per event wait, a
// zero-length span per event record with a flow arrow from each record to the wait it releases,
// and a "stages" track with a span per stage of each run (and its predicted latency, when the
// plan has one) plus an instant at each stage boundary. Times are in microseconds from the start
// of the first traced run.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/command_list.h"
#include "runtime/run_trace.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

struct ChromeTraceOptions {
  std::string process_name = "ios";        // the process track's title
  std::vector<double> stage_predicted_ms;  // per stage of the schedule, in order; may be empty
};

StatusOr<std::string> ChromeTraceJson(const Graph& graph, const Schedule& schedule,
                                      const CommandList& commands,
                                      const std::vector<RunTrace>& runs,
                                      const ChromeTraceOptions& options);

// Where each op sits in the schedule: per NodeId, its block, stage (counted within the block),
// global stage index and group; -1 for ops the schedule does not run.
struct OpPlace {
  int block = -1;
  int stage = -1;
  int global_stage = -1;
  int group = -1;
};
std::vector<OpPlace> PlaceOps(const Graph& graph, const Schedule& schedule);

}  // namespace ios
