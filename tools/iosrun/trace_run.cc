#include "iosrun/trace_run.h"

#include <cstdio>
#include <vector>

#include "plan/plan_info.h"
#include "runtime/chrome_trace.h"
#include "runtime/run_profile.h"
#include "util/file_util.h"

namespace ios {
bool WantsTrace(const IosrunOptions& options) {
  return !options.trace_path.empty() || options.profile || !options.export_profile_path.empty();
}

Status TraceAndProfile(const IosrunOptions& options, const TracedSession& session) {
  constexpr int kWarmupRuns = 2;
  for (int i = 0; i < kWarmupRuns; ++i) IOS_RETURN_IF_ERROR(session.run());
  std::vector<RunTrace> runs(static_cast<size_t>(options.trace_runs));
  for (RunTrace& run : runs) IOS_RETURN_IF_ERROR(session.run_traced(&run));
  const std::vector<double> predicted =
      PredictedStageMs(session.schedule, session.meta.stage_latencies());
  if (!options.trace_path.empty()) {
    ChromeTraceOptions trace_options;
    trace_options.process_name = "iosrun " + options.plan_path + " (" + session.device + ", " +
                                 session.meta.schedule().kind() + " schedule)";
    trace_options.stage_predicted_ms = predicted;
    IOS_ASSIGN_OR_RETURN(std::string json, ChromeTraceJson(session.graph, session.schedule,
                                                           session.commands, runs, trace_options));
    IOS_RETURN_IF_ERROR(WriteFileAtomically(options.trace_path, json));
    std::printf(
        "trace: %zu run(s) on %zu stream(s) written to %s (open it in "
        "https://ui.perfetto.dev or chrome://tracing)\n",
        runs.size(), session.commands.streams.size(), options.trace_path.c_str());
  }
  if (options.profile || !options.export_profile_path.empty()) {
    IOS_ASSIGN_OR_RETURN(RunProfile profile,
                         ProfileRuns(session.graph, session.schedule, runs, predicted,
                                     session.kernel_paths));
    if (options.profile) std::fputs(FormatProfile(session.graph, profile, 20).c_str(), stdout);
    if (!options.export_profile_path.empty()) {
      IOS_ASSIGN_OR_RETURN(std::string json, ProfileJson(session.graph, profile));
      IOS_RETURN_IF_ERROR(WriteFileAtomically(options.export_profile_path, json));
    }
  }
  return Status::Ok();
}

}  // namespace ios
