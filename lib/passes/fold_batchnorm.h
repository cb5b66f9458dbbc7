// Folds an inference BatchNormalization into the Conv or ConvTranspose that feeds it:
//   W'[o] = W[o] * s[o],  b'[o] = (b[o] - mean[o]) * s[o] + beta[o],  s = gamma / sqrt(var + eps)
// (ConvTranspose's W is [Cin, Cout/group, k...]: output channel o is column o % (Cout/group) of
// the rows of its group). Applies when the conv's output has no other reader and every
// parameter is constant.
#pragma once

#include "ir/graph.h"
#include "util/status.h"

namespace ios {

// Returns the number of BatchNormalization nodes folded. Shapes must be inferred.
StatusOr<int> FoldBatchNormIntoConv(Graph& graph);

}  // namespace ios
