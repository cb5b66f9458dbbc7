// Launcher of the Gather kernel (device code in indexing_impl.cu); the index math is
// kernels/math/indexing_math.h. Tile needs no kernel of its own: it is an IndexMap gather
// (LaunchGather in tensor_impl.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/math/indexing_math.h"

namespace ios {

// out[i] = data[GatherSourceOffset(map, i, index)] for i < count, where index is the
// normalised indices[GatherIndexPosition(map, i)] (int32 or int64 indices); an index out of
// range (only possible for indices computed at run time) gives zero bytes. Elements of
// elem_bytes (1, 2, 4 or 8) bytes.
cudaError_t LaunchGatherIndices(const GatherMap& map, const void* data, const void* indices,
                                bool indices_int32, void* out, int64_t count, size_t elem_bytes,
                                cudaStream_t stream);

}  // namespace ios
