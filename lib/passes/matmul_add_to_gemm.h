// MatMul(A, B) + C with A and B float32 matrices and C a float32 constant that broadcasts to the
// product's [M, N] (a bias: [N], [1, N], [M, 1], [M, N] or one value) is Gemm(A, B, C): a fully
// connected layer as some exporters write it, which the Gemm kernels take with C as the
// primitive's bias. The MatMul's output must be read by the Add alone and be no graph output;
// the Add's output (and name) becomes the Gemm's. Batched (rank > 2) MatMuls stay.
#pragma once

#include "ir/graph.h"

namespace ios {

// Returns the number of Gemm nodes made. Shapes must be inferred.
int MatMulAddToGemm(Graph& graph);

}  // namespace ios
