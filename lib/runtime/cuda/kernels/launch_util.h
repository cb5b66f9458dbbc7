// Launch geometry shared by ios's own elementwise-style CUDA kernels: 256-thread blocks and a
// grid-stride loop, so any grid covers any element count.
#pragma once

#include <cstdint>

namespace ios {

constexpr int kThreadsPerBlock = 256;

// Enough blocks for `count` elements, at most 65535 (the grid-stride loop does the rest).
inline int BlocksFor(int64_t count) {
  const int64_t wanted = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<int>(wanted < 65535 ? (wanted > 0 ? wanted : 1) : 65535);
}

#if defined(__CUDACC__)
__device__ __forceinline__ int64_t GridStart() {
  return blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
}
__device__ __forceinline__ int64_t GridStride() {
  return static_cast<int64_t>(blockDim.x) * gridDim.x;
}
#endif

}  // namespace ios
