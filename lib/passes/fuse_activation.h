// Fuses an activation (Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish, Elu,
// Softplus, Mish: the kinds ConvFusesActivation accepts) into the Conv before it, when the
// conv's output has no other reader. The result is recorded with the attributes of
// ir/fused_activation.h. Selu, Celu, Softsign and ThresholdedRelu stay ops of their own.
// SiLU, which exporters write as Mul(x, Sigmoid(x)), fuses as the activation kind Silu when the
// conv's output has no readers but those two.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of activations fused. Shapes must be inferred.
int FuseConvActivations(Graph& graph);

// The same kinds into an inference BatchNormalization on float32 before them (its output read by
// nothing else): the CPU's BN kernel applies it in its one pass. Only for CPU plans (their
// lowering, passes/cpu_lowering.h); the CUDA backend's BN takes no activation.
int FuseBatchNormActivations(Graph& graph);

// The same kinds, and SiLU, into the ConvTranspose before them: the CPU's ConvTranspose applies
// it as a post-op. Only for CPU plans (passes/cpu_lowering.h); the CUDA backend's takes none.
int FuseConvTransposeActivations(Graph& graph);

}  // namespace ios
