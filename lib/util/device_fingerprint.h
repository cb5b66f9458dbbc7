// A device as plans, timing caches and stage cost sources identify it: a plain struct, which
// the plan (plan/fingerprint_proto.h) and the timing cache (cost/cached_stage_cost.cc) turn
// into their messages. Both messages have the same fields (and numbers), so one pair of
// templates converts either.
#pragma once

#include <cstdint>
#include <string>

namespace ios {

struct DeviceFingerprint {
  std::string kind;  // "cpu", "cuda" or "sim"
  // CPU
  std::string cpu_model;
  int32_t cpu_cores = 0;
  std::string cpu_isa;  // e.g. "avx2", "avx512_core"
  // CUDA
  std::string gpu_name;
  int32_t compute_major = 0;
  int32_t compute_minor = 0;
  int32_t multiprocessors = 0;
  int32_t driver_version = 0;
  int32_t runtime_version = 0;
  int64_t cudnn_version = 0;
  // Analytic model (sim:NAME)
  std::string sim_model;
};

// `Message` is a generated DeviceFingerprint message (the plan's or the timing cache's).
template <typename Message>
Message FingerprintToMessage(const DeviceFingerprint& device) {
  Message out;
  out.set_kind(device.kind);
  out.set_cpu_model(device.cpu_model);
  out.set_cpu_cores(device.cpu_cores);
  out.set_cpu_isa(device.cpu_isa);
  out.set_gpu_name(device.gpu_name);
  out.set_compute_major(device.compute_major);
  out.set_compute_minor(device.compute_minor);
  out.set_multiprocessors(device.multiprocessors);
  out.set_driver_version(device.driver_version);
  out.set_runtime_version(device.runtime_version);
  out.set_cudnn_version(device.cudnn_version);
  out.set_sim_model(device.sim_model);
  return out;
}

template <typename Message>
DeviceFingerprint FingerprintFromMessage(const Message& device) {
  DeviceFingerprint out;
  out.kind = device.kind();
  out.cpu_model = device.cpu_model();
  out.cpu_cores = device.cpu_cores();
  out.cpu_isa = device.cpu_isa();
  out.gpu_name = device.gpu_name();
  out.compute_major = device.compute_major();
  out.compute_minor = device.compute_minor();
  out.multiprocessors = device.multiprocessors();
  out.driver_version = device.driver_version();
  out.runtime_version = device.runtime_version();
  out.cudnn_version = device.cudnn_version();
  out.sim_model = device.sim_model();
  return out;
}

}  // namespace ios
