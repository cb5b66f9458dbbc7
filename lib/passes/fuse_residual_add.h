// Fuses a residual Add into the Conv that computes one of its operands: Add(conv(X), R), R of
// the conv output's shape, becomes the conv with R as its fourth input (ios.residual,
// ir/fused_activation.h): Y = conv(X, W) + B + R, which oneDNN computes as a binary post-op
// while the conv's output is still in registers, instead of a second pass over memory.
// Running FuseConvActivations again then folds the activation after the Add (ResNet's Relu).
//
// Only for CPU plans (the compile pipeline runs it for --device cpu): the CUDA conv does not
// take a residual. The conv must have no fused activation yet (act(conv) + R is another
// function), its output no reader but the Add, and both operands float32 of the output's
// shape (no broadcasting). R must be a graph input or computed by one of the conv's ancestors
// (ResNet's identity shortcut, MobileNetV2's residual), so that the fusion orders nothing the
// graph did not: an Add of two independent branches (a projection shortcut, NasNet's and
// RandWire's aggregations) stays, and the IOS search may still run its branches side by side.
// When both operands qualify, the conv later in topological order takes the other as R.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of Adds fused. Shapes must be inferred.
int FuseConvResidualAdds(Graph& graph);

}  // namespace ios
