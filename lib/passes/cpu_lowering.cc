#include "passes/cpu_lowering.h"

#include "passes/channel_affine.h"
#include "passes/channel_shuffle.h"
#include "passes/fuse_activation.h"
#include "passes/fuse_residual_add.h"

namespace ios {

CpuLoweringStats LowerGraphForCpu(Graph& graph) {
  CpuLoweringStats stats;
  stats.channel_shuffles = RewriteChannelShufflesAsGathers(graph);
  stats.channel_affines = RewriteChannelAffinesAsBatchNorms(graph);
  stats.batchnorm_activations = FuseBatchNormActivations(graph);
  stats.conv_transpose_activations = FuseConvTransposeActivations(graph);
  stats.residual_adds = FuseConvResidualAdds(graph);
  // Then the activation after each fused Add into the same conv.
  if (stats.residual_adds > 0) stats.activations_after_adds = FuseConvActivations(graph);
  return stats;
}

}  // namespace ios
