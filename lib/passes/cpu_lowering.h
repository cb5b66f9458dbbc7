// The graph rewrites of CPU plans, after canonicalisation and before layouts are assigned: the
// channel shuffles as Gathers (passes/channel_shuffle.h), the per-channel affines as inference
// BatchNormalizations (passes/channel_affine.h) and the activations after inference BNs and
// ConvTransposes into them (passes/fuse_activation.h), then the residual Adds into the convs before them and the
// activations after those Adds (passes/fuse_residual_add.h). iosc runs them for --device cpu; a
// weight-stripped CPU plan's rebuild runs them again, since they make constants (the shuffles'
// indices, the affines' parameters) that the plan's weights include.
#pragma once

#include "ir/graph.h"

namespace ios {

struct CpuLoweringStats {
  int channel_shuffles = 0;
  int channel_affines = 0;
  int batchnorm_activations = 0;
  int conv_transpose_activations = 0;
  int residual_adds = 0;
  int activations_after_adds = 0;
};

// Shapes must be inferred.
CpuLoweringStats LowerGraphForCpu(Graph& graph);

}  // namespace ios
