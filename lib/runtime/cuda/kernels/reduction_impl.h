// Launchers of the float32 Softmax/LogSoftmax, reduction (ReduceMean, ReduceSum, ...) and
// ArgMax/ArgMin kernels (device code in reduction_impl.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/math/reduction_math.h"

namespace ios {

// Normalises every group of `shape` (max subtracted before exp, as the reference does); with
// `log_softmax` writes LogSoftmax's x - max - log(sum) instead.
cudaError_t LaunchSoftmax(const SoftmaxShape& shape, bool log_softmax, const float* x, float* y,
                          cudaStream_t stream);

// y[o] = the `kind` reduction over r < plan.reduced_count of x[ReduceInputOffset(plan, o, r)],
// for o < out_count, in float (kernels/math/reduction_math.h: ReduceInit ... ReduceFinish).
cudaError_t LaunchReduce(ReduceKind kind, const ReducePlan& plan, const float* x, float* y,
                         int64_t out_count, cudaStream_t stream);

// ArgMax (is_max) or ArgMin over the groups of `shape` (made with coerce_2d false): y[g] = the
// index j of the extreme of group g (ArgBetter: the first, or the last with select_last).
cudaError_t LaunchArgReduce(const SoftmaxShape& shape, bool is_max, bool select_last,
                            const float* x, int64_t* y, cudaStream_t stream);

}  // namespace ios
