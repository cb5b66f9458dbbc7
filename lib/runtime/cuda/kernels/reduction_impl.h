// Launchers of the float32 Softmax and ReduceMean kernels (device code in reduction_impl.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/math/reduction_math.h"

namespace ios {

// Normalises every group of `shape` (max subtracted before exp, as the reference does).
cudaError_t LaunchSoftmax(const SoftmaxShape& shape, const float* x, float* y, cudaStream_t stream);

// y[o] = mean over r of x[ReduceInputOffset(plan, o, r)] for o < out_count.
cudaError_t LaunchReduceMean(const ReducePlan& plan, const float* x, float* y, int64_t out_count,
                             cudaStream_t stream);

}  // namespace ios
