#include "iosrun/iosrun_runner.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include <spdlog/spdlog.h>

#include "iosrun/benchmark.h"
#include "iosrun/tensor_files.h"
#include "plan/plan_info.h"
#include "plan/plan_io.h"
#include "plan/plan_loader.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/cpu/cpu_session.h"
#include "util/file_util.h"
#include "util/openmp_spin.h"
#ifdef IOS_HAVE_CUDA
#include "runtime/cuda/cuda_device.h"
#endif

namespace ios {
namespace {

// Normal(0, 1) inputs from a fixed seed, for runs without --load-inputs or --check.
std::vector<Tensor> RandomInputs(const Graph& graph) {
  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  std::vector<Tensor> inputs;
  for (ValueId id : graph.inputs) {
    Tensor t(graph.values[id].dtype, graph.values[id].dims);
    if (t.dtype() == DType::kFloat32)
      for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = normal(rng);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

// Refuses what cannot run here; `device` is the --device value or the plan's kind.
Status CheckDevice(const IosrunOptions& options, const plan::Plan& plan) {
  std::string device = options.device.empty() ? plan.device().kind() : options.device;
  if (device == "cuda" || (!device.empty() && std::all_of(device.begin(), device.end(), ::isdigit))) {
    int ordinal = device == "cuda" ? 0 : std::stoi(device);
#ifdef IOS_HAVE_CUDA
    IOS_ASSIGN_OR_RETURN(CudaDeviceInfo info, QueryCudaDevice(ordinal));
    return Unsupported("CUDA device " + std::to_string(ordinal) + " (" + info.name +
                       ") found, but this build of iosrun cannot run plans on CUDA devices yet");
#else
    (void)ordinal;
    return InvalidInput("no CUDA device: this build of ios has no CUDA backend");
#endif
  }
  if (device != "cpu" && device != "sim") {
    return InvalidInput("--device must be 'cpu' or a CUDA device ordinal, got '" + device + "'");
  }
  std::vector<std::string> warnings;
  IOS_RETURN_IF_ERROR(CheckCpuFingerprint(plan.device(), options.force, &warnings)
                          .WithContext(options.plan_path));
  for (const std::string& warning : warnings) spdlog::warn("{}", warning);
  return Status::Ok();
}

std::vector<std::string> OutputNames(const Graph& graph) {
  std::vector<std::string> names;
  for (ValueId id : graph.outputs) names.push_back(graph.values[id].name);
  return names;
}

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

}  // namespace

StatusOr<int> RunIosrun(const IosrunOptions& options) {
  IOS_ASSIGN_OR_RETURN(plan::Plan plan, ReadPlanFile(options.plan_path));
  if (options.info) std::fputs(FormatPlanSummary(plan).c_str(), stdout);
  if (!options.info_json_path.empty()) {
    IOS_ASSIGN_OR_RETURN(std::string json, PlanInfoJson(plan));
    IOS_RETURN_IF_ERROR(WriteFileAtomically(options.info_json_path, json));
  }
  const bool only_info = (options.info || !options.info_json_path.empty()) && !options.bench &&
                         options.check_dir.empty() && options.load_inputs_dir.empty() &&
                         options.save_outputs_dir.empty();
  if (only_info) return 0;

  IOS_RETURN_IF_ERROR(CheckDevice(options, plan));
  UseShortOpenMpSpinForConcurrentPlans(options, plan);
  const std::string schedule = plan.schedule().kind();
  IOS_ASSIGN_OR_RETURN(LoadedPlan loaded, LoadPlan(std::move(plan), options.plan_path));
  CpuSessionOptions session_options;
  session_options.threads = options.threads;
  session_options.max_streams = options.max_streams;
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<CpuSession> session,
                       CpuSession::Create(std::move(loaded), session_options));

  std::vector<Tensor> inputs;
  const std::string& input_dir = !options.check_dir.empty() ? options.check_dir : options.load_inputs_dir;
  if (!input_dir.empty()) {
    IOS_ASSIGN_OR_RETURN(inputs, ReadNumberedTensors(input_dir, "input"));
  } else {
    inputs = RandomInputs(session->graph());
  }
  IOS_RETURN_IF_ERROR(session->SetInputs(inputs).WithContext(input_dir.empty() ? "inputs" : input_dir));
  IOS_RETURN_IF_ERROR(session->Run());
  std::vector<Tensor> outputs = session->GetOutputs();

  if (!options.save_outputs_dir.empty()) {
    IOS_RETURN_IF_ERROR(WriteNumberedTensors(options.save_outputs_dir, "output", outputs,
                                             OutputNames(session->graph())));
  }
  int exit_code = 0;
  if (!options.check_dir.empty()) {
    IOS_ASSIGN_OR_RETURN(std::vector<Tensor> expected,
                         ReadNumberedTensors(options.check_dir, "output"));
    bool ok = false;
    std::fputs(CompareOutputs(outputs, expected, options.atol, options.rtol, &ok).c_str(), stdout);
    std::printf("check: %s\n", ok ? "PASSED" : "FAILED");
    if (!ok) exit_code = 1;
  }
  if (options.bench) {
    IOS_ASSIGN_OR_RETURN(BenchResult result, Benchmark(options, [&] { return session->Run(); }));
    std::fputs(FormatBenchReport(result, session->batch()).c_str(), stdout);
    if (!options.export_json_path.empty()) {
      IOS_ASSIGN_OR_RETURN(std::string json,
                           BenchReportJson(result, session->batch(), "cpu", schedule));
      IOS_RETURN_IF_ERROR(WriteFileAtomically(options.export_json_path, json));
    }
  }
  if (options.check_dir.empty() && !options.bench) {
    for (size_t i = 0; i < outputs.size(); ++i)
      std::printf("output %zu '%s': %s%s\n", i, session->graph().values[session->graph().outputs[i]].name.c_str(),
                  DTypeName(outputs[i].dtype()).c_str(), DimsToString(outputs[i].dims()).c_str());
  }
  return exit_code;
}

}  // namespace ios
