// Launcher of Mean's last step (device code in mean_impl.cu); its sum is the binary add kernel
// of elementwise_impl.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ios {

// y[i] = MeanFromSum(y[i], inputs) for i < count (kernels/math/elementwise_math.h).
cudaError_t LaunchMeanFromSum(float* y, int32_t inputs, int64_t count, cudaStream_t stream);

}  // namespace ios
