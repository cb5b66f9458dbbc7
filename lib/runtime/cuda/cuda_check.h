// Turning CUDA, cuDNN and cuBLAS status codes into ios Status values with the call and place.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "util/status.h"

namespace ios {

inline Status CudaStatus(cudaError_t error, const char* call, const char* file, int line) {
  if (error == cudaSuccess) return Status::Ok();
  return Internal(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                  cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")");
}

}  // namespace ios

#define IOS_CUDA_RETURN_IF_ERROR(call) \
  IOS_RETURN_IF_ERROR(::ios::CudaStatus((call), #call, __FILE__, __LINE__))
