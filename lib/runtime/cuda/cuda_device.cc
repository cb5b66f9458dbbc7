#include "runtime/cuda/cuda_device.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "runtime/cuda/cuda_check.h"

namespace ios {

StatusOr<CudaDeviceInfo> QueryCudaDevice(int ordinal) {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    return InvalidInput(std::string("no CUDA device: cudaGetDeviceCount failed: ") +
                        cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")");
  }
  if (ordinal < 0 || ordinal >= count) {
    return InvalidInput("no CUDA device " + std::to_string(ordinal) + ": this machine has " +
                        std::to_string(count));
  }
  cudaDeviceProp prop{};
  IOS_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, ordinal));
  CudaDeviceInfo info;
  info.ordinal = ordinal;
  info.name = prop.name;
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  IOS_CUDA_RETURN_IF_ERROR(cudaDriverGetVersion(&info.driver_version));
  IOS_CUDA_RETURN_IF_ERROR(cudaRuntimeGetVersion(&info.runtime_version));
  info.cudnn_version = cudnnGetVersion();
  return info;
}

}  // namespace ios
