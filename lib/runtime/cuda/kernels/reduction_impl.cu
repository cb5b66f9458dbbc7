#include <cmath>

#include "runtime/cuda/kernels/block_reduce.cuh"
#include "runtime/cuda/kernels/launch_util.h"
#include "runtime/cuda/kernels/reduction_impl.h"

namespace ios {
namespace {

// inner == 1: each row is contiguous; one block per row.
__global__ void SoftmaxRowsKernel(SoftmaxShape shape, const float* x, float* y) {
  __shared__ float scratch[32];
  for (int64_t row = blockIdx.x; row < shape.outer; row += gridDim.x) {
    const float* xs = x + row * shape.length;
    float* ys = y + row * shape.length;
    float local_max = -INFINITY;
    for (int64_t j = threadIdx.x; j < shape.length; j += blockDim.x)
      local_max = fmaxf(local_max, xs[j]);
    const float row_max = BlockReduce(local_max, true, scratch);
    float local_sum = 0.f;
    for (int64_t j = threadIdx.x; j < shape.length; j += blockDim.x)
      local_sum += expf(xs[j] - row_max);
    const float row_sum = BlockReduce(local_sum, false, scratch);
    for (int64_t j = threadIdx.x; j < shape.length; j += blockDim.x)
      ys[j] = SoftmaxValue(xs[j], row_max, row_sum);
  }
}

// inner > 1: one thread per group; neighbouring threads read neighbouring elements.
__global__ void SoftmaxStridedKernel(SoftmaxShape shape, const float* x, float* y) {
  const int64_t groups = shape.outer * shape.inner;
  for (int64_t g = GridStart(); g < groups; g += GridStride()) {
    const int64_t base = SoftmaxGroupBase(shape, g);
    float group_max = -INFINITY;
    for (int64_t j = 0; j < shape.length; ++j)
      group_max = fmaxf(group_max, x[base + j * shape.inner]);
    float group_sum = 0.f;
    for (int64_t j = 0; j < shape.length; ++j)
      group_sum += expf(x[base + j * shape.inner] - group_max);
    for (int64_t j = 0; j < shape.length; ++j)
      y[base + j * shape.inner] = SoftmaxValue(x[base + j * shape.inner], group_max, group_sum);
  }
}

__global__ void ReduceMeanThreadKernel(ReducePlan plan, const float* x, float* y,
                                       int64_t out_count) {
  for (int64_t o = GridStart(); o < out_count; o += GridStride()) {
    float sum = 0.f;
    for (int64_t r = 0; r < plan.reduced_count; ++r) sum += x[ReduceInputOffset(plan, o, r)];
    y[o] = MeanOf(sum, plan.reduced_count);
  }
}

// Long reductions (a global average over a large map): one block per output.
__global__ void ReduceMeanBlockKernel(ReducePlan plan, const float* x, float* y,
                                      int64_t out_count) {
  __shared__ float scratch[32];
  for (int64_t o = blockIdx.x; o < out_count; o += gridDim.x) {
    float sum = 0.f;
    for (int64_t r = threadIdx.x; r < plan.reduced_count; r += blockDim.x)
      sum += x[ReduceInputOffset(plan, o, r)];
    sum = BlockReduce(sum, false, scratch);
    if (threadIdx.x == 0) y[o] = MeanOf(sum, plan.reduced_count);
  }
}

int RowBlocks(int64_t rows) { return static_cast<int>(rows < 65535 ? rows : 65535); }

}  // namespace

cudaError_t LaunchSoftmax(const SoftmaxShape& shape, const float* x, float* y,
                          cudaStream_t stream) {
  if (shape.outer <= 0 || shape.length <= 0 || shape.inner <= 0) return cudaSuccess;
  if (shape.inner == 1) {
    SoftmaxRowsKernel<<<RowBlocks(shape.outer), kThreadsPerBlock, 0, stream>>>(shape, x, y);
  } else {
    SoftmaxStridedKernel<<<BlocksFor(shape.outer * shape.inner), kThreadsPerBlock, 0, stream>>>(
        shape, x, y);
  }
  return cudaGetLastError();
}

cudaError_t LaunchReduceMean(const ReducePlan& plan, const float* x, float* y, int64_t out_count,
                             cudaStream_t stream) {
  if (out_count <= 0) return cudaSuccess;
  constexpr int64_t kBlockPerOutputFrom = 512;
  if (plan.reduced_count >= kBlockPerOutputFrom) {
    ReduceMeanBlockKernel<<<RowBlocks(out_count), kThreadsPerBlock, 0, stream>>>(plan, x, y,
                                                                                 out_count);
  } else {
    ReduceMeanThreadKernel<<<BlocksFor(out_count), kThreadsPerBlock, 0, stream>>>(plan, x, y,
                                                                                  out_count);
  }
  return cudaGetLastError();
}

}  // namespace ios
