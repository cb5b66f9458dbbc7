// Launcher of the float32 LayerNormalization kernel (device code in layer_norm_impl.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/math/broadcast_math.h"
#include "kernels/math/reduction_math.h"

namespace ios {

struct LayerNormLaunch {
  LayerNormShape shape;
  OperandMap scale_map;  // row element j reads scale[OperandOffset(scale_map, j)]
  OperandMap bias_map;
  float epsilon = 1e-5f;
};

// One block per row: the row's mean, then the mean of its squared deviations (two passes,
// float accumulation through a block reduction), then y = LayerNormValue(...) for every element.
// `bias` (no B), `mean` and `inv_std_dev` (outputs nobody asked for) may be null; the others
// are device buffers of the node's shapes.
cudaError_t LaunchLayerNorm(const LayerNormLaunch& launch, const float* x, const float* scale,
                            const float* bias, float* y, float* mean, float* inv_std_dev,
                            cudaStream_t stream);

}  // namespace ios
