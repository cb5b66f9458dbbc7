#include "runtime/cuda/kernels/indexing_impl.h"
#include "runtime/cuda/kernels/launch_util.h"

namespace ios {
namespace {

template <typename T, typename Index>
__global__ void GatherIndicesKernel(GatherMap map, const T* data, const Index* indices, T* out,
                                    int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride()) {
    const int64_t index = NormalizeGatherIndex(
        static_cast<int64_t>(indices[GatherIndexPosition(map, i)]), map.axis_dim);
    out[i] = index < 0 ? T(0) : data[GatherSourceOffset(map, i, index)];
  }
}

template <typename T>
cudaError_t GatherIndices(const GatherMap& map, const void* data, const void* indices,
                          bool indices_int32, void* out, int64_t count, cudaStream_t stream) {
  if (indices_int32) {
    GatherIndicesKernel<T, int32_t><<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
        map, static_cast<const T*>(data), static_cast<const int32_t*>(indices),
        static_cast<T*>(out), count);
  } else {
    GatherIndicesKernel<T, int64_t><<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
        map, static_cast<const T*>(data), static_cast<const int64_t*>(indices),
        static_cast<T*>(out), count);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchGatherIndices(const GatherMap& map, const void* data, const void* indices,
                                bool indices_int32, void* out, int64_t count, size_t elem_bytes,
                                cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (elem_bytes) {
    case 1:
      return GatherIndices<uint8_t>(map, data, indices, indices_int32, out, count, stream);
    case 2:
      return GatherIndices<uint16_t>(map, data, indices, indices_int32, out, count, stream);
    case 4:
      return GatherIndices<uint32_t>(map, data, indices, indices_int32, out, count, stream);
    case 8:
      return GatherIndices<uint64_t>(map, data, indices, indices_int32, out, count, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace ios
