// A device as plans, timing caches and stage cost sources identify it: a plain struct, which
// the plan (plan/fingerprint_proto.h) and the timing cache (cost/cached_stage_cost.cc) turn
// into their messages.
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

}  // namespace ios
