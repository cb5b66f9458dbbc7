// A block-wide float reduction for the kernels that give one block to one row (Softmax, the
// reductions, LayerNormalization): a sum or maximum (BlockReduce), or any associative
// combination with its identity (BlockReduceBy). Device code only: include it from .cu files.
#pragma once

#include <cmath>

namespace ios {

constexpr unsigned kFullWarpMask = 0xffffffffu;

// Reduces one value per thread over the block (blockDim.x a multiple of 32, at most 1024) with
// `combine(a, b)`, whose identity is `identity`; every thread gets the result. `scratch` holds
// 32 floats of shared memory.
template <typename Combine>
__device__ __forceinline__ float BlockReduceBy(float value, Combine combine, float identity,
                                               float* scratch) {
  for (int offset = 16; offset > 0; offset >>= 1)
    value = combine(value, __shfl_xor_sync(kFullWarpMask, value, offset));
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  value = threadIdx.x < (blockDim.x >> 5) ? scratch[threadIdx.x] : identity;
  if (warp == 0) {
    for (int offset = 16; offset > 0; offset >>= 1)
      value = combine(value, __shfl_xor_sync(kFullWarpMask, value, offset));
    if (lane == 0) scratch[0] = value;
  }
  __syncthreads();
  const float result = scratch[0];
  __syncthreads();  // scratch is reused by the next reduction
  return result;
}

struct SumOrMax {
  bool is_max;
  __device__ __forceinline__ float operator()(float a, float b) const {
    return is_max ? fmaxf(a, b) : a + b;
  }
};

// The sum, or with `is_max` the maximum (fmaxf: NaN is dropped), over the block.
__device__ __forceinline__ float BlockReduce(float value, bool is_max, float* scratch) {
  return BlockReduceBy(value, SumOrMax{is_max}, is_max ? -INFINITY : 0.f, scratch);
}

}  // namespace ios
