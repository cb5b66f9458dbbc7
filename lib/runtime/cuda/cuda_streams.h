// The CUDA resources that run a command list: its streams, each with its own cuDNN handle,
// cuBLAS handle and workspace (so that no two concurrent streams share scratch memory), and its
// events. A session creates one set for a plan; the stage profiler creates one and grows it.
// Created once, reused for every run; nothing here allocates while work is being enqueued.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "runtime/cuda/kernels/cuda_kernel.h"
#include "util/status.h"

namespace ios {

// Device memory owned by one object (cudaMalloc / cudaFree).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  static StatusOr<DeviceBuffer> Allocate(size_t bytes);  // bytes == 0 gives an empty buffer
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

// Page-locked host memory owned by one object (cudaHostAlloc / cudaFreeHost), so that copies
// to and from the device are truly asynchronous.
class PinnedHostBuffer {
 public:
  PinnedHostBuffer() = default;
  ~PinnedHostBuffer();
  PinnedHostBuffer(PinnedHostBuffer&& other) noexcept;
  PinnedHostBuffer& operator=(PinnedHostBuffer&& other) noexcept;
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;

  static StatusOr<PinnedHostBuffer> Allocate(size_t bytes);  // bytes == 0 gives an empty buffer
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

struct CudaStreamSetOptions {
  int device = 0;
  int num_streams = 1;
  int num_events = 0;
  size_t workspace_bytes = 0;  // per stream, for cuDNN; cuBLAS gets its own per-stream workspace
  bool allow_tf32 = false;     // the cuBLAS math mode of every handle
};

class CudaStreamSet {
 public:
  // Sets the device, then creates non-blocking streams (never the legacy default stream),
  // handles bound to them, workspaces and events (timing disabled: they only order work).
  static StatusOr<std::unique_ptr<CudaStreamSet>> Create(const CudaStreamSetOptions& options);
  ~CudaStreamSet();  // destroys everything; failures are logged, not thrown
  CudaStreamSet(const CudaStreamSet&) = delete;
  CudaStreamSet& operator=(const CudaStreamSet&) = delete;

  int num_streams() const { return static_cast<int>(streams_.size()); }
  int num_events() const { return static_cast<int>(events_.size()); }
  const CudaStreamContext& stream(int index) const { return streams_[static_cast<size_t>(index)]; }
  cudaEvent_t event(int index) const { return events_[static_cast<size_t>(index)]; }
  cudaStream_t origin() const { return streams_[0].stream; }

  // Grow-only, for the profiler: more streams, events or workspace for the next stage. Must not
  // be called while work is in flight.
  Status Reserve(int num_streams, int num_events, size_t workspace_bytes);

 private:
  CudaStreamSet() = default;
  Status AddStream();

  CudaStreamSetOptions options_;
  std::vector<CudaStreamContext> streams_;
  std::vector<DeviceBuffer> workspaces_;         // cuDNN, per stream
  std::vector<DeviceBuffer> cublas_workspaces_;  // cuBLAS, per stream
  std::vector<cudaEvent_t> events_;
};

}  // namespace ios
