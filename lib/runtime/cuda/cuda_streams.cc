#include "runtime/cuda/cuda_streams.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "runtime/cuda/cublas_library.h"
#include "runtime/cuda/cuda_check.h"

namespace ios {
namespace {

// cuBLAS's recommended user workspace (cublasSetWorkspace): 32 MiB on Hopper and newer, 4 MiB
// before. With a workspace of its own per handle, cuBLAS never allocates during a capture.
size_t CublasWorkspaceBytes(int compute_major) {
  return compute_major >= 9 ? (size_t{32} << 20) : (size_t{4} << 20);
}

// Destructors cannot return a Status: they log what failed and go on releasing the rest.
void LogIfFailed(const Status& status) {
  if (!status.ok()) spdlog::warn("releasing CUDA resources: {}", status.message());
}

// Creates the stream and its handles into `context` (whose workspace is already set); on
// failure the caller releases what was created (ReleaseStreamContext skips null members).
Status InitStreamContext(CudaStreamContext& context, const DeviceBuffer& cublas_workspace,
                         bool allow_tf32) {
  // Non-blocking: no implicit synchronisation with the legacy default stream.
  IOS_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&context.stream, cudaStreamNonBlocking));
  IOS_CUDNN_RETURN_IF_ERROR(cudnnCreate(&context.cudnn));
  IOS_CUDNN_RETURN_IF_ERROR(cudnnSetStream(context.cudnn, context.stream));
  IOS_ASSIGN_OR_RETURN(const CublasFunctions* cublas, Cublas());
  IOS_CUBLAS_RETURN_IF_ERROR(cublas->create(&context.cublas));
  // cublasSetStream resets the handle's workspace to the default pool, so the user workspace
  // is set after it.
  IOS_CUBLAS_RETURN_IF_ERROR(cublas->set_stream(context.cublas, context.stream));
  IOS_CUBLAS_RETURN_IF_ERROR(
      cublas->set_workspace(context.cublas, cublas_workspace.data(), cublas_workspace.bytes()));
  IOS_CUBLAS_RETURN_IF_ERROR(cublas->set_math_mode(
      context.cublas, allow_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  return Status::Ok();
}

// Reverse order of creation; the stream is synchronised first so that no work still uses the
// handles or the workspaces freed after it.
void ReleaseStreamContext(CudaStreamContext& context) {
  if (context.stream != nullptr)
    LogIfFailed(CudaStatus(cudaStreamSynchronize(context.stream), "cudaStreamSynchronize", __FILE__,
                           __LINE__));
  // A handle exists only when cuBLAS loaded (InitStreamContext).
  if (context.cublas != nullptr)
    LogIfFailed(CublasStatus(Cublas().value()->destroy(context.cublas), "cublasDestroy", __FILE__,
                             __LINE__));
  if (context.cudnn != nullptr)
    LogIfFailed(CudnnStatus(cudnnDestroy(context.cudnn), "cudnnDestroy", __FILE__, __LINE__));
  if (context.stream != nullptr)
    LogIfFailed(
        CudaStatus(cudaStreamDestroy(context.stream), "cudaStreamDestroy", __FILE__, __LINE__));
  context = CudaStreamContext();
}

}  // namespace

// --- DeviceBuffer ---------------------------------------------------------------------------

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) LogIfFailed(CudaStatus(cudaFree(data_), "cudaFree", __FILE__, __LINE__));
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    DeviceBuffer old(std::move(*this));  // frees the current allocation when it goes
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

StatusOr<DeviceBuffer> DeviceBuffer::Allocate(size_t bytes) {
  DeviceBuffer buffer;
  if (bytes == 0) return buffer;
  // cudaMalloc memory is aligned to at least 256 bytes, as cuBLAS workspaces require.
  IOS_CUDA_RETURN_IF_ERROR(cudaMalloc(&buffer.data_, bytes));
  buffer.bytes_ = bytes;
  return buffer;
}

// --- PinnedHostBuffer -----------------------------------------------------------------------

PinnedHostBuffer::~PinnedHostBuffer() {
  if (data_ != nullptr)
    LogIfFailed(CudaStatus(cudaFreeHost(data_), "cudaFreeHost", __FILE__, __LINE__));
}

PinnedHostBuffer::PinnedHostBuffer(PinnedHostBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

PinnedHostBuffer& PinnedHostBuffer::operator=(PinnedHostBuffer&& other) noexcept {
  if (this != &other) {
    PinnedHostBuffer old(std::move(*this));
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

StatusOr<PinnedHostBuffer> PinnedHostBuffer::Allocate(size_t bytes) {
  PinnedHostBuffer buffer;
  if (bytes == 0) return buffer;
  IOS_CUDA_RETURN_IF_ERROR(cudaHostAlloc(&buffer.data_, bytes, cudaHostAllocDefault));
  buffer.bytes_ = bytes;
  return buffer;
}

// --- CudaStreamSet --------------------------------------------------------------------------

StatusOr<std::unique_ptr<CudaStreamSet>> CudaStreamSet::Create(
    const CudaStreamSetOptions& options) {
  if (options.num_streams < 1) return InvalidInput("a CUDA stream set needs at least one stream");
  if (options.num_events < 0) return InvalidInput("negative event count");
  IOS_CUDA_RETURN_IF_ERROR(cudaSetDevice(options.device));
  std::unique_ptr<CudaStreamSet> set(new CudaStreamSet());
  set->options_ = options;
  set->options_.workspace_bytes = 0;  // Reserve allocates it with the first stream
  // On failure `set` is destroyed here, releasing whatever was created so far.
  IOS_RETURN_IF_ERROR(
      set->Reserve(options.num_streams, options.num_events, options.workspace_bytes));
  return set;
}

Status CudaStreamSet::AddStream() {
  int compute_major = 0;
  IOS_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&compute_major, cudaDevAttrComputeCapabilityMajor, options_.device));
  IOS_ASSIGN_OR_RETURN(DeviceBuffer workspace, DeviceBuffer::Allocate(options_.workspace_bytes));
  IOS_ASSIGN_OR_RETURN(DeviceBuffer cublas_workspace,
                       DeviceBuffer::Allocate(CublasWorkspaceBytes(compute_major)));
  CudaStreamContext context;
  context.workspace = workspace.data();
  context.workspace_bytes = workspace.bytes();
  Status status = InitStreamContext(context, cublas_workspace, options_.allow_tf32);
  if (!status.ok()) {
    ReleaseStreamContext(context);
    return status;
  }
  streams_.push_back(context);
  workspaces_.push_back(std::move(workspace));
  cublas_workspaces_.push_back(std::move(cublas_workspace));
  return Status::Ok();
}

Status CudaStreamSet::Reserve(int num_streams, int num_events, size_t workspace_bytes) {
  IOS_CUDA_RETURN_IF_ERROR(cudaSetDevice(options_.device));
  if (workspace_bytes > options_.workspace_bytes) {
    // Existing streams get the larger cuDNN workspace; new streams are created with it.
    for (size_t s = 0; s < streams_.size(); ++s) {
      // Free first (the old and new need not fit together), once nothing can still use it.
      IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(streams_[s].stream));
      workspaces_[s] = DeviceBuffer();
      streams_[s].workspace = nullptr;
      streams_[s].workspace_bytes = 0;
      IOS_ASSIGN_OR_RETURN(workspaces_[s], DeviceBuffer::Allocate(workspace_bytes));
      streams_[s].workspace = workspaces_[s].data();
      streams_[s].workspace_bytes = workspaces_[s].bytes();
    }
    options_.workspace_bytes = workspace_bytes;
  }
  while (static_cast<int>(streams_.size()) < num_streams) IOS_RETURN_IF_ERROR(AddStream());
  while (static_cast<int>(events_.size()) < num_events) {
    cudaEvent_t event = nullptr;
    // Timing disabled: these events only order streams, and are cheaper so.
    IOS_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    events_.push_back(event);
  }
  return Status::Ok();
}

CudaStreamSet::~CudaStreamSet() {
  LogIfFailed(CudaStatus(cudaSetDevice(options_.device), "cudaSetDevice", __FILE__, __LINE__));
  // Every stream is drained before anything is destroyed: an event or workspace may still be in
  // use by another stream's work.
  for (const CudaStreamContext& context : streams_) {
    if (context.stream != nullptr)
      LogIfFailed(CudaStatus(cudaStreamSynchronize(context.stream), "cudaStreamSynchronize",
                             __FILE__, __LINE__));
  }
  for (auto event = events_.rbegin(); event != events_.rend(); ++event)
    LogIfFailed(CudaStatus(cudaEventDestroy(*event), "cudaEventDestroy", __FILE__, __LINE__));
  for (auto context = streams_.rbegin(); context != streams_.rend(); ++context)
    ReleaseStreamContext(*context);
  while (!cublas_workspaces_.empty()) cublas_workspaces_.pop_back();
  while (!workspaces_.empty()) workspaces_.pop_back();
}

}  // namespace ios
