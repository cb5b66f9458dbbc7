#include "runtime/cuda/kernels/launch_util.h"
#include "runtime/cuda/kernels/resize_impl.h"

namespace ios {
namespace {

__global__ void ResizeKernel(ResizeGather gather, const float* x, float* y) {
  for (int64_t i = GridStart(); i < gather.count; i += GridStride())
    y[i] = ResizeGatherElement(gather, x, i);
}

}  // namespace

cudaError_t LaunchResize(const ResizeGather& gather, const float* x, float* y,
                         cudaStream_t stream) {
  if (gather.count <= 0) return cudaSuccess;
  ResizeKernel<<<BlocksFor(gather.count), kThreadsPerBlock, 0, stream>>>(gather, x, y);
  return cudaGetLastError();
}

}  // namespace ios
