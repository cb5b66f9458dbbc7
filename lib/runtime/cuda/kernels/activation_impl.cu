#include "runtime/cuda/kernels/activation_impl.h"
#include "runtime/cuda/kernels/launch_util.h"

namespace ios {
namespace {

__global__ void ActivationKernel(Activation act, const float* x, float* y, int64_t count) {
  // Grid-stride loop: any grid size covers any count.
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    y[i] = ApplyActivation(act, x[i]);
  }
}

__global__ void BatchSliceActivationKernel(Activation act, float* y, int64_t count,
                                           int64_t item_elements, int64_t batch_stride) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    float& v = y[BatchSliceOffset(i, item_elements, batch_stride)];
    v = ApplyActivation(act, v);
  }
}

}  // namespace

cudaError_t LaunchActivation(const Activation& act, const float* x, float* y, int64_t count,
                             cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  ActivationKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(act, x, y, count);
  return cudaGetLastError();
}

cudaError_t LaunchActivationInBatchSlices(const Activation& act, float* y, int64_t items,
                                          int64_t item_elements, int64_t batch_stride,
                                          cudaStream_t stream) {
  const int64_t count = items * item_elements;
  if (count <= 0) return cudaSuccess;
  BatchSliceActivationKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
      act, y, count, item_elements, batch_stride);
  return cudaGetLastError();
}

}  // namespace ios
