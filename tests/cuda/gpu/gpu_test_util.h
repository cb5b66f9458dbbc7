// For tests that need a CUDA device: skip, with the reason, when there is none; and move test
// data on the stream that uses it.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>

#include "runtime/cuda/cuda_device.h"

#define IOS_SKIP_WITHOUT_GPU()                                             \
  do {                                                                     \
    auto ios_device_ = ::ios::QueryCudaDevice(0);                          \
    if (!ios_device_.ok()) GTEST_SKIP() << ios_device_.status().message(); \
  } while (0)

namespace ios::testing {

// Test data goes to and from the device on the stream that uses it, and is waited for: the
// streams of a CudaStreamSet are non-blocking, so they do not wait for work on the legacy
// default stream (cudaMemset is asynchronous, and cudaMemcpy from pageable memory may return
// before the bytes reach the device).
inline cudaError_t UploadOn(cudaStream_t stream, void* device, const void* host, size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  const cudaError_t copied = cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream);
  return copied != cudaSuccess ? copied : cudaStreamSynchronize(stream);
}

inline cudaError_t FillOn(cudaStream_t stream, void* device, int byte, size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  const cudaError_t filled = cudaMemsetAsync(device, byte, bytes, stream);
  return filled != cudaSuccess ? filled : cudaStreamSynchronize(stream);
}

inline cudaError_t DownloadOn(cudaStream_t stream, void* host, const void* device, size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  const cudaError_t copied = cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream);
  return copied != cudaSuccess ? copied : cudaStreamSynchronize(stream);
}

}  // namespace ios::testing
