// Launchers of the data-movement kernels (device code in tensor_impl.cu). They move elements by
// size only, so they serve every dtype; elem_bytes / unit_bytes must be 1, 2, 4, 8 (or 16 for
// row copies).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/math/index_math.h"
#include "kernels/math/tensor_math.h"

namespace ios {

// out[i] = in[MapOffset(map, i)] for i < count (Slice, Transpose, Expand).
cudaError_t LaunchGather(const IndexMap& map, const void* in, void* out, int64_t count,
                         size_t elem_bytes, cudaStream_t stream);

// dst[RowCopyDestination(copy, i)] = src[RowCopySource(copy, i)] for every unit of the copy
// (Concat, Split); pitches and widths count units of unit_bytes.
cudaError_t LaunchRowCopy(const RowCopy& copy, const void* src, void* dst, size_t unit_bytes,
                          cudaStream_t stream);

// out[i] = in[PadSourceOffset(map, i)], or the pad value where that is -1. The value is read
// from `device_value` when it is not null (a runtime constant_value input), else it is the
// low elem_bytes bytes of `value_bits`.
cudaError_t LaunchPad(const PadMap& map, const void* in, void* out, int64_t count,
                      size_t elem_bytes, const void* device_value, uint64_t value_bits,
                      cudaStream_t stream);

}  // namespace ios
