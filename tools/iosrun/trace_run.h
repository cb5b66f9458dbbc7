// iosrun --trace, --profile and --export-profile on either backend: warm-up runs, then traced
// runs of a session, written as a Chrome trace and printed or written as a profile.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "iosplan.pb.h"
#include "iosrun/iosrun_options.h"
#include "ir/graph.h"
#include "runtime/command_list.h"
#include "runtime/kernel_path.h"
#include "runtime/run_trace.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

// True when any of the three options asks for traced runs.
bool WantsTrace(const IosrunOptions& options);

// What a session gives the traced runs: its plan's pieces, and how to run it once with or
// without a trace (a run returns once the inference has finished).
struct TracedSession {
  const Graph& graph;
  const Schedule& schedule;
  const CommandList& commands;
  const plan::Plan& meta;
  std::string device;  // "cpu", "cuda:0", ... for the trace's title
  std::function<Status()> run;
  std::function<Status(RunTrace*)> run_traced;
  // Per NodeId, how the backend runs it (runtime/kernel_path.h); empty: own kernels.
  std::vector<KernelPath> kernel_paths = {};
};

Status TraceAndProfile(const IosrunOptions& options, const TracedSession& session);

}  // namespace ios
