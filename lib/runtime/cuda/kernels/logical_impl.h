// Launchers of the comparison and selection kernels (device code in logical_impl.cu): Equal,
// Less and Greater with numpy broadcasting and a bool output, Not, and Where (any element
// size). The per-element math is kernels/math/compare_math.h; operands are read through the
// broadcast maps of kernels/math/broadcast_math.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/math/broadcast_math.h"
#include "kernels/math/cast_math.h"
#include "kernels/math/compare_math.h"

namespace ios {

// out[i] = ApplyCompare(op, a[OperandOffset(a_map, i)], b[OperandOffset(b_map, i)]) for every
// element type but float16 (cudaErrorInvalidValue); bool is compared as its bytes.
cudaError_t LaunchCompare(CompareOpKind op, CastType type, const OperandMap& a_map, const void* a,
                          const OperandMap& b_map, const void* b, uint8_t* out, int64_t count,
                          cudaStream_t stream);

// y[i] = ApplyNot(x[i]).
cudaError_t LaunchNot(const uint8_t* x, uint8_t* y, int64_t count, cudaStream_t stream);

// out[i] = ApplyWhere(condition[...], x[...], y[...]), each read through its map; elements of
// elem_bytes (1, 2, 4 or 8) bytes.
cudaError_t LaunchWhere(const OperandMap& condition_map, const uint8_t* condition,
                        const OperandMap& x_map, const void* x, const OperandMap& y_map,
                        const void* y, void* out, int64_t count, size_t elem_bytes,
                        cudaStream_t stream);

}  // namespace ios
