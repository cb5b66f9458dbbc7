// The CUDA device's fingerprint for plans, and the check iosrun makes before running a plan on a
// GPU. Pure host logic: the device is described by a CudaDeviceInfo (QueryCudaDevice).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iosplan.pb.h"
#include "runtime/cuda/cuda_device.h"
#include "util/status.h"

namespace ios {

plan::DeviceFingerprint CudaFingerprint(const CudaDeviceInfo& device);

// Whether a plan made for `planned` may run on the GPU described by `actual`:
//   - a CUDA plan for another compute capability is refused (unless `force`): its measured conv
//     algorithms and stage timings belong to another architecture;
//   - a plan from the analytic model (sim) runs, with a warning: nothing in it was measured,
//     the kernels choose their conv algorithms with cuDNN's heuristics;
//   - a CPU plan (or an unknown kind) is refused (unless `force`): its stream counts and stage
//     timings were measured on CPU cores;
//   - another GPU model, SM count, driver, runtime or cuDNN version only gives warnings.
Status CheckCudaFingerprint(const plan::DeviceFingerprint& planned,
                            const plan::DeviceFingerprint& actual, bool force,
                            std::vector<std::string>* warnings);

// "13.0" from 13000 (cudaDriverGetVersion / cudaRuntimeGetVersion); "9.1.0" from 90100
// (cudnnGetVersion; cuDNN 8 numbered 8902 as 8.9.2).
std::string FormatCudaVersion(int version);
std::string FormatCudnnVersion(int64_t version);

}  // namespace ios
