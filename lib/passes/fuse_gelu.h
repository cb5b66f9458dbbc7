// Recognises GELU written out by exporters and replaces it with one Gelu node (opset 20):
//   erf form:  x * 0.5 * (1 + Erf(x / sqrt(2)))  (Div by 1.4142135 or Mul by 0.70710678; the 0.5
//              applied to x, to the (1 + Erf) factor or to their product; Add of 1 on either
//              side; Mul operands in either order)            -> Gelu (approximate "none")
//   tanh form: 0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))  with Pow(x, 3) or
//              x * x * x                                        -> Gelu (approximate "tanh")
// Fires only when every intermediate value has no other reader (and is no graph output), the
// constants are scalars within a relative 1e-5 of the expected values, and x is float32.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of Gelu nodes made. Shapes must be inferred.
int FuseGelu(Graph& graph);

}  // namespace ios
