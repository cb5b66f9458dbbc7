// Running a plan: a Session holds one plan loaded on one device (the CPU, or a CUDA GPU), its
// weights and its memory arena. Inputs and outputs are the caller's buffers, named as in the
// model: host memory for Run, and on a CUDA session device memory for RunOnDevice.
//
// Threads: Run may be called from several threads; the session runs one inference at a time
// (its arena is one), so concurrent calls wait their turn. For inferences in parallel, open a
// session per thread: the weights are then held once per session.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ios/compiler.h"
#include "ios/export.h"
#include "ios/status.h"

namespace ios {

enum class DataType { kUndefined, kFloat32, kFloat16, kFloat64, kInt8, kUInt8, kInt32, kInt64,
                      kBool };

IOS_API const char* DataTypeName(DataType dtype);
IOS_API size_t DataTypeSize(DataType dtype);  // bytes per element (0 for kUndefined)

struct TensorInfo {
  std::string name;
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> dims;
  size_t bytes = 0;  // the dense tensor's size, what Run's buffers must hold
};

// The caller's buffer for one input (read) or output (written), dense and row-major.
struct InputBuffer {
  std::string name;
  const void* data = nullptr;
  size_t bytes = 0;
};
struct OutputBuffer {
  std::string name;
  void* data = nullptr;
  size_t bytes = 0;
};

struct SessionOptions {
  // "cpu", "cuda" (device 0), "cuda:N" or "N"; "" = the kind of device the plan was made for.
  std::string device;
  int threads = 0;      // CPU: cores to use (0 = all)
  int max_streams = 0;  // 0 = one per group of the widest stage, up to the cores (CPU) or 8
  bool force = false;   // run a plan made for another device (its timings may not hold)
  bool verify = true;   // check the plan's SHA-256 digests as it is read, and that its schedule
                        // orders every two ops that touch the same bytes
  bool use_cuda_graph = true;  // CUDA: one CUDA Graph launch per inference
  // The ONNX model a weight-stripped plan was compiled from: its weights are rebuilt from it,
  // and another model is refused.
  std::string weights_model_path;
};

class IOS_API Session {
 public:
  static StatusOr<std::unique_ptr<Session>> Open(const std::string& plan_path,
                                                 const SessionOptions& options = {});
  static StatusOr<std::unique_ptr<Session>> FromBytes(const std::string& plan_bytes,
                                                      const SessionOptions& options = {});
  static StatusOr<std::unique_ptr<Session>> FromPlan(const Plan& plan,
                                                     const SessionOptions& options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  std::string device() const;  // "cpu" or "cuda:N"
  int64_t batch() const;

  // One inference: every input once by name, every output wanted by name (a subset is fine),
  // each buffer exactly TensorInfo::bytes long. Outputs are written before it returns.
  Status Run(const std::vector<InputBuffer>& inputs, const std::vector<OutputBuffer>& outputs);

  // CUDA sessions only: one inference on the caller's device memory, in order with the caller's
  // CUDA stream. `cuda_stream` is a cudaStream_t (nullptr: the legacy default stream). The
  // buffers follow Run's rules and may be device memory on the session's GPU, managed memory
  // or page-locked host memory; ordinary host memory is refused. The session waits (on the
  // GPU) for the work already enqueued on the stream, copies the inputs into its arena, runs
  // and copies the outputs out; the stream then waits for all of it. RunOnDevice returns once
  // that is enqueued: the outputs are ready, and the inputs may be overwritten, when the stream
  // reaches this point (cudaStreamSynchronize, or later work on the stream). Calls from several
  // threads take turns as Run's do, and run on the GPU in the order they were made.
  Status RunOnDevice(const std::vector<InputBuffer>& inputs,
                     const std::vector<OutputBuffer>& outputs, void* cuda_stream);

  struct Impl;  // opaque: the library's

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ios
