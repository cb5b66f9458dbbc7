// Finding and describing a CUDA device. Built only with the CUDA backend.
#pragma once

#include <string>

#include "util/status.h"

namespace ios {

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  int driver_version = 0;   // as cudaDriverGetVersion reports it, e.g. 13000
  int runtime_version = 0;  // as cudaRuntimeGetVersion reports it
  size_t cudnn_version = 0;
};

// Describes device `ordinal`, or an InvalidInput status starting "no CUDA device" with the CUDA
// error text when there is none (the case on every machine of this project).
StatusOr<CudaDeviceInfo> QueryCudaDevice(int ordinal);

}  // namespace ios
