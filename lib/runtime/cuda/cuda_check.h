// Turning CUDA and cuDNN status codes into ios Status values with the call and place. Every call
// into these libraries goes through one of the IOS_*_RETURN_IF_ERROR macros (cuBLAS's is in
// cublas_library.h).
#pragma once

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string>

#include "util/status.h"

namespace ios {

inline std::string CudaCallPlace(const char* call, const char* file, int line) {
  return std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": ";
}

inline Status CudaStatus(cudaError_t error, const char* call, const char* file, int line) {
  if (error == cudaSuccess) return Status::Ok();
  int device = -1;
  // The device named in the message; cudaGetDevice itself can fail when there is none.
  std::string where =
      cudaGetDevice(&device) == cudaSuccess ? " on device " + std::to_string(device) : "";
  return Internal(CudaCallPlace(call, file, line) + cudaGetErrorName(error) + " (" +
                  cudaGetErrorString(error) + ")" + where);
}

inline Status CudnnStatus(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status == CUDNN_STATUS_SUCCESS) return Status::Ok();
  return Internal(CudaCallPlace(call, file, line) + cudnnGetErrorString(status));
}

// cuDNN 9 says "not supported" with sub-codes (CUDNN_STATUS_NOT_SUPPORTED_SHAPE, _LAYOUT, ...,
// 3001-3014) as well as the bare code; its category (CUDNN_STATUS_CATEGORY) is what tells.
inline bool IsCudnnNotSupported(cudnnStatus_t status) {
  return CUDNN_STATUS_CATEGORY(status) == CUDNN_STATUS_NOT_SUPPORTED;
}

}  // namespace ios

#define IOS_CUDA_RETURN_IF_ERROR(call) \
  IOS_RETURN_IF_ERROR(::ios::CudaStatus((call), #call, __FILE__, __LINE__))
#define IOS_CUDNN_RETURN_IF_ERROR(call) \
  IOS_RETURN_IF_ERROR(::ios::CudnnStatus((call), #call, __FILE__, __LINE__))
