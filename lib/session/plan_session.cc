#include "session/plan_session.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <utility>
#include <vector>

#include "compile/weight_rebuild.h"
#include "plan/plan_info.h"
#include "plan/plan_loader.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "runtime/cuda/kernels/cuda_kernel_table.h"
#include "util/device_name.h"
#include "util/memory_info.h"
#ifdef IOS_HAVE_CUDA
#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/cuda_fingerprint.h"
#endif

namespace ios {
namespace {

// A plan to open: from a file (its weights' bytes stay there until the graph takes them) or a
// message already in memory.
struct PlanSource {
  std::optional<PlanFile> file;
  std::optional<plan::Plan> message;
  const plan::Plan& plan() const { return file ? file->plan() : *message; }
};

// `kernels`: the table of the backend that will run the plan.
StatusOr<LoadedPlan> Load(PlanSource source, const std::string& name,
                          const KernelCapsTable& kernels) {
  if (source.file) return LoadPlanFile(std::move(*source.file), kernels);
  return LoadPlan(std::move(*source.message), name, kernels);
}

void LogWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) spdlog::warn("{}", warning);
}

Status NoCudaBackend() {
  return InvalidInput("no CUDA device: this build of ios has no CUDA backend");
}

StatusOr<PlanSession> Open(PlanSource source, const std::string& name,
                           const PlanSessionOptions& options) {
  if (!options.weights_model_path.empty()) {
    if (!source.file) return InvalidInput("weights_model_path is for a weight-stripped plan file");
    IOS_RETURN_IF_ERROR(AttachModelWeights(*source.file, options.weights_model_path));
  }
  const plan::Plan& meta = source.plan();
  IOS_ASSIGN_OR_RETURN(
      DeviceChoice choice,
      ParseDeviceChoice(options.device.empty() ? meta.device().kind() : options.device,
                        options.device_flag));
  PlanSession session;
  std::vector<std::string> warnings;
  if (choice.cuda_ordinal >= 0) {
#ifdef IOS_HAVE_CUDA
    // The device first: without one, nothing else about the plan matters.
    IOS_ASSIGN_OR_RETURN(CudaDeviceInfo info, QueryCudaDevice(choice.cuda_ordinal));
    IOS_RETURN_IF_ERROR(CheckCudaFingerprint(meta.device(), CudaFingerprint(info), options.force,
                                             &warnings)
                            .WithContext(name));
    LogWarnings(warnings);
    IOS_ASSIGN_OR_RETURN(LoadedPlan loaded, Load(std::move(source), name, CudaKernelCaps()));
    CudaSessionOptions cuda;
    cuda.device = choice.cuda_ordinal;
    cuda.use_cuda_graph = options.use_cuda_graph;
    cuda.max_streams = options.max_streams;
    cuda.check_ordering = options.check_ordering;
    IOS_ASSIGN_OR_RETURN(session.cuda, CudaSession::Create(std::move(loaded), cuda));
    session.device = "cuda:" + std::to_string(choice.cuda_ordinal);
    session.device_name = info.name;
    return session;
#else
    return NoCudaBackend();
#endif
  }
  IOS_RETURN_IF_ERROR(
      CheckCpuFingerprint(meta.device(), options.force, &warnings).WithContext(name));
  LogWarnings(warnings);
  IOS_RETURN_IF_ERROR(CheckFitsInMemory(PlanHostBytes(meta), options.memory_limit_bytes,
                                        "the plan's weights and arena", options.memory_hint)
                          .WithContext(name));
  IOS_ASSIGN_OR_RETURN(LoadedPlan loaded, Load(std::move(source), name, CpuKernelCaps()));
  CpuSessionOptions cpu;
  cpu.threads = options.threads;
  cpu.max_streams = options.max_streams;
  cpu.check_ordering = options.check_ordering;
  cpu.memory_limit_bytes = options.memory_limit_bytes;
  IOS_ASSIGN_OR_RETURN(session.cpu, CpuSession::Create(std::move(loaded), cpu));
  session.device = "cpu";
  session.device_name = CpuFingerprint().cpu_model();
  return session;
}

}  // namespace

StatusOr<DeviceChoice> ParseDeviceChoice(const std::string& device, const std::string& flag) {
  DeviceChoice choice;
  choice.cuda_ordinal = CudaOrdinalOf(device);
  if (choice.cuda_ordinal >= 0 || device == "cpu" || device == "sim") return choice;
  return InvalidInput(flag + " must be 'cpu', 'cuda', 'cuda:N' or a CUDA device ordinal, got '" +
                      device + "'");
}

const Graph& PlanSession::graph() const {
#ifdef IOS_HAVE_CUDA
  if (cuda) return cuda->graph();
#endif
  return cpu->graph();
}

int64_t PlanSession::batch() const {
#ifdef IOS_HAVE_CUDA
  if (cuda) return cuda->batch();
#endif
  return cpu->batch();
}

StatusOr<PlanSession> OpenPlanSession(PlanFile file, const std::string& name,
                                      const PlanSessionOptions& options) {
  PlanSource source;
  source.file = std::move(file);
  return Open(std::move(source), name, options);
}

StatusOr<PlanSession> OpenPlanSession(plan::Plan plan, const std::string& name,
                                      const PlanSessionOptions& options) {
  PlanSource source;
  source.message = std::move(plan);
  return Open(std::move(source), name, options);
}

const KernelCapsTable& KernelsOfPlanDevice(const plan::Plan& plan) {
  return plan.device().kind() == "cpu" ? CpuKernelCaps() : CudaKernelCaps();
}

StatusOr<PlanPickOptions> PlanPickOptionsFor(const std::string& device, const std::string& flag,
                                             bool force) {
  IOS_ASSIGN_OR_RETURN(DeviceChoice choice, ParseDeviceChoice(device, flag));
  PlanPickOptions pick;
  pick.force = force;
  if (choice.cuda_ordinal >= 0) {
#ifdef IOS_HAVE_CUDA
    IOS_ASSIGN_OR_RETURN(CudaDeviceInfo info, QueryCudaDevice(choice.cuda_ordinal));
    pick.here = CudaFingerprint(info);
    pick.runs_here = [actual = pick.here](const plan::DeviceFingerprint& planned) {
      std::vector<std::string> warnings;
      return CheckCudaFingerprint(planned, actual, /*force=*/false, &warnings).ok();
    };
    return pick;
#else
    return NoCudaBackend();
#endif
  }
  pick.here = CpuFingerprint();
  pick.runs_here = [](const plan::DeviceFingerprint& planned) {
    std::vector<std::string> warnings;
    return CheckCpuFingerprint(planned, /*force=*/false, &warnings).ok();
  };
  return pick;
}

}  // namespace ios
