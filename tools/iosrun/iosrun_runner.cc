#include "iosrun/iosrun_runner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>
#include <cstdio>
#include <string>
#include <utility>

#include "iosrun/benchmark.h"
#include "iosrun/run_io.h"
#include "iosrun/trace_run.h"
#include "compile/weight_rebuild.h"
#include "plan/plan_info.h"
#include "plan/plan_io.h"
#include "plan/plan_loader.h"
#include "plan/plan_pick.h"
#include "sched/schedule_dot.h"
#include "session/plan_session.h"
#include "util/file_util.h"
#include "util/openmp_spin.h"
#ifdef IOS_HAVE_CUDA
#include "iosrun/cuda_run.h"
#endif

namespace ios {
namespace {

int MaxGroupsPerStage(const plan::Plan& plan) {
  int widest = 1;
  for (const auto& block : plan.schedule().blocks())
    for (const auto& stage : block.stages()) widest = std::max(widest, stage.groups_size());
  return widest;
}

// Plans with concurrent stages run under a short OpenMP spin (util/openmp_spin.h).
void UseShortOpenMpSpinForConcurrentPlans(const IosrunOptions& options, const plan::Plan& plan) {
  if (MaxGroupsPerStage(plan) < 2 || ReexecWithShortOpenMpSpin(options.argv)) return;
  spdlog::warn("could not re-execute with GOMP_SPINCOUNT=2000; concurrent stages may be slower");
}

// --schedule-dot / --schedule-svg of a plan file: its graph and schedule, with the stage
// latencies it records (the plan is opened a second time: the run takes the first).
Status WritePlanSchedulePicture(const IosrunOptions& options, const plan::Plan& plan) {
  IOS_ASSIGN_OR_RETURN(PlanFile file,
                       PlanFile::Open(options.plan_path,
                                      options.no_verify ? PlanVerify::kSkip : PlanVerify::kCheck));
  if (file.weights_stripped()) AttachPlaceholderWeights(file);  // the picture needs no values
  IOS_ASSIGN_OR_RETURN(LoadedPlan loaded, LoadPlanFile(std::move(file), KernelsOfPlanDevice(plan)));
  ScheduleDotOptions dot;
  dot.title =
      options.plan_path + ": " + plan.schedule().kind() + " schedule for " +
      (plan.device().kind() == "sim" ? "sim:" + plan.device().sim_model() : plan.device().kind()) +
      ", batch " + std::to_string(plan.batch());
  dot.stage_predicted_ms = PredictedStageMs(loaded.schedule, plan.stage_latencies());
  dot.block = options.schedule_block;
  return WriteSchedulePicture(loaded.graph, loaded.schedule, dot, options.schedule_dot_path,
                              options.schedule_svg_path);
}

StatusOr<int> RunPlan(const IosrunOptions& options) {
  for (const auto& [path, flag] :
       {std::pair<std::string, std::string>{options.info_json_path, "--info-json"},
        {options.export_json_path, "--export-json"},
        {options.trace_path, "--trace"},
        {options.schedule_dot_path, "--schedule-dot"},
        {options.schedule_svg_path, "--schedule-svg"},
        {options.export_profile_path, "--export-profile"},
        {options.save_outputs_dir, "--save-outputs"}})
  {
    IOS_RETURN_IF_ERROR(CheckOutputIsNotInput(options.plan_path, path, flag));
    if (!options.weights_path.empty())
      IOS_RETURN_IF_ERROR(CheckOutputIsNotInput(options.weights_path, path, flag));
  }
  // The weights' bytes stay in the file until the session's graph takes them (LoadPlanFile).
  IOS_ASSIGN_OR_RETURN(PlanFile file,
                       PlanFile::Open(options.plan_path,
                                      options.no_verify ? PlanVerify::kSkip : PlanVerify::kCheck));
  const plan::Plan& plan = file.plan();
  // A weight-stripped plan's weights, rebuilt from its model (compile/weight_rebuild.h).
  if (!options.weights_path.empty())
    IOS_RETURN_IF_ERROR(AttachModelWeights(file, options.weights_path));
  if (options.info) std::fputs(FormatPlanSummary(plan).c_str(), stdout);
  if (!options.info_json_path.empty()) {
    IOS_ASSIGN_OR_RETURN(std::string json, PlanInfoJson(plan));
    IOS_RETURN_IF_ERROR(WriteFileAtomically(options.info_json_path, json));
  }
  if (!options.schedule_dot_path.empty() || !options.schedule_svg_path.empty())
    IOS_RETURN_IF_ERROR(WritePlanSchedulePicture(options, plan));
  const bool wants_picture =
      !options.schedule_dot_path.empty() || !options.schedule_svg_path.empty();
  const bool only_info = (options.info || !options.info_json_path.empty() || wants_picture) &&
                         !options.bench && options.check_dir.empty() &&
                         options.load_inputs_dir.empty() && options.save_outputs_dir.empty() &&
                         !WantsTrace(options);
  if (only_info) return 0;
  IOS_RETURN_IF_ERROR(PrepareOutputDir(options));

  IOS_ASSIGN_OR_RETURN(
      DeviceChoice choice,
      ParseDeviceChoice(options.device.empty() ? plan.device().kind() : options.device,
                        "--device"));
  if (choice.cuda_ordinal >= 0 && WantsTrace(options))
    return InvalidInput(
        "--trace, --profile and --export-profile run on the CPU only in this version (--device "
        "cpu)");
  // Before anything is loaded: this may start iosrun again.
  if (choice.cuda_ordinal < 0) UseShortOpenMpSpinForConcurrentPlans(options, plan);
  const std::string schedule = plan.schedule().kind();
  PlanSessionOptions open;
  open.device = options.device;
  open.device_flag = "--device";
  open.force = options.force;
  open.threads = options.threads;
  open.max_streams = options.max_streams;
  open.use_cuda_graph = !options.no_cuda_graph;
  open.check_ordering = !options.no_verify;
  open.memory_limit_bytes =
      options.memory_limit_mb > 0 ? options.memory_limit_mb << 20 : options.memory_limit_mb;
  open.memory_hint = "--memory-limit-mb raises the limit, 0 removes it";
  IOS_ASSIGN_OR_RETURN(PlanSession opened,
                       OpenPlanSession(std::move(file), options.plan_path, open));
#ifdef IOS_HAVE_CUDA
  if (opened.cuda) return RunOnCuda(options, opened);
#endif
  CpuSession* session = opened.cpu.get();

  IOS_ASSIGN_OR_RETURN(std::vector<Tensor> inputs, LoadRunInputs(options, session->graph()));
  const std::string input_dir = InputDir(options);
  IOS_RETURN_IF_ERROR(
      session->SetInputs(inputs).WithContext(input_dir.empty() ? "inputs" : input_dir));
  IOS_RETURN_IF_ERROR(session->Run());
  IOS_ASSIGN_OR_RETURN(int exit_code,
                       HandleRunOutputs(options, session->graph(), session->GetOutputs()));
  if (options.bench) {
    IOS_ASSIGN_OR_RETURN(BenchResult result, Benchmark(options, [&] { return session->Run(); }));
    std::fputs(FormatBenchReport(result, session->batch()).c_str(), stdout);
    if (!options.export_json_path.empty()) {
      IOS_ASSIGN_OR_RETURN(std::string json,
                           BenchReportJson(result, session->batch(), "cpu", schedule));
      IOS_RETURN_IF_ERROR(WriteFileAtomically(options.export_json_path, json));
    }
  }
  if (WantsTrace(options)) {
    CpuSession& cpu = *session;
    IOS_RETURN_IF_ERROR(TraceAndProfile(
        options, TracedSession{cpu.graph(), cpu.schedule(), cpu.commands(), cpu.meta(), "cpu",
                               [&cpu] { return cpu.Run(); },
                               [&cpu](RunTrace* trace) { return cpu.Run(trace); },
                               cpu.kernel_paths()}));
  }
  return exit_code;
}

// iosrun FOLDER --device D: the plan made for D, by fingerprint (plan/plan_pick.h).
StatusOr<std::string> PickPlan(const IosrunOptions& options) {
  if (options.device.empty())
    return InvalidInput(options.plan_path +
                        " is a folder of plans: --device (cpu or a CUDA ordinal) says which "
                        "device's plan to pick");
  IOS_ASSIGN_OR_RETURN(PlanPickOptions pick,
                       PlanPickOptionsFor(options.device, "--device", options.force));
  IOS_ASSIGN_OR_RETURN(PlanPick picked, PickPlanInFolder(options.plan_path, pick));
  std::fprintf(stderr, "iosrun: %s\n", picked.note.c_str());
  return picked.path;
}

}  // namespace

StatusOr<int> RunIosrun(const IosrunOptions& options) {
  std::error_code error;
  if (!std::filesystem::is_directory(options.plan_path, error)) return RunPlan(options);
  IosrunOptions picked = options;
  IOS_ASSIGN_OR_RETURN(picked.plan_path, PickPlan(options));
  return RunPlan(picked);
}

}  // namespace ios
