#include "passes/canonicalize.h"

#include <algorithm>

#include "ops/op_registry.h"
#include "passes/eliminate_common_subexpressions.h"
#include "passes/eliminate_identity.h"
#include "passes/conv_transpose_as_conv.h"
#include "passes/fold_batchnorm.h"
#include "passes/fuse_activation.h"
#include "passes/fuse_gelu.h"
#include "passes/fuse_hard_swish.h"
#include "passes/fuse_layer_norm.h"
#include "passes/gather_to_reshape.h"
#include "passes/infer_and_fold.h"
#include "passes/matmul_add_to_gemm.h"
#include "passes/reduce_to_global_pool.h"
#include "passes/reshape_to_flatten.h"
#include "passes/slices_to_split.h"
#include "passes/widen_float16.h"

namespace ios {
namespace {

// Plain shape inference over the whole graph, without folding.
Status InferAll(Graph& graph) {
  IOS_ASSIGN_OR_RETURN(std::vector<NodeId> order, graph.TopologicalOrder());
  for (NodeId id : order) IOS_RETURN_IF_ERROR(InferNode(graph, id));
  return Status::Ok();
}

}  // namespace

Status Canonicalize(Graph& graph, const CanonicalizeOptions& options, CanonicalizeStats* stats) {
  CanonicalizeStats local;
  local.nodes_before = static_cast<int>(graph.nodes.size());
  IOS_ASSIGN_OR_RETURN(local.float16_values_widened, WidenFloat16ToFloat32(graph));
  if (options.fold_constants) {
    FoldStats fold;
    IOS_RETURN_IF_ERROR(InferShapesAndFoldConstants(graph, &fold));
    local.constants_folded = fold.nodes_folded;
  } else {
    IOS_RETURN_IF_ERROR(InferAll(graph));
  }
  if (options.gather_to_reshape) local.gathers_to_reshapes = GatherToReshape(graph);
  if (options.eliminate_identities) local.identities_removed = EliminateIdentities(graph);
  if (options.eliminate_common_subexpressions)
    local.common_subexpressions_eliminated = EliminateCommonSubexpressions(graph);
  if (options.fuse_gelu) local.gelus_fused = FuseGelu(graph);
  if (options.fuse_layer_norm) local.layer_norms_fused = FuseLayerNorm(graph);
  if (options.reduce_to_global_pool) local.global_pools_made = ReduceToGlobalPool(graph);
  if (options.fuse_hard_swish) local.hard_swishes_fused = FuseHardSwish(graph);
  if (options.matmul_add_to_gemm) local.gemms_made = MatMulAddToGemm(graph);
  if (options.reshape_to_flatten) local.flattens_made = ReshapeToFlatten(graph);
  if (options.slices_to_split) local.splits_made = SlicesToSplit(graph);
  if (options.conv_transpose_as_conv)
    local.conv_transposes_as_convs = RewriteStrideOneConvTransposes(graph);
  if (options.fold_batchnorm) {
    IOS_ASSIGN_OR_RETURN(local.batchnorms_folded, FoldBatchNormIntoConv(graph));
  }
  if (options.fuse_activations) local.activations_fused = FuseConvActivations(graph);
  graph.Compact();
  IOS_RETURN_IF_ERROR(InferAll(graph));
  local.nodes_after = static_cast<int>(graph.nodes.size());
  if (stats) *stats = local;
  return Status::Ok();
}

const std::vector<std::string>& CanonicalizePassNames() {
  static const std::vector<std::string> names = {"fold-constants",
                                                 "gather-to-reshape",
                                                 "eliminate-identity",
                                                 "eliminate-common-subexpressions",
                                                 "fuse-gelu",
                                                 "fuse-layer-norm",
                                                 "reduce-to-global-pool",
                                                 "fuse-hard-swish",
                                                 "matmul-add-to-gemm",
                                                 "reshape-to-flatten",
                                                 "slices-to-split",
                                                 "conv-transpose-as-conv",
                                                 "fold-batchnorm",
                                                 "fuse-activation"};
  return names;
}

StatusOr<CanonicalizeOptions> CanonicalizeOptionsForPasses(const std::vector<std::string>& passes) {
  CanonicalizeOptions options;
  bool* flags[] = {&options.fold_constants,
                   &options.gather_to_reshape,
                   &options.eliminate_identities,
                   &options.eliminate_common_subexpressions,
                   &options.fuse_gelu,
                   &options.fuse_layer_norm,
                   &options.reduce_to_global_pool,
                   &options.fuse_hard_swish,
                   &options.matmul_add_to_gemm,
                   &options.reshape_to_flatten,
                   &options.slices_to_split,
                   &options.conv_transpose_as_conv,
                   &options.fold_batchnorm,
                   &options.fuse_activations};
  for (bool* flag : flags) *flag = false;
  const std::vector<std::string>& names = CanonicalizePassNames();
  for (const std::string& pass : passes) {
    const auto found = std::find(names.begin(), names.end(), pass);
    if (found == names.end()) return InvalidInput("unknown canonicalisation pass '" + pass + "'");
    *flags[found - names.begin()] = true;
  }
  return options;
}

}  // namespace ios
