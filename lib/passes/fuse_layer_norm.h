// Recognises the LayerNorm that exporters write out for opsets before 17 and replaces it with
// one LayerNormalization node (opset 17):
//   mean = ReduceMean(x, trailing axes, keepdims=1);  d = Sub(x, mean)
//   var = ReduceMean(Pow(d, 2) or Mul(d, d), same axes);  std = Sqrt(Add(var, epsilon))
//   y = Div(d, std), then optionally Mul(y, scale) and Add(y, bias)
// where the axes are the last ones ([a, rank) becomes axis a) and scale and bias broadcast to
// those dims (a scale of another shape stays a Mul after the fused node). Fires only when every
// intermediate value has no other reader (d is read by the square and the Div), the constants
// are scalars (Pow's exponent within a relative 1e-5 of 2) and x is float32. Without a scale the
// node gets a constant Scale of ones.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of LayerNormalization nodes made. Shapes must be inferred.
int FuseLayerNorm(Graph& graph);

}  // namespace ios
