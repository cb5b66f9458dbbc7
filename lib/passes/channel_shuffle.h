// Rewrites a channel shuffle as a Gather of channels, for CPU plans. Exporters write ShuffleNet's
// channel shuffle of an [N, C, H, W] tensor as Reshape to [N, g, C/g, H, W], Transpose
// (perm 0, 2, 1, 3, 4), Reshape back to [N, C, H, W]. Its five-dim middle has no channels-last
// form, so on the CPU the tensor went back to NCHW there, and every conv, Concat and Split after
// it reordered (ShuffleNetV2's reorders were about a third of its time). The same permutation
// as Gather(X, indices, axis 1), indices[j * g + i] = i * C/g + j, keeps the tensor NHWC: the
// CPU's Gather moves each pixel's channels (runtime/cpu/kernels/gather_cpu.cc).
//
// Only for CPU plans (the compile pipeline runs it for --device cpu); the CUDA backend keeps
// the exporter's ops. The Reshapes and the Transpose must have no other readers, and neither
// middle value may be a graph output.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of shuffles rewritten. Shapes must be inferred.
int RewriteChannelShufflesAsGathers(Graph& graph);

}  // namespace ios
