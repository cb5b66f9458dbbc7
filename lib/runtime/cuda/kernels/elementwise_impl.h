// Launchers of the float32 elementwise kernels (device code in elementwise_impl.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/math/broadcast_math.h"
#include "kernels/math/elementwise_math.h"
#include "kernels/math/index_math.h"

namespace ios {

// out[i] = op(a[OperandOffset(a_map, i)], b[OperandOffset(b_map, i)]) for i < count. `out` may
// be `a` when a_map is contiguous (the variadic ops accumulate in place).
cudaError_t LaunchBinary(BinaryOpKind op, const OperandMap& a_map, const float* a,
                         const OperandMap& b_map, const float* b, float* out, int64_t count,
                         cudaStream_t stream);

// Same-shape operands stored as `items` batch items of `item_elements` each, every tensor with
// its own batch stride (item_elements when dense, more for a strided view): element i of each
// lies at BatchSliceOffset(i, item_elements, its stride). `out` may be `a` (same stride).
cudaError_t LaunchBatchSlicedBinary(BinaryOpKind op, const float* a, int64_t a_stride,
                                    const float* b, int64_t b_stride, float* out,
                                    int64_t out_stride, int64_t items, int64_t item_elements,
                                    cudaStream_t stream);

// y[i] = op(x[i]) for i < count.
cudaError_t LaunchUnary(UnaryOpKind op, const float* x, float* y, int64_t count,
                        cudaStream_t stream);

// Clip whose bounds are device scalars read by the kernel (null: no bound); a minimum above
// the maximum makes every value the maximum, as ONNX specifies.
cudaError_t LaunchClipFromDevice(const float* x, const float* min_value, const float* max_value,
                                 float* y, int64_t count, cudaStream_t stream);

}  // namespace ios
