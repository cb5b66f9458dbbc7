// Launcher of the Cast kernel (device code in cast_impl.cu); the per-element conversion is
// kernels/math/cast_math.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/math/cast_math.h"

namespace ios {

// y[i] = x[i] converted from `from` to `to`, for i < count.
cudaError_t LaunchCast(CastType from, const void* x, CastType to, void* y, int64_t count,
                       cudaStream_t stream);

}  // namespace ios
