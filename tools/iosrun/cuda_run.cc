#include "iosrun/cuda_run.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "iosrun/cuda_benchmark.h"
#include "iosrun/run_io.h"
#include "iosrun/trace_run.h"
#include "plan/plan_loader.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/cuda_fingerprint.h"
#include "runtime/cuda/cuda_session.h"
#include "util/file_util.h"

namespace ios {

StatusOr<PlanPickOptions> CudaPlanPickOptions(int ordinal) {
  IOS_ASSIGN_OR_RETURN(CudaDeviceInfo device, QueryCudaDevice(ordinal));
  PlanPickOptions pick;
  pick.here = CudaFingerprint(device);
  pick.runs_here = [actual = pick.here](const plan::DeviceFingerprint& planned) {
    std::vector<std::string> warnings;
    return CheckCudaFingerprint(planned, actual, /*force=*/false, &warnings).ok();
  };
  return pick;
}

StatusOr<int> RunOnCuda(const IosrunOptions& options, PlanFile file, int ordinal) {
  const plan::Plan& plan = file.plan();
  // The device first: without one, nothing else about the plan matters.
  IOS_ASSIGN_OR_RETURN(CudaDeviceInfo device, QueryCudaDevice(ordinal));
  std::vector<std::string> warnings;
  IOS_RETURN_IF_ERROR(
      CheckCudaFingerprint(plan.device(), CudaFingerprint(device), options.force, &warnings)
          .WithContext(options.plan_path));
  for (const std::string& warning : warnings) spdlog::warn("{}", warning);

  const std::string schedule = plan.schedule().kind();
  IOS_ASSIGN_OR_RETURN(LoadedPlan loaded, LoadPlanFile(std::move(file)));
  CudaSessionOptions session_options;
  session_options.device = ordinal;
  session_options.use_cuda_graph = !options.no_cuda_graph;
  session_options.max_streams = options.max_streams;
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<CudaSession> session,
                       CudaSession::Create(std::move(loaded), session_options));
  spdlog::info("running on {} ({}), {} stream(s), {}", device.name,
               "cuda:" + std::to_string(ordinal), session->commands().streams.size(),
               session->uses_cuda_graph() ? "one CUDA Graph per inference" : "replayed commands");

  IOS_ASSIGN_OR_RETURN(std::vector<Tensor> inputs, LoadRunInputs(options, session->graph()));
  const std::string input_dir = InputDir(options);
  IOS_RETURN_IF_ERROR(
      session->SetInputs(inputs).WithContext(input_dir.empty() ? "inputs" : input_dir));
  IOS_RETURN_IF_ERROR(session->Run());
  IOS_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, session->GetOutputs());
  IOS_ASSIGN_OR_RETURN(int exit_code, HandleRunOutputs(options, session->graph(), outputs));

  if (options.bench) {
    IOS_ASSIGN_OR_RETURN(CudaBenchResult result, BenchmarkCuda(options, *session, device.name));
    std::fputs(FormatCudaBenchReport(result, session->batch()).c_str(), stdout);
    if (!options.export_json_path.empty()) {
      IOS_ASSIGN_OR_RETURN(std::string json,
                           CudaBenchReportJson(result, session->batch(), schedule));
      IOS_RETURN_IF_ERROR(WriteFileAtomically(options.export_json_path, json));
    }
  }
  if (WantsTrace(options)) {
    CudaSession& cuda = *session;
    IOS_RETURN_IF_ERROR(TraceAndProfile(
        options, TracedSession{cuda.graph(), cuda.schedule(), cuda.commands(), cuda.meta(),
                               "cuda:" + std::to_string(ordinal),
                               [&cuda]() -> Status {
                                 IOS_RETURN_IF_ERROR(cuda.Run());
                                 return cuda.Synchronize();
                               },
                               [&cuda](RunTrace* trace) { return cuda.RunTraced(trace); }}));
  }
  return exit_code;
}

}  // namespace ios
