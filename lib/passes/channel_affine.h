// Rewrites a per-channel affine, Add(Mul(X, s), b) with s and b constants of one value per channel
// of X (dim 1: [C, 1, 1], [1, C, 1, 1], or one value for all), as an inference BatchNormalization
// (scale s, B b, mean 0, var 1, epsilon 0: the same function, since 1 / sqrt(1 + 0) is 1), for CPU
// plans. That is how an inference BN after something other than a conv can reach ios (DenseNet's
// pre-activations after each Concat, as the project's generator writes them; converters that
// decompose BN). The CPU's BN kernel then computes it, and the activation the lowering fuses into
// it, in one pass over memory in the layout of the convs around it (runtime/cpu/kernels/batchnorm_cpu.cc),
// where the broadcasting Mul and Add were two passes that kept the tensor from the blocked layout.
//
// X must be float32 of rank 2 or more, the Mul's output read by the Add alone and no graph
// output; either operand order. Only for CPU plans (passes/cpu_lowering.h).
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of affines rewritten. Shapes must be inferred.
int RewriteChannelAffinesAsBatchNorms(Graph& graph);

}  // namespace ios
