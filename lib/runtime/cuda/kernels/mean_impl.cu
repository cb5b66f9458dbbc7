#include "kernels/math/elementwise_math.h"
#include "runtime/cuda/kernels/launch_util.h"
#include "runtime/cuda/kernels/mean_impl.h"

namespace ios {
namespace {

__global__ void MeanFromSumKernel(float* y, int32_t inputs, int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride()) y[i] = MeanFromSum(y[i], inputs);
}

}  // namespace

cudaError_t LaunchMeanFromSum(float* y, int32_t inputs, int64_t count, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  MeanFromSumKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(y, inputs, count);
  return cudaGetLastError();
}

}  // namespace ios
