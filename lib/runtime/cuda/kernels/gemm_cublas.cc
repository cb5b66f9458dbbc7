#include "runtime/cuda/kernels/gemm_cublas.h"

#include <limits>

#include "runtime/cuda/cublas_library.h"

namespace ios {

Status CheckRowMajorGemm(const std::string& label, const RowMajorGemm& gemm) {
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  for (int64_t v : {gemm.m, gemm.n, gemm.k, gemm.batch}) {
    if (v < 1) return Unsupported(label + "a matrix product with an empty dimension");
    if (v > kIntMax) return Unsupported(label + "a matrix dimension exceeds cuBLAS's int32");
  }
  return Status::Ok();
}

CublasGemmCall ToCublasCall(const RowMajorGemm& gemm) {
  CublasGemmCall call;
  // Column-major C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m).
  call.transa = gemm.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  call.transb = gemm.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  call.m = static_cast<int>(gemm.n);
  call.n = static_cast<int>(gemm.m);
  call.k = static_cast<int>(gemm.k);
  // Leading dimensions: the row length of each row-major matrix as stored.
  call.lda = static_cast<int>(gemm.trans_b ? gemm.k : gemm.n);
  call.ldb = static_cast<int>(gemm.trans_a ? gemm.m : gemm.k);
  call.ldc = static_cast<int>(gemm.n);
  call.stride_a = gemm.stride_b;
  call.stride_b = gemm.stride_a;
  call.stride_c = gemm.stride_c;
  call.batch = static_cast<int>(gemm.batch);
  return call;
}

Status EnqueueRowMajorGemm(cublasHandle_t handle, const RowMajorGemm& gemm, const float* a,
                           const float* b, float* c, bool allow_tf32) {
  const CublasGemmCall call = ToCublasCall(gemm);
  IOS_ASSIGN_OR_RETURN(const CublasFunctions* cublas, Cublas());
  IOS_CUBLAS_RETURN_IF_ERROR(cublas->set_pointer_mode(handle, CUBLAS_POINTER_MODE_HOST));
  IOS_CUBLAS_RETURN_IF_ERROR(
      cublas->set_math_mode(handle, allow_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  const cublasComputeType_t compute =
      allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  IOS_CUBLAS_RETURN_IF_ERROR(cublas->gemm_strided_batched_ex(
      handle, call.transa, call.transb, call.m, call.n, call.k, &gemm.alpha, b, CUDA_R_32F,
      call.lda, call.stride_a, a, CUDA_R_32F, call.ldb, call.stride_b, &gemm.beta, c, CUDA_R_32F,
      call.ldc, call.stride_c, call.batch, compute, CUBLAS_GEMM_DEFAULT));
  return Status::Ok();
}

}  // namespace ios
