#include "runtime/cuda/kernels/cast_impl.h"
#include "runtime/cuda/kernels/launch_util.h"

namespace ios {
namespace {

// One kernel for every pair: the type switches in CastElement take the same branch in every
// thread, and Cast moves too little data in a CNN to be worth 64 instantiations.
__global__ void CastKernel(CastType from, const void* x, CastType to, void* y, int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride()) CastElement(from, x, to, y, i);
}

}  // namespace

cudaError_t LaunchCast(CastType from, const void* x, CastType to, void* y, int64_t count,
                       cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  CastKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(from, x, to, y, count);
  return cudaGetLastError();
}

}  // namespace ios
