#include "iosrun/cuda_run.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "iosrun/cuda_benchmark.h"
#include "iosrun/run_io.h"
#include "iosrun/trace_run.h"
#include "runtime/cuda/cuda_session.h"
#include "util/file_util.h"

namespace ios {

StatusOr<int> RunOnCuda(const IosrunOptions& options, PlanSession& opened) {
  CudaSession* session = opened.cuda.get();
  const std::string schedule = session->meta().schedule().kind();
  spdlog::info("running on {} ({}), {} stream(s), {}", opened.device_name, opened.device,
               session->commands().streams.size(),
               session->uses_cuda_graph() ? "one CUDA Graph per inference" : "replayed commands");

  IOS_ASSIGN_OR_RETURN(std::vector<Tensor> inputs, LoadRunInputs(options, session->graph()));
  const std::string input_dir = InputDir(options);
  IOS_RETURN_IF_ERROR(
      session->SetInputs(inputs).WithContext(input_dir.empty() ? "inputs" : input_dir));
  IOS_RETURN_IF_ERROR(session->Run());
  IOS_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, session->GetOutputs());
  IOS_ASSIGN_OR_RETURN(int exit_code, HandleRunOutputs(options, session->graph(), outputs));

  if (options.bench) {
    IOS_ASSIGN_OR_RETURN(CudaBenchResult result,
                         BenchmarkCuda(options, *session, opened.device_name));
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
                               opened.device,
                               [&cuda]() -> Status {
                                 IOS_RETURN_IF_ERROR(cuda.Run());
                                 return cuda.Synchronize();
                               },
                               [&cuda](RunTrace* trace) { return cuda.RunTraced(trace); }}));
  }
  return exit_code;
}

}  // namespace ios
