#include "runtime/cuda/cuda_fingerprint.h"

namespace ios {
namespace {

std::string ComputeCapability(const plan::DeviceFingerprint& device) {
  return "sm_" + std::to_string(device.compute_major()) + std::to_string(device.compute_minor());
}

std::string Describe(const plan::DeviceFingerprint& device) {
  return "'" + device.gpu_name() + "' (" + ComputeCapability(device) + ")";
}

// A plan that was not made on a GPU: what it was made for, and why it does not fit a GPU.
Status CheckNonCudaPlan(const plan::DeviceFingerprint& planned, bool force,
                        std::vector<std::string>* warnings) {
  if (planned.kind() == "sim") {
    warnings->push_back("the plan was scheduled with the analytic model " + planned.sim_model() +
                        ", not measured on this GPU; the kernels choose their conv algorithms "
                        "with cuDNN's heuristics");
    return Status::Ok();
  }
  const std::string what = planned.kind() == "cpu" ? "the CPU (" + planned.cpu_model() + ")"
                                                   : "device kind '" + planned.kind() + "'";
  if (!force) {
    return InvalidInput("the plan was made for " + what +
                        ": its stream counts and stage timings were measured there, not on a "
                        "GPU; rebuild it with `iosc MODEL --device N` or pass --force");
  }
  warnings->push_back("running a plan made for " + what + " on a GPU (--force)");
  return Status::Ok();
}

}  // namespace

plan::DeviceFingerprint CudaFingerprint(const CudaDeviceInfo& device) {
  plan::DeviceFingerprint fingerprint;
  fingerprint.set_kind("cuda");
  fingerprint.set_gpu_name(device.name);
  fingerprint.set_compute_major(device.compute_major);
  fingerprint.set_compute_minor(device.compute_minor);
  fingerprint.set_multiprocessors(device.multiprocessors);
  fingerprint.set_driver_version(device.driver_version);
  fingerprint.set_runtime_version(device.runtime_version);
  fingerprint.set_cudnn_version(static_cast<int64_t>(device.cudnn_version));
  return fingerprint;
}

std::string FormatCudaVersion(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string FormatCudnnVersion(int64_t version) {
  // cuDNN 9 numbers versions major * 10000 + minor * 100 + patch; cuDNN 8 used major * 1000.
  const int64_t major_unit = version >= 90000 ? 10000 : 1000;
  return std::to_string(version / major_unit) + "." + std::to_string(version % major_unit / 100) +
         "." + std::to_string(version % 100);
}

Status CheckCudaFingerprint(const plan::DeviceFingerprint& planned,
                            const plan::DeviceFingerprint& actual, bool force,
                            std::vector<std::string>* warnings) {
  if (planned.kind() != "cuda") return CheckNonCudaPlan(planned, force, warnings);
  if (planned.compute_major() != actual.compute_major() ||
      planned.compute_minor() != actual.compute_minor()) {
    if (!force) {
      return InvalidInput("the plan was made on " + Describe(planned) + ", this GPU is " +
                          Describe(actual) +
                          ": its conv algorithms and stage timings belong to another "
                          "architecture; rebuild it here with `iosc MODEL --device N` or pass "
                          "--force");
    }
    warnings->push_back("running a plan made on " + Describe(planned) + " on " + Describe(actual) +
                        " (--force)");
  } else if (planned.gpu_name() != actual.gpu_name()) {
    warnings->push_back("the plan was made on '" + planned.gpu_name() + "', running on '" +
                        actual.gpu_name() + "': stage timings may not hold");
  }
  if (planned.multiprocessors() != actual.multiprocessors())
    warnings->push_back("the plan was made for " + std::to_string(planned.multiprocessors()) +
                        " SMs, this GPU has " + std::to_string(actual.multiprocessors()));
  if (planned.driver_version() != actual.driver_version())
    warnings->push_back("the plan was made with CUDA driver " +
                        FormatCudaVersion(planned.driver_version()) + ", this machine has " +
                        FormatCudaVersion(actual.driver_version()));
  if (planned.runtime_version() != actual.runtime_version())
    warnings->push_back("the plan was made with CUDA runtime " +
                        FormatCudaVersion(planned.runtime_version()) + ", iosrun uses " +
                        FormatCudaVersion(actual.runtime_version()));
  if (planned.cudnn_version() != actual.cudnn_version())
    warnings->push_back("the plan was made with cuDNN " +
                        FormatCudnnVersion(planned.cudnn_version()) + ", iosrun uses " +
                        FormatCudnnVersion(actual.cudnn_version()) +
                        ": the recorded conv algorithms may perform differently");
  return Status::Ok();
}

}  // namespace ios
