#include "runtime/cuda/kernels/launch_util.h"
#include "runtime/cuda/kernels/logical_impl.h"

namespace ios {
namespace {

template <typename T>
__global__ void CompareKernel(CompareOpKind op, OperandMap a_map, const T* a, OperandMap b_map,
                              const T* b, uint8_t* out, int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride())
    out[i] = ApplyCompare<T>(op, a[OperandOffset(a_map, i)], b[OperandOffset(b_map, i)]);
}

__global__ void NotKernel(const uint8_t* x, uint8_t* y, int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride()) y[i] = ApplyNot(x[i]);
}

template <typename T>
__global__ void WhereKernel(OperandMap c_map, const uint8_t* c, OperandMap x_map, const T* x,
                            OperandMap y_map, const T* y, T* out, int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride())
    out[i] = ApplyWhere<T>(c[OperandOffset(c_map, i)], x[OperandOffset(x_map, i)],
                           y[OperandOffset(y_map, i)]);
}

template <typename T>
cudaError_t Compare(CompareOpKind op, const OperandMap& a_map, const void* a,
                    const OperandMap& b_map, const void* b, uint8_t* out, int64_t count,
                    cudaStream_t stream) {
  CompareKernel<T><<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
      op, a_map, static_cast<const T*>(a), b_map, static_cast<const T*>(b), out, count);
  return cudaGetLastError();
}

template <typename T>
cudaError_t Where(const OperandMap& c_map, const uint8_t* c, const OperandMap& x_map, const void* x,
                  const OperandMap& y_map, const void* y, void* out, int64_t count,
                  cudaStream_t stream) {
  WhereKernel<T><<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
      c_map, c, x_map, static_cast<const T*>(x), y_map, static_cast<const T*>(y),
      static_cast<T*>(out), count);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchCompare(CompareOpKind op, CastType type, const OperandMap& a_map, const void* a,
                          const OperandMap& b_map, const void* b, uint8_t* out, int64_t count,
                          cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (type) {
    case CastType::kFloat32:
      return Compare<float>(op, a_map, a, b_map, b, out, count, stream);
    case CastType::kFloat64:
      return Compare<double>(op, a_map, a, b_map, b, out, count, stream);
    case CastType::kInt64:
      return Compare<int64_t>(op, a_map, a, b_map, b, out, count, stream);
    case CastType::kInt32:
      return Compare<int32_t>(op, a_map, a, b_map, b, out, count, stream);
    case CastType::kInt8:
      return Compare<int8_t>(op, a_map, a, b_map, b, out, count, stream);
    case CastType::kUint8:
    case CastType::kBool:
      return Compare<uint8_t>(op, a_map, a, b_map, b, out, count, stream);
    case CastType::kFloat16:
      break;
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchNot(const uint8_t* x, uint8_t* y, int64_t count, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  NotKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(x, y, count);
  return cudaGetLastError();
}

cudaError_t LaunchWhere(const OperandMap& condition_map, const uint8_t* condition,
                        const OperandMap& x_map, const void* x, const OperandMap& y_map,
                        const void* y, void* out, int64_t count, size_t elem_bytes,
                        cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (elem_bytes) {
    case 1:
      return Where<uint8_t>(condition_map, condition, x_map, x, y_map, y, out, count, stream);
    case 2:
      return Where<uint16_t>(condition_map, condition, x_map, x, y_map, y, out, count, stream);
    case 4:
      return Where<uint32_t>(condition_map, condition, x_map, x, y_map, y, out, count, stream);
    case 8:
      return Where<uint64_t>(condition_map, condition, x_map, x, y_map, y, out, count, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace ios
