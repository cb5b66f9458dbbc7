// Launcher of the float32 inference BatchNormalization kernel (device code in
// normalization_impl.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/math/reduction_math.h"

namespace ios {

// y = BatchNormValue(x, scale[c], bias[c], mean[c], var[c], epsilon) with c = ChannelOf(i, inner,
// channels), for i < count; the four per-channel vectors are device buffers of `channels`.
cudaError_t LaunchBatchNorm(const float* x, const float* scale, const float* bias,
                            const float* mean, const float* var, float epsilon, int64_t inner,
                            int64_t channels, float* y, int64_t count, cudaStream_t stream);

}  // namespace ios
