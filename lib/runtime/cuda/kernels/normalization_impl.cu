#include "runtime/cuda/kernels/launch_util.h"
#include "runtime/cuda/kernels/normalization_impl.h"

namespace ios {
namespace {

__global__ void BatchNormKernel(const float* x, const float* scale, const float* bias,
                                const float* mean, const float* var, float epsilon, int64_t inner,
                                int64_t channels, float* y, int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride()) {
    const int64_t c = ChannelOf(i, inner, channels);
    y[i] = BatchNormValue(x[i], scale[c], bias[c], mean[c], var[c], epsilon);
  }
}

}  // namespace

cudaError_t LaunchBatchNorm(const float* x, const float* scale, const float* bias,
                            const float* mean, const float* var, float epsilon, int64_t inner,
                            int64_t channels, float* y, int64_t count, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  BatchNormKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
      x, scale, bias, mean, var, epsilon, inner, channels, y, count);
  return cudaGetLastError();
}

}  // namespace ios
