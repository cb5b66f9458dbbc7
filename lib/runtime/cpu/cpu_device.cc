#include "runtime/cpu/cpu_device.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <fstream>
#include <thread>

namespace ios {
namespace {

std::string CpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

// The widest vector ISA the CPU supports, in oneDNN's naming; plans record it because the
// kernels they were profiled with depend on it.
std::string CpuIsa() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512_core";
  if (__builtin_cpu_supports("avx2")) return "avx2";
  if (__builtin_cpu_supports("avx")) return "avx";
  if (__builtin_cpu_supports("sse4.1")) return "sse41";
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "generic";
#endif
}

int IsaRank(const std::string& isa) {
  const char* order[] = {"x86_64", "sse41", "avx", "avx2", "avx512_core"};
  for (int i = 0; i < 5; ++i)
    if (isa == order[i]) return i;
  return -1;
}

}  // namespace

plan::DeviceFingerprint CpuFingerprint() {
  plan::DeviceFingerprint fp;
  fp.set_kind("cpu");
  fp.set_cpu_model(CpuModelName());
  fp.set_cpu_cores(static_cast<int32_t>(std::thread::hardware_concurrency()));
  fp.set_cpu_isa(CpuIsa());
  return fp;
}

Status CheckCpuFingerprint(const plan::DeviceFingerprint& planned, bool force,
                           std::vector<std::string>* warnings) {
  if (planned.kind() != "cpu") {
    std::string what = planned.kind() == "cuda" ? "a CUDA GPU (" + planned.gpu_name() + ")"
                       : planned.kind() == "sim" ? "the analytic model " + planned.sim_model()
                                                 : "device kind '" + planned.kind() + "'";
    if (!force) {
      return InvalidInput("the plan was made for " + what + ", not this CPU; rebuild it with "
                          "`iosc MODEL --device cpu` or pass --force");
    }
    warnings->push_back("running a plan made for " + what + " on the CPU (--force)");
    return Status::Ok();
  }
  plan::DeviceFingerprint here = CpuFingerprint();
  int planned_rank = IsaRank(planned.cpu_isa());
  int here_rank = IsaRank(here.cpu_isa());
  if (planned_rank > here_rank && here_rank >= 0) {
    if (!force) {
      return InvalidInput("the plan was made on a CPU with " + planned.cpu_isa() +
                          ", which this CPU (" + here.cpu_isa() + ") lacks; rebuild the plan "
                          "here or pass --force");
    }
    warnings->push_back("plan made for " + planned.cpu_isa() + ", running on " + here.cpu_isa());
  }
  if (planned.cpu_model() != here.cpu_model())
    warnings->push_back("plan made on '" + planned.cpu_model() + "', running on '" +
                        here.cpu_model() + "': stage timings may not hold");
  if (planned.cpu_cores() != here.cpu_cores())
    warnings->push_back("plan made for " + std::to_string(planned.cpu_cores()) +
                        " cores, this machine has " + std::to_string(here.cpu_cores()));
  return Status::Ok();
}

std::string CpuKernelVersions() {
  const dnnl::version_t* version = dnnl::version();
  return "oneDNN " + std::to_string(version->major) + "." + std::to_string(version->minor) + "." +
         std::to_string(version->patch);
}

}  // namespace ios
