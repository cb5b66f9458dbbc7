#include "runtime/cuda/kernels/block_reduce.cuh"
#include "runtime/cuda/kernels/launch_util.h"
#include "runtime/cuda/kernels/layer_norm_impl.h"

namespace ios {
namespace {

__global__ void LayerNormKernel(LayerNormLaunch launch, const float* x, const float* scale,
                                const float* bias, float* y, float* mean_out,
                                float* inv_std_dev_out) {
  __shared__ float scratch[32];
  const int64_t n = launch.shape.row_size;
  for (int64_t row = blockIdx.x; row < launch.shape.rows; row += gridDim.x) {
    const float* xs = x + row * n;
    float* ys = y + row * n;
    float sum = 0.f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) sum += xs[j];
    const float mean = BlockReduce(sum, false, scratch) / static_cast<float>(n);
    float squares = 0.f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float d = xs[j] - mean;
      squares += d * d;
    }
    const float variance = BlockReduce(squares, false, scratch) / static_cast<float>(n);
    const float inv_std_dev = LayerNormInvStdDev(variance, launch.epsilon);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float b = bias != nullptr ? bias[OperandOffset(launch.bias_map, j)] : 0.f;
      ys[j] =
          LayerNormValue(xs[j], mean, inv_std_dev, scale[OperandOffset(launch.scale_map, j)], b);
    }
    if (threadIdx.x == 0) {
      if (mean_out != nullptr) mean_out[row] = mean;
      if (inv_std_dev_out != nullptr) inv_std_dev_out[row] = inv_std_dev;
    }
  }
}

// Threads per block: the row size rounded up to whole warps, from 32 to 1024. A model with
// fewer rows than the GPU has SMs (a normalisation over C, H and W at batch 1) leaves most of
// the GPU idle; splitting a row over blocks would need a second kernel.
int ThreadsForRow(int64_t row_size) {
  const int64_t warps = (row_size + 31) / 32;
  return static_cast<int>(32 * (warps < 1 ? 1 : (warps > 32 ? 32 : warps)));
}

}  // namespace

cudaError_t LaunchLayerNorm(const LayerNormLaunch& launch, const float* x, const float* scale,
                            const float* bias, float* y, float* mean, float* inv_std_dev,
                            cudaStream_t stream) {
  if (launch.shape.rows <= 0 || launch.shape.row_size <= 0) return cudaSuccess;
  const int blocks = static_cast<int>(launch.shape.rows < 65535 ? launch.shape.rows : 65535);
  LayerNormKernel<<<blocks, ThreadsForRow(launch.shape.row_size), 0, stream>>>(
      launch, x, scale, bias, y, mean, inv_std_dev);
  return cudaGetLastError();
}

}  // namespace ios
