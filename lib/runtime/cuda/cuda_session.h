// Runs a loaded plan on one CUDA device: one device arena from the memory plan, every constant
// uploaded once into one weights buffer, one kernel per op, the schedule lowered once into
// per-stream commands and either captured into a CUDA Graph (launched once per inference) or
// replayed onto the streams each time. Create runs the plan once (RunOnceThenCapture,
// cuda_replay.h) before capturing it; a capture that fails leaves the session replaying, with a
// warning (capture_fallback()). The CUDA counterpart of CpuSession.
//
// Everything runs in order on the origin stream: input copies, the inference (whose other
// streams fork from and join back into the origin), output copies. Use a session from one host
// thread at a time; SetInputs, Run and GetOutputs make the session's device current.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plan/plan_loader.h"
#include "runtime/command_list.h"
#include "runtime/cuda/kernels/cuda_kernel.h"
#include "runtime/cuda/cuda_replay.h"
#include "runtime/cuda/cuda_streams.h"
#include "runtime/node_buffers.h"
#include "util/status.h"

namespace ios {

struct CudaSessionOptions {
  int device = 0;
  bool use_cuda_graph = true;  // false: replay the commands onto the streams every run
  int max_streams = 0;  // 0 = one per group of the widest stage, capped at kMaxAutoCudaStreams
  // Check that the command list orders every two ops that touch the same bytes
  // (runtime/plan_ordering.h) before anything is allocated.
  bool check_ordering = true;
};

inline constexpr int kMaxAutoCudaStreams = 8;

// The streams a session uses: `requested`, or one per group of the widest stage, at most
// kMaxAutoCudaStreams. Host logic, exposed for tests.
int CudaSessionStreams(const Schedule& schedule, int requested);

// Refuses (Unsupported, naming every such node and its op) a graph with an op that the CUDA
// backend has no kernel for. Needs no device.
Status CheckCudaSupportsGraph(const Graph& graph);
// Unsupported, naming the first, when a tensor is stored channels-last (ir/layout.h): the layout
// iosc gives CPU plans, which the CUDA kernels do not take.
Status CheckCudaLayouts(const Graph& graph);

class CudaSession : public CudaOpLauncher {
 public:
  static StatusOr<std::unique_ptr<CudaSession>> Create(LoadedPlan plan,
                                                       const CudaSessionOptions& options);
  ~CudaSession() override;  // waits for the session's work, then releases everything
  CudaSession(const CudaSession&) = delete;
  CudaSession& operator=(const CudaSession&) = delete;

  // Checks count, dtype and shape against the plan's inputs, copies them into the pinned
  // staging buffers and enqueues the copies to the device. Returns without waiting.
  Status SetInputs(const std::vector<Tensor>& inputs);
  // Enqueues one inference (one cudaGraphLaunch, or the replayed commands). Returns without
  // waiting.
  Status Run();
  Status Synchronize();  // waits for everything enqueued on the origin
  // One inference replayed command by command with timing events around each, waited for, its
  // GPU times in `trace` (iosrun --trace/--profile; see TraceCommands for the overhead).
  Status RunTraced(RunTrace* trace);
  // Copies the outputs back and waits for them.
  StatusOr<std::vector<Tensor>> GetOutputs();

  // One inference on the caller's device buffers, in order with the caller's `stream`: the
  // origin waits for the work already on `stream`, copies `inputs` (one pointer per graph
  // input, in order) into the arena, runs, copies the chosen outputs (graph output index and
  // pointer) out, and `stream` then waits for all of it. Returns without waiting; the outputs
  // are ready, and the inputs free to reuse, when `stream` reaches this point. Every pointer
  // must pass CheckDevicePointer (cuda_pointer.h) and hold the tensor's bytes.
  Status RunOnStream(const std::vector<const void*>& inputs,
                     const std::vector<std::pair<size_t, void*>>& outputs, cudaStream_t stream);

  // For the benchmark: the pieces of one inference, each only enqueued on the origin.
  Status EnqueueInputCopies();   // staging buffers -> device (what SetInputs last staged)
  Status EnqueueOutputCopies();  // device -> staging buffers
  // GPU compute time with timing events on the origin: record the start, enqueue, record the
  // stop; ComputeMilliseconds waits for the stop event and returns the time between the two.
  Status RecordComputeStart();
  Status RecordComputeStop();
  StatusOr<double> ComputeMilliseconds();

  const Graph& graph() const { return plan_.graph; }
  const Schedule& schedule() const { return plan_.schedule; }
  const plan::Plan& meta() const { return plan_.meta; }
  const CommandList& commands() const { return commands_; }
  int64_t batch() const { return plan_.meta.batch(); }
  bool uses_cuda_graph() const { return graph_exec_.valid(); }
  // Why the plan runs without its CUDA Graph although one was asked for (empty otherwise).
  const std::string& capture_fallback() const { return capture_fallback_; }
  int device() const { return device_; }

  // CudaOpLauncher: the node's kernel on its buffers.
  Status Enqueue(NodeId op, const CudaStreamContext& stream) override;

 private:
  CudaSession() = default;
  Status Init(const CudaSessionOptions& options);
  Status CreateKernels(cudnnHandle_t query_handle, size_t* workspace_bytes);
  Status AllocateMemory();
  Status AllocateStaging();

  LoadedPlan plan_;
  int device_ = 0;
  CommandList commands_;
  std::unique_ptr<CudaStreamSet> streams_;
  DeviceBuffer arena_;
  DeviceBuffer weights_;
  std::vector<void*> value_ptr_;  // per ValueId: device pointer in the arena or the weights
  std::vector<PinnedHostBuffer> input_staging_;       // per graph input
  std::vector<PinnedHostBuffer> output_staging_;      // per graph output
  std::vector<std::unique_ptr<CudaKernel>> kernels_;  // per NodeId (null for dead nodes)
  std::vector<bool> redundant_;  // per NodeId: skipped, its slices are views (tensor_views.h)
  std::vector<NodeBuffers> op_buffers_;  // per NodeId, resolved once
  CudaGraphExec graph_exec_;
  std::string capture_fallback_;
  cudaEvent_t compute_start_ = nullptr;  // timing enabled, unlike the stream set's events
  cudaEvent_t compute_stop_ = nullptr;
  cudaEvent_t caller_ready_ = nullptr;  // RunOnStream: the caller's work before the inference
  cudaEvent_t caller_done_ = nullptr;   // RunOnStream: the inference and its copies
};

}  // namespace ios
