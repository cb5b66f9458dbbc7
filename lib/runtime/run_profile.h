// Per-op and per-stage figures from traced runs (runtime/run_trace.h): iosrun --profile's
// tables and --export-profile's JSON. Each time is the median over the runs; a stage's time is
// from its first op's start to its last op's end; FLOPs and bytes come from the op registry's
// costs, so that achieved GFLOP/s show where time goes against work; and each stage's measured
// time stands beside the latency the plan predicted for it, to show where the cost model was
// wrong.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/chrome_trace.h"
#include "runtime/kernel_path.h"
#include "runtime/run_trace.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

struct OpProfile {
  NodeId op = kNoNode;
  OpPlace place;
  KernelPath path = KernelPath::kOwnKernel;  // how the backend ran it (runtime/kernel_path.h)
  double ms = 0;     // median over the runs
  double share = 0;  // of the ops' medians summed, so that the shares add up to 1
  double flops = 0;
  double bytes = 0;
};

struct StageProfile {
  int block = 0;
  int stage = 0;
  int groups = 0;
  int ops = 0;
  double ms = 0;             // median over the runs; 0 for a stage of view-only ops
  double predicted_ms = -1;  // from the plan; -1 when it has none
};

struct RunProfile {
  int runs = 0;
  double run_ms = 0;     // median latency of a whole run
  double op_ms_sum = 0;     // median over the runs of each run's op times summed
  double stage_ms_sum = 0;  // the same for the stages' spans
  std::vector<OpProfile> ops;        // sorted, slowest first
  std::vector<StageProfile> stages;  // in schedule order
};

// `kernel_paths` (per NodeId; empty: every op on its backend's own kernel) marks the ops that
// ran slow paths.
StatusOr<RunProfile> ProfileRuns(const Graph& graph, const Schedule& schedule,
                                 const std::vector<RunTrace>& runs,
                                 const std::vector<double>& stage_predicted_ms,
                                 const std::vector<KernelPath>& kernel_paths = {});

// The tables as text: the `top_ops` slowest ops (a slow path's tag after its type: "[ref]",
// "[reorder]"), then every slow-path op with its share, then every stage, measured against
// predicted.
std::string FormatProfile(const Graph& graph, const RunProfile& profile, int top_ops);

// Everything as JSON: {"runs", "run_ms", "op_ms_sum", "stage_ms_sum", "ops": [...],
// "stages": [...]}; each op names its input and output values (a constant is an input too) and
// its "kernel" ("own kernel", "reference", "behind a reorder").
StatusOr<std::string> ProfileJson(const Graph& graph, const RunProfile& profile);

}  // namespace ios
