// The canonicalisation pipeline that iosc runs after import, in order:
//   0. float16 values widened to float32 (always: ios computes in float32; passes/widen_float16.h),
//   1. shape inference with constant folding (shape subgraphs disappear),
//   2. removal of copies (Identity, Dropout, a one-input Concat, a Slice or Reshape that keeps
//      its input's dims), after a Gather of a whole axis in order became a Reshape,
//   3. common subexpression elimination (a repeated op on the same inputs runs once),
//   4. GELU fusion (exporters' Erf and Tanh subgraphs become one Gelu node),
//   5. LayerNorm fusion (the ReduceMean/Sub/Pow/Sqrt/Div subgraph becomes LayerNormalization),
//   6. one form for what exporters spell several ways (issue 50): ReduceMean/ReduceMax over the
//      spatial axes become global pools, HardSigmoid and HardSwish subgraphs their ops,
//      MatMul + bias Gemm, a Reshape that flattens Flatten, and Slices that tile an axis Split,
//   7. stride-1 ConvTransposes as Convs (passes/conv_transpose_as_conv.h),
//   8. BatchNormalization folding into the preceding Conv or ConvTranspose,
//   9. activation fusion into the preceding Conv,
// then shape inference once more over the final graph.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "util/status.h"

namespace ios {

struct CanonicalizeStats {
  int nodes_before = 0;
  int nodes_after = 0;
  int float16_values_widened = 0;
  int constants_folded = 0;
  int gathers_to_reshapes = 0;
  int identities_removed = 0;
  int common_subexpressions_eliminated = 0;
  int gelus_fused = 0;
  int layer_norms_fused = 0;
  int global_pools_made = 0;
  int hard_swishes_fused = 0;  // HardSigmoid and HardSwish nodes made
  int gemms_made = 0;
  int flattens_made = 0;
  int splits_made = 0;
  int conv_transposes_as_convs = 0;
  int batchnorms_folded = 0;
  int activations_fused = 0;
};

struct CanonicalizeOptions {
  bool fold_constants = true;
  bool gather_to_reshape = true;
  bool eliminate_identities = true;
  bool eliminate_common_subexpressions = true;
  bool fuse_gelu = true;
  bool fuse_layer_norm = true;
  bool reduce_to_global_pool = true;
  bool fuse_hard_swish = true;
  bool matmul_add_to_gemm = true;
  bool reshape_to_flatten = true;
  bool slices_to_split = true;
  bool conv_transpose_as_conv = true;
  bool fold_batchnorm = true;
  bool fuse_activations = true;
};

Status Canonicalize(Graph& graph, const CanonicalizeOptions& options, CanonicalizeStats* stats);

// The passes by the names iosc's --passes takes (fold-constants, gather-to-reshape,
// eliminate-identity, eliminate-common-subexpressions, fuse-gelu, fuse-layer-norm,
// reduce-to-global-pool, fuse-hard-swish, matmul-add-to-gemm, reshape-to-flatten, slices-to-split,
// conv-transpose-as-conv, fold-batchnorm, fuse-activation):
// those listed run, the others do not. An unknown name is InvalidInput. Plans record this list, so
// that a weight-stripped plan's weights can be rebuilt by the same passes.
StatusOr<CanonicalizeOptions> CanonicalizeOptionsForPasses(const std::vector<std::string>& passes);
// Every pass name, in the order the passes run.
const std::vector<std::string>& CanonicalizePassNames();

}  // namespace ios
