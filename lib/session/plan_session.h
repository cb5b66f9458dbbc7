// Opening a plan on a device, in one place for the public API (ios::Session) and iosrun: the
// device named by the user, the plan's fingerprint checked against it, the plan's memory checked
// against the machine's, a weight-stripped plan's weights rebuilt from its model, and the
// backend's session created (CpuSession or CudaSession).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "iosplan.pb.h"
#include "plan/plan_io.h"
#include "plan/plan_pick.h"
#include "runtime/cpu/cpu_session.h"
#include "util/status.h"
#ifdef IOS_HAVE_CUDA
#include "runtime/cuda/cuda_session.h"
#endif

namespace ios {

// A device as the user names it: "cpu" (or "sim", whose plans run on the CPU), "cuda" (device
// 0), "cuda:N" or "N". Anything else is InvalidInput naming `flag` ("--device", "device").
struct DeviceChoice {
  int cuda_ordinal = -1;  // >= 0: a CUDA device; -1: the CPU
};
StatusOr<DeviceChoice> ParseDeviceChoice(const std::string& device, const std::string& flag);

struct PlanSessionOptions {
  std::string device;        // as ParseDeviceChoice reads it; "" = the plan's own device kind
  std::string device_flag = "device";  // how errors name the option
  bool force = false;        // run a plan made for another device
  int threads = 0;           // CPU: cores to use (0 = all)
  int max_streams = 0;       // 0 = one per group of the widest stage (capped by the backend)
  bool use_cuda_graph = true;
  int64_t memory_limit_bytes = -1;  // CPU: -1 = the available memory, 0 = no check
  std::string memory_hint = "free memory, or run a smaller batch";  // how to raise the limit
  // The ONNX model a weight-stripped plan was compiled from (compile/weight_rebuild.h).
  std::string weights_model_path;
  // Check that the plan's command list orders every two ops that touch the same bytes
  // (runtime/plan_ordering.h): on with the plan's digests (iosrun --no-verify, the API's
  // SessionOptions::verify turn both off).
  bool check_ordering = true;
};

// The session on the device the options chose: exactly one of `cpu` and `cuda` is set.
struct PlanSession {
  std::string device;       // "cpu" or "cuda:N"
  std::string device_name;  // the GPU's name, or the CPU's model
  std::unique_ptr<CpuSession> cpu;
#ifdef IOS_HAVE_CUDA
  std::unique_ptr<CudaSession> cuda;
#endif
  const Graph& graph() const;
  int64_t batch() const;
};

// `name` is how errors name the plan (its path, "the plan's bytes"). Fingerprint warnings are
// logged. A CUDA device in a build without the CUDA backend is InvalidInput.
StatusOr<PlanSession> OpenPlanSession(PlanFile file, const std::string& name,
                                      const PlanSessionOptions& options);
// A plan already in memory (a compiled ios::Plan): it carries its weights.
StatusOr<PlanSession> OpenPlanSession(plan::Plan plan, const std::string& name,
                                      const PlanSessionOptions& options);

// The kernel table a plan was made for (ops/kernel_caps.h): the CPU's for a CPU plan, the CUDA
// backend's for a GPU or simulated one. For loading a plan that no session runs (a picture).
const KernelCapsTable& KernelsOfPlanDevice(const plan::Plan& plan);

// What iosrun FOLDER needs to pick the plan for `device` (plan/plan_pick.h): the device's
// fingerprint and the backend's check.
StatusOr<PlanPickOptions> PlanPickOptionsFor(const std::string& device, const std::string& flag,
                                             bool force);

}  // namespace ios
