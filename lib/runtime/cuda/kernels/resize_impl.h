// Launcher of the float32 Resize / Upsample kernel (device code in resize_impl.cu).
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/math/resize_math.h"

namespace ios {

// One thread per output element (grid-stride): y[i] = ResizeGatherElement(gather, x, i).
cudaError_t LaunchResize(const ResizeGather& gather, const float* x, float* y, cudaStream_t stream);

}  // namespace ios
