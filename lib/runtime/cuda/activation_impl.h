// Launcher for the elementwise activation kernel (device code in activation_impl.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/math/activation_math.h"

namespace ios {

// y[i] = act(x[i]) for i < count, enqueued on `stream`. In-place (y == x) is allowed.
cudaError_t LaunchActivation(const Activation& act, const float* x, float* y, int64_t count,
                             cudaStream_t stream);

}  // namespace ios
