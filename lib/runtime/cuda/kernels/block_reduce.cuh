// A block-wide float reduction (sum or maximum) for the kernels that give one block to one row
// (Softmax, ReduceMean, LayerNormalization). Device code only: include it from .cu files.
#pragma once

#include <cmath>

namespace ios {

constexpr unsigned kFullWarpMask = 0xffffffffu;

__device__ __forceinline__ float CombineForReduce(bool is_max, float a, float b) {
  return is_max ? fmaxf(a, b) : a + b;
}

// Reduces one value per thread over the block (blockDim.x a multiple of 32, at most 1024); every
// thread gets the result. `scratch` holds 32 floats of shared memory.
__device__ __forceinline__ float BlockReduce(float value, bool is_max, float* scratch) {
  for (int offset = 16; offset > 0; offset >>= 1)
    value = CombineForReduce(is_max, value, __shfl_xor_sync(kFullWarpMask, value, offset));
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  const float identity = is_max ? -INFINITY : 0.f;
  value = threadIdx.x < (blockDim.x >> 5) ? scratch[threadIdx.x] : identity;
  if (warp == 0) {
    for (int offset = 16; offset > 0; offset >>= 1)
      value = CombineForReduce(is_max, value, __shfl_xor_sync(kFullWarpMask, value, offset));
    if (lane == 0) scratch[0] = value;
  }
  __syncthreads();
  const float result = scratch[0];
  __syncthreads();  // scratch is reused by the next reduction
  return result;
}

}  // namespace ios
