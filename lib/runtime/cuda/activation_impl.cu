#include "runtime/cuda/activation_impl.h"

namespace ios {
namespace {

__global__ void ActivationKernel(Activation act, const float* x, float* y, int64_t count) {
  // Grid-stride loop: any grid size covers any count.
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    y[i] = ApplyActivation(act, x[i]);
  }
}

}  // namespace

cudaError_t LaunchActivation(const Activation& act, const float* x, float* y, int64_t count,
                             cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  constexpr int kThreads = 256;
  const int64_t wanted = (count + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(wanted < 65535 ? wanted : 65535);
  ActivationKernel<<<blocks, kThreads, 0, stream>>>(act, x, y, count);
  return cudaGetLastError();
}

}  // namespace ios
