#include <cmath>

#include "runtime/cuda/kernels/block_reduce.cuh"
#include "runtime/cuda/kernels/launch_util.h"
#include "runtime/cuda/kernels/reduction_impl.h"

namespace ios {
namespace {

// inner == 1: each row is contiguous; one block per row.
__global__ void SoftmaxRowsKernel(SoftmaxShape shape, bool log_softmax, const float* x, float* y) {
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
      ys[j] = SoftmaxOutput(log_softmax, xs[j], row_max, row_sum);
  }
}

// inner > 1: one thread per group; neighbouring threads read neighbouring elements.
__global__ void SoftmaxStridedKernel(SoftmaxShape shape, bool log_softmax, const float* x,
                                     float* y) {
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
      y[base + j * shape.inner] =
          SoftmaxOutput(log_softmax, x[base + j * shape.inner], group_max, group_sum);
  }
}

struct ReduceCombiner {
  ReduceKind kind;
  __device__ __forceinline__ float operator()(float a, float b) const {
    return ReduceCombine(kind, a, b);
  }
};

// One thread per output.
__global__ void ReduceThreadKernel(ReduceKind kind, ReducePlan plan, const float* x, float* y,
                                   int64_t out_count) {
  for (int64_t o = GridStart(); o < out_count; o += GridStride()) {
    float shift = 0.f;
    if (ReduceNeedsShift(kind)) {
      shift = ReduceInit<float>(ReduceKind::kMax);
      for (int64_t r = 0; r < plan.reduced_count; ++r)
        shift = ReduceCombine(ReduceKind::kMax, shift, x[ReduceInputOffset(plan, o, r)]);
    }
    float acc = ReduceInit<float>(kind);
    for (int64_t r = 0; r < plan.reduced_count; ++r)
      acc = ReduceCombine(kind, acc, ReduceTerm(kind, x[ReduceInputOffset(plan, o, r)], shift));
    y[o] = ReduceFinish(kind, acc, plan.reduced_count, shift);
  }
}

// Long reductions (a global average over a large map): one block per output.
__global__ void ReduceBlockKernel(ReduceKind kind, ReducePlan plan, const float* x, float* y,
                                  int64_t out_count) {
  __shared__ float scratch[32];
  const ReduceCombiner max_of{ReduceKind::kMax};
  const ReduceCombiner combine{kind};
  for (int64_t o = blockIdx.x; o < out_count; o += gridDim.x) {
    float shift = 0.f;
    if (ReduceNeedsShift(kind)) {
      shift = ReduceInit<float>(ReduceKind::kMax);
      for (int64_t r = threadIdx.x; r < plan.reduced_count; r += blockDim.x)
        shift = max_of(shift, x[ReduceInputOffset(plan, o, r)]);
      shift = BlockReduceBy(shift, max_of, ReduceInit<float>(ReduceKind::kMax), scratch);
    }
    float acc = ReduceInit<float>(kind);
    for (int64_t r = threadIdx.x; r < plan.reduced_count; r += blockDim.x)
      acc = combine(acc, ReduceTerm(kind, x[ReduceInputOffset(plan, o, r)], shift));
    acc = BlockReduceBy(acc, combine, ReduceInit<float>(kind), scratch);
    if (threadIdx.x == 0) y[o] = ReduceFinish(kind, acc, plan.reduced_count, shift);
  }
}

// One thread per (outer, inner) group; neighbouring threads read neighbouring elements.
__global__ void ArgReduceKernel(SoftmaxShape shape, bool is_max, bool select_last, const float* x,
                                int64_t* y) {
  const int64_t groups = shape.outer * shape.inner;
  for (int64_t g = GridStart(); g < groups; g += GridStride()) {
    const float* xs = x + SoftmaxGroupBase(shape, g);
    int64_t best = 0;
    float best_value = xs[0];
    for (int64_t j = 1; j < shape.length; ++j) {
      const float v = xs[j * shape.inner];
      if (ArgBetter(is_max, select_last, v, best_value)) {
        best = j;
        best_value = v;
      }
    }
    y[g] = best;
  }
}

int RowBlocks(int64_t rows) { return static_cast<int>(rows < 65535 ? rows : 65535); }

}  // namespace

cudaError_t LaunchSoftmax(const SoftmaxShape& shape, bool log_softmax, const float* x, float* y,
                          cudaStream_t stream) {
  if (shape.outer <= 0 || shape.length <= 0 || shape.inner <= 0) return cudaSuccess;
  if (shape.inner == 1) {
    SoftmaxRowsKernel<<<RowBlocks(shape.outer), kThreadsPerBlock, 0, stream>>>(shape, log_softmax,
                                                                               x, y);
  } else {
    SoftmaxStridedKernel<<<BlocksFor(shape.outer * shape.inner), kThreadsPerBlock, 0, stream>>>(
        shape, log_softmax, x, y);
  }
  return cudaGetLastError();
}

cudaError_t LaunchReduce(ReduceKind kind, const ReducePlan& plan, const float* x, float* y,
                         int64_t out_count, cudaStream_t stream) {
  if (out_count <= 0) return cudaSuccess;
  constexpr int64_t kBlockPerOutputFrom = 512;
  if (plan.reduced_count >= kBlockPerOutputFrom) {
    ReduceBlockKernel<<<RowBlocks(out_count), kThreadsPerBlock, 0, stream>>>(kind, plan, x, y,
                                                                             out_count);
  } else {
    ReduceThreadKernel<<<BlocksFor(out_count), kThreadsPerBlock, 0, stream>>>(kind, plan, x, y,
                                                                              out_count);
  }
  return cudaGetLastError();
}

cudaError_t LaunchArgReduce(const SoftmaxShape& shape, bool is_max, bool select_last,
                            const float* x, int64_t* y, cudaStream_t stream) {
  const int64_t groups = shape.outer * shape.inner;
  if (groups <= 0 || shape.length <= 0) return cudaSuccess;
  ArgReduceKernel<<<BlocksFor(groups), kThreadsPerBlock, 0, stream>>>(shape, is_max, select_last, x,
                                                                      y);
  return cudaGetLastError();
}

}  // namespace ios
