#include <cfloat>

#include "kernels/math/activation_math.h"
#include "runtime/cuda/kernels/elementwise_impl.h"
#include "runtime/cuda/kernels/launch_util.h"

namespace ios {
namespace {

__global__ void BinaryKernel(BinaryOpKind op, OperandMap a_map, const float* a, OperandMap b_map,
                             const float* b, float* out, int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride())
    out[i] = ApplyBinary(op, a[OperandOffset(a_map, i)], b[OperandOffset(b_map, i)]);
}

// Both operands have the output's shape: no index math at all.
__global__ void SameShapeBinaryKernel(BinaryOpKind op, const float* a, const float* b, float* out,
                                      int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride()) out[i] = ApplyBinary(op, a[i], b[i]);
}

__global__ void BatchSlicedBinaryKernel(BinaryOpKind op, const float* a, int64_t a_stride,
                                        const float* b, int64_t b_stride, float* out,
                                        int64_t out_stride, int64_t item, int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride()) {
    out[BatchSliceOffset(i, item, out_stride)] = ApplyBinary(
        op, a[BatchSliceOffset(i, item, a_stride)], b[BatchSliceOffset(i, item, b_stride)]);
  }
}

__global__ void UnaryKernel(UnaryOpKind op, const float* x, float* y, int64_t count) {
  for (int64_t i = GridStart(); i < count; i += GridStride()) y[i] = ApplyUnary(op, x[i]);
}

__global__ void ClipFromDeviceKernel(const float* x, const float* min_value, const float* max_value,
                                     float* y, int64_t count) {
  const float hi = max_value != nullptr ? *max_value : FLT_MAX;
  float lo = min_value != nullptr ? *min_value : -FLT_MAX;
  if (lo > hi) lo = hi;
  for (int64_t i = GridStart(); i < count; i += GridStride())
    y[i] = ApplyActivation(ActivationKind::kClip, lo, hi, x[i]);
}

}  // namespace

cudaError_t LaunchBinary(BinaryOpKind op, const OperandMap& a_map, const float* a,
                         const OperandMap& b_map, const float* b, float* out, int64_t count,
                         cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  if (a_map.pattern == OperandPattern::kContiguous &&
      b_map.pattern == OperandPattern::kContiguous) {
    SameShapeBinaryKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(op, a, b, out, count);
  } else {
    BinaryKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(op, a_map, a, b_map, b, out,
                                                                    count);
  }
  return cudaGetLastError();
}

cudaError_t LaunchBatchSlicedBinary(BinaryOpKind op, const float* a, int64_t a_stride,
                                    const float* b, int64_t b_stride, float* out,
                                    int64_t out_stride, int64_t items, int64_t item_elements,
                                    cudaStream_t stream) {
  const int64_t count = items * item_elements;
  if (count <= 0) return cudaSuccess;
  BatchSlicedBinaryKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
      op, a, a_stride, b, b_stride, out, out_stride, item_elements, count);
  return cudaGetLastError();
}

cudaError_t LaunchUnary(UnaryOpKind op, const float* x, float* y, int64_t count,
                        cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  UnaryKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(op, x, y, count);
  return cudaGetLastError();
}

cudaError_t LaunchClipFromDevice(const float* x, const float* min_value, const float* max_value,
                                 float* y, int64_t count, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  ClipFromDeviceKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(x, min_value, max_value,
                                                                          y, count);
  return cudaGetLastError();
}

}  // namespace ios
