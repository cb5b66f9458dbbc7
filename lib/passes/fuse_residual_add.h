// Fuses a residual Add into the Conv that computes one of its operands: Add(conv(X), R), R of
// the conv output's shape, becomes the conv with R as its fourth input (ios.residual,
// ir/fused_activation.h): Y = conv(X, W) + B + R, which oneDNN computes as a binary post-op
// while the conv's output is still in registers, instead of a second pass over memory.
// Running FuseConvActivations again then folds the activation after the Add (ResNet's Relu).
//
// Only for CPU plans (the compile pipeline runs it for --device cpu): the CUDA conv does not
// take a residual. The conv must have no fused activation yet (act(conv) + R is another
// function), its output no reader but the Add, and both operands float32 of the output's
// shape (no broadcasting). The fusion may order little that the graph did not: R is a graph input
// or computed by one of the conv's ancestors (ResNet's identity shortcut, MobileNetV2's residual),
// or by one node that reads only such values (ResNet's projection shortcut, which may then still
// run beside the main branch's first convs, only no longer beside its last). An Add of two longer
// independent branches (NasNet's and RandWire's aggregations) stays, and the IOS search may still
// run them side by side. Of two convs that could take the other operand (two convs of one
// input), the later in topological order does.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of Adds fused. Shapes must be inferred.
int FuseConvResidualAdds(Graph& graph);

}  // namespace ios
