// Launcher for the elementwise activation kernel (device code in activation_impl.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/math/activation_math.h"
#include "kernels/math/index_math.h"

namespace ios {

// y[i] = act(x[i]) for i < count, enqueued on `stream`. In-place (y == x) is allowed.
cudaError_t LaunchActivation(const Activation& act, const float* x, float* y, int64_t count,
                             cudaStream_t stream);

// In place on a strided view: `items` batch items of `item_elements` each, `batch_stride`
// elements apart (BatchSliceOffset).
cudaError_t LaunchActivationInBatchSlices(const Activation& act, float* y, int64_t items,
                                          int64_t item_elements, int64_t batch_stride,
                                          cudaStream_t stream);

}  // namespace ios
