#include "profile/cuda/stream_blocker.h"

#include <spdlog/spdlog.h>

#include <atomic>

#include "runtime/cuda/cuda_check.h"
#include "profile/cuda/stream_blocker_impl.h"

namespace ios {

StatusOr<std::unique_ptr<StreamBlocker>> StreamBlocker::Create() {
  std::unique_ptr<StreamBlocker> blocker(new StreamBlocker());
  void* host = nullptr;
  // Mapped: the kernel reads the host's writes directly; pinned memory is coherent with it.
  IOS_CUDA_RETURN_IF_ERROR(cudaHostAlloc(&host, 2 * sizeof(int32_t), cudaHostAllocMapped));
  blocker->flags_ = static_cast<int32_t*>(host);
  blocker->flags_[0] = 1;
  blocker->flags_[1] = 0;
  void* device = nullptr;
  IOS_CUDA_RETURN_IF_ERROR(cudaHostGetDevicePointer(&device, host, 0));
  blocker->device_flags_ = static_cast<int32_t*>(device);
  return blocker;
}

StreamBlocker::~StreamBlocker() {
  if (flags_ == nullptr) return;
  Release();
  auto log_if_failed = [](cudaError_t error, const char* call) {
    Status status = CudaStatus(error, call, __FILE__, __LINE__);
    if (!status.ok()) spdlog::warn("releasing the stream blocker: {}", status.message());
  };
  // The kernel may still read the flags until it sees the release.
  if (last_ != nullptr) log_if_failed(cudaStreamSynchronize(last_), "cudaStreamSynchronize");
  log_if_failed(cudaFreeHost(flags_), "cudaFreeHost");
}

Status StreamBlocker::Block(cudaStream_t stream, double timeout_ms) {
  if (held_ != nullptr) return Internal("the stream blocker is still holding a stream");
  if (!(timeout_ms > 0)) return Internal("the stream blocker needs a positive timeout");
  // A kernel of the last block must have seen its release before the flag is cleared again.
  if (last_ != nullptr) IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(last_));
  reinterpret_cast<volatile int32_t*>(flags_)[0] = 0;
  reinterpret_cast<volatile int32_t*>(flags_)[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const auto timeout_ns = static_cast<uint64_t>(timeout_ms * 1e6);
  IOS_CUDA_RETURN_IF_ERROR(
      LaunchBlockUntilReleased(device_flags_, device_flags_ + 1, timeout_ns, stream));
  held_ = stream;
  last_ = stream;
  return Status::Ok();
}

void StreamBlocker::Release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  reinterpret_cast<volatile int32_t*>(flags_)[0] = 1;
  held_ = nullptr;
}

bool StreamBlocker::timed_out() const {
  return reinterpret_cast<const volatile int32_t*>(flags_)[1] != 0;
}

StatusOr<double> TimeHeldRuns(StreamBlocker* blocker, cudaStream_t stream, cudaEvent_t start,
                              cudaEvent_t stop, int runs, const std::function<Status()>& enqueue,
                              bool* timed_out, double timeout_ms) {
  if (runs < 1) return Internal("a timing sample needs at least one run");
  if (blocker != nullptr) IOS_RETURN_IF_ERROR(blocker->Block(stream, timeout_ms));
  Status queued = [&]() -> Status {
    IOS_CUDA_RETURN_IF_ERROR(cudaEventRecord(start, stream));
    for (int i = 0; i < runs; ++i) IOS_RETURN_IF_ERROR(enqueue());
    IOS_CUDA_RETURN_IF_ERROR(cudaEventRecord(stop, stream));
    return Status::Ok();
  }();
  if (blocker != nullptr) blocker->Release();
  IOS_RETURN_IF_ERROR(queued);
  IOS_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(stop));
  *timed_out = blocker != nullptr && blocker->timed_out();
  float elapsed_ms = 0;
  IOS_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&elapsed_ms, start, stop));
  return static_cast<double>(elapsed_ms) / runs;
}

}  // namespace ios
