// LayerNormalization's parameters (opset 17), read from a node and its input shapes and checked
// once, for the op registry's shape inference and every backend's kernel factory (CPU and CUDA).
#pragma once

#include <cstdint>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "kernels/math/broadcast_math.h"
#include "kernels/math/reduction_math.h"
#include "util/status.h"

namespace ios {

struct LayerNormParams {
  int64_t axis = 0;  // in [0, rank): dims [axis, rank) are normalised together
  float epsilon = 1e-5f;
  LayerNormShape shape;
  Dims row_dims;    // X's dims [axis, rank)
  Dims stats_dims;  // Mean and InvStdDev: X's dims before the axis, then 1s
  bool has_bias = false;
  // How one row reads Scale and B (kContiguous: they have the row's shape, up to leading 1s).
  OperandMap scale_map;
  OperandMap bias_map;
};

// `x`, `scale` and (when present) `bias` are the input shapes. InvalidInput for a malformed node
// (axis out of range, Scale or B not broadcasting to one row), Unsupported for a stash_type
// other than 1 (float32 statistics) or a broadcast ios cannot index (more than kMaxIndexRank
// dims).
StatusOr<LayerNormParams> ParseLayerNorm(const Node& node, const Dims& x, const Dims& scale,
                                         const Dims* bias);

}  // namespace ios
