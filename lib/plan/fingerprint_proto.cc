#include "plan/fingerprint_proto.h"

namespace ios {

plan::DeviceFingerprint ToPlanFingerprint(const DeviceFingerprint& device) {
  plan::DeviceFingerprint out;
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

DeviceFingerprint FromPlanFingerprint(const plan::DeviceFingerprint& device) {
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
