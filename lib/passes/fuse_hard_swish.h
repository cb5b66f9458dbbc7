// Recognises HardSigmoid and HardSwish written out by exporters (x float32; Mul operands in
// either order; ReLU6 as Clip(0, 6), Min(Max(., 0), 6) or Max(Min(., 6), 0)):
//   ReLU6(x + 3) / 6, ReLU6(x + 3) * (1/6)                -> HardSigmoid(x, 1/6, 0.5)
//   x * ReLU6(x + 3) / 6, x * ReLU6(x + 3) * (1/6)        -> HardSwish(x)
//   x * HardSigmoid(x) with alpha 1/6 and beta 0.5         -> HardSwish(x)
// (so that x * (ReLU6(x + 3) / 6) becomes HardSwish too). HardSwish needs opset 14: in an older
// model the last form stays. Fires only when every intermediate value has no other reader (and
// is no graph output) and the constants are scalars within a relative 1e-5 of the expected
// values; the last node's output, whatever its name, is the fused node's output.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of HardSigmoid and HardSwish nodes made. Shapes must be inferred.
int FuseHardSwish(Graph& graph);

}  // namespace ios
