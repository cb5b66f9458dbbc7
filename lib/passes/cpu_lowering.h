// The graph rewrites of CPU plans, after canonicalisation and before layouts are assigned: the
// channel shuffles as Gathers (passes/channel_shuffle.h), then the residual Adds into the convs
// before them and the activations after those Adds (passes/fuse_residual_add.h). iosc runs them
// for --device cpu; a weight-stripped CPU plan's rebuild runs them again, since they make
// constants (the shuffles' indices) that the plan's weights include.
#pragma once

#include "ir/graph.h"

namespace ios {

struct CpuLoweringStats {
  int channel_shuffles = 0;
  int residual_adds = 0;
  int activations_after_adds = 0;
};

// Shapes must be inferred.
CpuLoweringStats LowerGraphForCpu(Graph& graph);

}  // namespace ios
