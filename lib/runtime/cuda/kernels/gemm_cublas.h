// Row-major (strided batched) GEMM through cuBLAS, shared by the Gemm and MatMul kernels.
//
// cuBLAS is column-major; a row-major matrix read column-major is its transpose. So row-major
// C = op(A) op(B) is computed as column-major C^T = op(B)^T op(A)^T: cuBLAS gets B first, with
// m and n swapped, and each leading dimension is the row length of the row-major matrix.
//
// Math mode: the session creates the handles (CudaStreamSet sets their math mode from
// allow_tf32); the call also sets it itself (cublasSetMathMode only changes host-side handle
// state, nothing is enqueued, so it is allowed during stream capture) and passes the matching
// compute type (CUBLAS_COMPUTE_32F_FAST_TF32 or CUBLAS_COMPUTE_32F), so the kernel does not
// depend on how the handle was left. Scalars are host pointers (CUBLAS_POINTER_MODE_HOST).
#pragma once

#include <cublas_v2.h>

#include <cstdint>
#include <string>

#include "ir/graph.h"
#include "util/status.h"

namespace ios {

struct RowMajorGemm {
  bool trans_a = false;  // A is stored [k, m] (row-major) and used transposed
  bool trans_b = false;  // B is stored [n, k]
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  // Elements between consecutive matrices of the batch; 0 reuses one matrix for every batch.
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  float alpha = 1.f;
  float beta = 0.f;  // C is read only when beta != 0
};

// The arguments of the column-major cublasGemmStridedBatchedEx call, in its order: its first
// operand is the row-major B, its second the row-major A.
struct CublasGemmCall {
  cublasOperation_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  int m = 0, n = 0, k = 0;
  int lda = 0, ldb = 0, ldc = 0;
  long long stride_a = 0, stride_b = 0, stride_c = 0;
  int batch = 1;
};
CublasGemmCall ToCublasCall(const RowMajorGemm& gemm);

// Unsupported (prefixed with `label`) when a size does not fit cuBLAS's int arguments or a
// dimension is 0.
Status CheckRowMajorGemm(const std::string& label, const RowMajorGemm& gemm);

Status EnqueueRowMajorGemm(cublasHandle_t handle, const RowMajorGemm& gemm, const float* a,
                           const float* b, float* c, bool allow_tf32);

// The product of a Gemm node (without C: beta = 0; gemm_cuda.cc adds beta * C), and of a MatMul
// node (matmul_cuda.cc), from the operand dims; errors name the node.
StatusOr<RowMajorGemm> PlanGemmProduct(const Node& node, const Dims& a, const Dims& b);
StatusOr<RowMajorGemm> PlanMatMul(const Node& node, const Dims& a, const Dims& b);

}  // namespace ios
