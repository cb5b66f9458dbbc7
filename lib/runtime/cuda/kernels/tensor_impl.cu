#include <cstring>

#include "runtime/cuda/kernels/launch_util.h"
#include "runtime/cuda/kernels/tensor_impl.h"

namespace ios {
namespace {

template <typename T>
__global__ void GatherKernel(IndexMap map, const T* in, T* out, int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride()) out[i] = in[MapOffset(map, i)];
}

template <typename T>
__global__ void RowCopyKernel(RowCopy copy, const T* src, T* dst, int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride())
    dst[RowCopyDestination(copy, i)] = src[RowCopySource(copy, i)];
}

template <typename T>
__global__ void PadKernel(PadMap map, const T* in, T* out, int64_t count, const T* device_value,
                          T value) {
  const T pad = device_value != nullptr ? *device_value : value;
  for (int64_t i = GridStart(); i < count; i += GridStride()) {
    const int64_t from = PadSourceOffset(map, i);
    out[i] = from < 0 ? pad : in[from];
  }
}

template <typename T>
cudaError_t Gather(const IndexMap& map, const void* in, void* out, int64_t count,
                   cudaStream_t stream) {
  GatherKernel<T><<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(map, static_cast<const T*>(in),
                                                                     static_cast<T*>(out), count);
  return cudaGetLastError();
}

template <typename T>
cudaError_t CopyRows(const RowCopy& copy, const void* src, void* dst, int64_t count,
                     cudaStream_t stream) {
  RowCopyKernel<T><<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
      copy, static_cast<const T*>(src), static_cast<T*>(dst), count);
  return cudaGetLastError();
}

template <typename T>
cudaError_t Pad(const PadMap& map, const void* in, void* out, int64_t count,
                const void* device_value, uint64_t value_bits, cudaStream_t stream) {
  T value;
  std::memcpy(&value, &value_bits, sizeof(T));  // the low bytes on a little-endian host
  PadKernel<T><<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
      map, static_cast<const T*>(in), static_cast<T*>(out), count,
      static_cast<const T*>(device_value), value);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchGather(const IndexMap& map, const void* in, void* out, int64_t count,
                         size_t elem_bytes, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (elem_bytes) {
    case 1:
      return Gather<uint8_t>(map, in, out, count, stream);
    case 2:
      return Gather<uint16_t>(map, in, out, count, stream);
    case 4:
      return Gather<uint32_t>(map, in, out, count, stream);
    case 8:
      return Gather<uint64_t>(map, in, out, count, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchRowCopy(const RowCopy& copy, const void* src, void* dst, size_t unit_bytes,
                          cudaStream_t stream) {
  const int64_t count = copy.rows * copy.width;
  if (count <= 0) return cudaSuccess;
  switch (unit_bytes) {
    case 1:
      return CopyRows<uint8_t>(copy, src, dst, count, stream);
    case 2:
      return CopyRows<uint16_t>(copy, src, dst, count, stream);
    case 4:
      return CopyRows<uint32_t>(copy, src, dst, count, stream);
    case 8:
      return CopyRows<uint64_t>(copy, src, dst, count, stream);
    case 16:
      return CopyRows<uint4>(copy, src, dst, count, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchPad(const PadMap& map, const void* in, void* out, int64_t count,
                      size_t elem_bytes, const void* device_value, uint64_t value_bits,
                      cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (elem_bytes) {
    case 1:
      return Pad<uint8_t>(map, in, out, count, device_value, value_bits, stream);
    case 2:
      return Pad<uint16_t>(map, in, out, count, device_value, value_bits, stream);
    case 4:
      return Pad<uint32_t>(map, in, out, count, device_value, value_bits, stream);
    case 8:
      return Pad<uint64_t>(map, in, out, count, device_value, value_bits, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace ios
