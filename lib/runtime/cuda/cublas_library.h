// cuBLAS, opened on first use instead of linked.
//
// libcublas.so loads libcublasLt.so, and their start-up relocations cost every process that
// links them about 150 MiB of resident memory and 0.1 s, whether it touches a GPU or not. So
// the CUDA backend reaches cuBLAS through this table, and a CPU-only run never loads it.
#pragma once

#include <cublas_v2.h>

#include <string>

#include "util/status.h"

namespace ios {

// cublas_api.h also declares an inline C++ overload of cublasGemmStridedBatchedEx (with the
// compute type as a cudaDataType), so the exported one is named by its signature; the .cc checks
// it against the declaration.
using CublasGemmStridedBatchedEx = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*,
    cudaDataType, int, long long, const void*, cudaDataType, int, long long, const void*, void*,
    cudaDataType, int, long long, int, cublasComputeType_t, cublasGemmAlgo_t);

// The cuBLAS functions the CUDA backend calls, typed by their declarations in cublas_v2.h.
struct CublasFunctions {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetWorkspace_v2) set_workspace = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSetPointerMode_v2) set_pointer_mode = nullptr;
  CublasGemmStridedBatchedEx gemm_strided_batched_ex = nullptr;
  decltype(&cublasGetStatusName) get_status_name = nullptr;
  decltype(&cublasGetStatusString) get_status_string = nullptr;
};

// The soname of the cuBLAS that ios was built against: libcublas.so.<CUBLAS_VER_MAJOR>.
std::string CublasLibraryName();

// Loads cuBLAS once per process (thread-safe) and returns its functions; later calls return the
// same table, or the same error. The library is looked up as the dynamic loader does
// (LD_LIBRARY_PATH, the binary's run path, the loader's cache), then beside the CUDA runtime
// that ios loaded. The error names the library or the missing function.
StatusOr<const CublasFunctions*> Cublas();

// OK for CUBLAS_STATUS_SUCCESS; otherwise an error naming the call, the place and the status.
Status CublasStatus(cublasStatus_t status, const char* call, const char* file, int line);

}  // namespace ios

#define IOS_CUBLAS_RETURN_IF_ERROR(call) \
  IOS_RETURN_IF_ERROR(::ios::CublasStatus((call), #call, __FILE__, __LINE__))
