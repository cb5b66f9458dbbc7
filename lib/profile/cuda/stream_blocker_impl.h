// Launchers for the stream blocker's kernels (device code in stream_blocker_impl.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ios {

// One thread that spins until the host sets *release to non-zero, or until `timeout_ns` of the
// GPU's global timer have passed; then it sets *timed_out to 1 and returns. Both pointers are
// host memory mapped into the device (cudaHostAllocMapped).
cudaError_t LaunchBlockUntilReleased(const volatile int32_t* release, int32_t* timed_out,
                                     uint64_t timeout_ns, cudaStream_t stream);

// A kernel that does nothing: the work of the profiler's launch-overhead baseline.
cudaError_t LaunchEmptyKernel(cudaStream_t stream);

}  // namespace ios
