#include "runtime/cuda/cuda_session.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "ir/fused_activation.h"
#include "plan/tensor_views.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/cuda_pointer.h"
#include "runtime/plan_ordering.h"
#include "runtime/session_inputs.h"

namespace ios {
namespace {

// Device placements start on this boundary, which every CUDA and cuDNN access pattern accepts.
constexpr int64_t kDeviceAlignment = 256;

size_t AlignUp(size_t bytes) {
  const size_t a = static_cast<size_t>(kDeviceAlignment);
  return (bytes + a - 1) / a * a;
}

void LogSessionReleaseFailure(cudaError_t error, const char* call) {
  Status status = CudaStatus(error, call, __FILE__, __LINE__);
  if (!status.ok()) spdlog::warn("releasing a CUDA session: {}", status.message());
}

// Every placement (other than a view inside another value) must start on the device alignment,
// and every one must lie inside the arena.
Status CheckDevicePlacements(const Graph& graph, const MemoryPlan& memory) {
  for (const TensorPlacement& p : memory.placements) {
    const Value& value = graph.values[p.value];
    const bool aligned = p.view_of == kNoValue
                             ? p.offset % kDeviceAlignment == 0
                             : p.offset % static_cast<int64_t>(DTypeSize(value.dtype)) == 0;
    if (!aligned || p.offset < 0 || p.offset + p.bytes > memory.arena_bytes) {
      return InvalidInput("tensor '" + value.name + "' is placed at offset " +
                          std::to_string(p.offset) + ", which the CUDA backend cannot use (it " +
                          "needs " + std::to_string(kDeviceAlignment) +
                          "-byte aligned offsets inside the arena)");
    }
  }
  return Status::Ok();
}

}  // namespace

int CudaSessionStreams(const Schedule& schedule, int requested) {
  if (requested > 0) return requested;
  int widest = 1;
  for (const ScheduleBlock& block : schedule.blocks)
    for (const ScheduleStage& stage : block.stages)
      widest = std::max(widest, static_cast<int>(stage.groups.size()));
  return std::min(widest, kMaxAutoCudaStreams);
}

Status CheckCudaSupportsGraph(const Graph& graph) {
  std::string missing;
  int count = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    // A fused residual is a CPU plan's (passes/fuse_residual_add.h), as is an activation fused
    // into anything but a conv (passes/fuse_activation.h: FuseBatchNormActivations).
    const bool cpu_fusion =
        HasFusedResidual(node) ||
        (node.op_type != "Conv" && GetFusedActivation(node.attrs).kind != ActivationKind::kNone);
    if (node.dead || (CudaSupportsOp(node.op_type) && !cpu_fusion)) continue;
    if (count++ < 8)
      missing += (missing.empty() ? "" : ", ") + ("'" + node.name + "' (" + node.op_type + ")");
  }
  if (count == 0) return Status::Ok();
  if (count > 8) missing += " and " + std::to_string(count - 8) + " more";
  return Unsupported("the CUDA backend has no kernel for node(s) " + missing);
}

Status CheckCudaLayouts(const Graph& graph) {
  int count = 0;
  const Value* first = nullptr;
  for (const Value& value : graph.values) {
    if (value.layout == Layout::kRowMajor) continue;
    if (first == nullptr) first = &value;
    ++count;
  }
  if (first == nullptr) return Status::Ok();
  return Unsupported("tensor '" + first->name + "' and " + std::to_string(count - 1) +
                     " more are stored " + LayoutName(first->layout) +
                     " or otherwise not row-major, as iosc lays out plans for the CPU; the "
                     "CUDA backend runs row-major plans: compile this model for the GPU "
                     "(iosc --device N, or sim:NAME) or with --layout row-major");
}

StatusOr<std::unique_ptr<CudaSession>> CudaSession::Create(LoadedPlan plan,
                                                           const CudaSessionOptions& options) {
  std::unique_ptr<CudaSession> session(new CudaSession());
  session->plan_ = std::move(plan);
  IOS_RETURN_IF_ERROR(session->Init(options));
  return session;
}

Status CudaSession::Init(const CudaSessionOptions& options) {
  const Graph& graph = plan_.graph;
  device_ = options.device;
  // Host-only checks first: nothing is allocated for a plan that cannot run.
  IOS_RETURN_IF_ERROR(CheckCudaSupportsGraph(graph));
  IOS_RETURN_IF_ERROR(CheckCudaLayouts(graph));
  IOS_RETURN_IF_ERROR(CheckDevicePlacements(graph, plan_.memory));
  const int max_streams = CudaSessionStreams(plan_.schedule, options.max_streams);
  IOS_ASSIGN_OR_RETURN(commands_, LowerToCommands(graph, plan_.schedule, max_streams, 1));
  if (options.check_ordering)
    IOS_RETURN_IF_ERROR(CheckPlanOrdering(graph, commands_, plan_.memory));
  // "no CUDA device ..." with the CUDA error text, rather than a failing cudaSetDevice.
  IOS_RETURN_IF_ERROR(QueryCudaDevice(device_).status());

  // Streams and handles without cuDNN workspace: the kernels say how much they need.
  CudaStreamSetOptions stream_options;
  stream_options.device = device_;
  stream_options.num_streams = std::max<int>(1, static_cast<int>(commands_.streams.size()));
  stream_options.num_events = commands_.num_events;
  stream_options.allow_tf32 = plan_.meta.cuda().allow_tf32();
  IOS_ASSIGN_OR_RETURN(streams_, CudaStreamSet::Create(stream_options));
  size_t workspace_bytes = 0;
  IOS_RETURN_IF_ERROR(CreateKernels(streams_->stream(0).cudnn, &workspace_bytes));
  IOS_RETURN_IF_ERROR(
      streams_->Reserve(streams_->num_streams(), streams_->num_events(), workspace_bytes));
  IOS_RETURN_IF_ERROR(AllocateMemory());
  IOS_RETURN_IF_ERROR(AllocateStaging());
  IOS_CUDA_RETURN_IF_ERROR(cudaEventCreate(&compute_start_));
  IOS_CUDA_RETURN_IF_ERROR(cudaEventCreate(&compute_stop_));
  IOS_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&caller_ready_, cudaEventDisableTiming));
  IOS_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&caller_done_, cudaEventDisableTiming));

  // The plan runs once now, on the zeroed arena, whether or not it is captured: the libraries'
  // first-use setup happens outside the capture, and a kernel that cannot run fails here.
  if (!options.use_cuda_graph)
    return RunCommandsAndWait(commands_, *streams_, *this).WithContext("the plan's first run");
  IOS_ASSIGN_OR_RETURN(CapturedCommands captured, RunOnceThenCapture(commands_, *streams_, *this));
  if (!captured.capture_status.ok()) {
    capture_fallback_ = captured.capture_status.message();
    spdlog::warn(
        "the plan could not be captured into a CUDA Graph ({}); its commands are replayed on the "
        "streams at every run instead, as with --no-cuda-graph",
        capture_fallback_);
    return Status::Ok();
  }
  graph_exec_ = std::move(captured.graph);
  return Status::Ok();
}

Status CudaSession::CreateKernels(cudnnHandle_t query_handle, size_t* workspace_bytes) {
  const Graph& graph = plan_.graph;
  std::map<NodeId, const plan::ConvAlgorithm*> conv_algorithms;
  for (const plan::ConvAlgorithm& algorithm : plan_.meta.cuda().conv_algorithms())
    conv_algorithms[static_cast<NodeId>(algorithm.op())] = &algorithm;

  const std::vector<std::vector<bool>> in_place = SlicesInPlace(graph, plan_.memory);
  redundant_ = OpsMadeRedundantByViews(in_place);
  const std::vector<int64_t> value_strides = BatchStridesOfValues(graph, plan_.memory);
  kernels_.resize(graph.nodes.size());
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.dead || redundant_[n]) continue;  // a skipped Concat or Split needs no kernel
    CudaKernelContext context = MakeCudaKernelContext(graph, node);
    IOS_ASSIGN_OR_RETURN(context.batch_strides,
                         BatchStridesOfNode(graph, static_cast<NodeId>(n), value_strides,
                                            in_place[n], CudaKernelCaps()));
    auto found = conv_algorithms.find(static_cast<NodeId>(n));
    context.conv_algorithm = found == conv_algorithms.end() ? nullptr : found->second;
    context.allow_tf32 = plan_.meta.cuda().allow_tf32();
    context.cudnn = query_handle;
    IOS_ASSIGN_OR_RETURN(kernels_[n], CreateCudaKernel(context));
    *workspace_bytes = std::max(*workspace_bytes, kernels_[n]->WorkspaceBytes());
  }
  return Status::Ok();
}

Status CudaSession::AllocateMemory() {
  const Graph& graph = plan_.graph;
  // Every constant in one buffer, each at an aligned offset, uploaded with one copy.
  std::vector<size_t> offsets(graph.values.size(), 0);
  size_t total = 0;
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (!graph.values[v].constant) continue;
    offsets[v] = total;
    total += AlignUp(graph.values[v].constant->num_bytes());
  }
  // Refused before allocating, with the sizes, rather than failing on a cudaMalloc.
  size_t free_bytes = 0;
  size_t device_bytes = 0;
  IOS_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &device_bytes));
  const double needed_mib =
      (static_cast<double>(plan_.memory.arena_bytes) + static_cast<double>(total)) / (1 << 20);
  if (needed_mib > static_cast<double>(free_bytes) / (1 << 20)) {
    return InvalidInput("the plan's arena and weights need " + std::to_string(needed_mib) +
                        " MiB of GPU memory, more than the " + std::to_string(free_bytes >> 20) +
                        " MiB free on device " + std::to_string(device_) + " (of " +
                        std::to_string(device_bytes >> 20) +
                        " MiB); compile with a smaller --batch or --input-shape");
  }
  IOS_ASSIGN_OR_RETURN(arena_,
                       DeviceBuffer::Allocate(static_cast<size_t>(plan_.memory.arena_bytes)));
  value_ptr_.assign(graph.values.size(), nullptr);
  auto* arena = static_cast<uint8_t*>(arena_.data());
  for (const TensorPlacement& p : plan_.memory.placements)
    value_ptr_[p.value] = arena == nullptr ? nullptr : arena + p.offset;

  std::vector<uint8_t> host(total, 0);
  for (size_t v = 0; v < graph.values.size(); ++v) {
    const Value& value = graph.values[v];
    if (value.constant && value.constant->num_bytes() > 0)
      std::memcpy(host.data() + offsets[v], value.constant->raw(), value.constant->num_bytes());
  }
  IOS_ASSIGN_OR_RETURN(weights_, DeviceBuffer::Allocate(total));
  // On the origin stream, then waited for: the session's streams are non-blocking, so they
  // would not wait for a copy on the legacy default stream (cudaMemcpy from pageable memory may
  // return before the data has reached the device). The arena starts zeroed, as on the CPU.
  const cudaStream_t origin = streams_->origin();
  if (total > 0) {
    IOS_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(weights_.data(), host.data(), total, cudaMemcpyHostToDevice, origin));
  }
  if (arena_.bytes() > 0)
    IOS_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(arena_.data(), 0, arena_.bytes(), origin));
  IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(origin));
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (graph.values[v].constant)
      value_ptr_[v] = static_cast<uint8_t*>(weights_.data()) + offsets[v];
  }

  // Each op's buffers, resolved once so that enqueueing does no lookups.
  IOS_ASSIGN_OR_RETURN(op_buffers_, ResolveNodeBuffers(graph, value_ptr_));
  return Status::Ok();
}

Status CudaSession::AllocateStaging() {
  const Graph& graph = plan_.graph;
  for (ValueId id : graph.inputs) {
    IOS_ASSIGN_OR_RETURN(
        PinnedHostBuffer buffer,
        PinnedHostBuffer::Allocate(static_cast<size_t>(ValueBytes(graph.values[id]))));
    input_staging_.push_back(std::move(buffer));
  }
  for (ValueId id : graph.outputs) {
    IOS_ASSIGN_OR_RETURN(
        PinnedHostBuffer buffer,
        PinnedHostBuffer::Allocate(static_cast<size_t>(ValueBytes(graph.values[id]))));
    output_staging_.push_back(std::move(buffer));
  }
  return Status::Ok();
}

CudaSession::~CudaSession() {
  if (!streams_) return;  // refused before touching the device: nothing to release here
  LogSessionReleaseFailure(cudaSetDevice(device_), "cudaSetDevice");
  // The members (graph, kernels, buffers, streams) go after this body; no work may still use
  // them then.
  for (int s = 0; s < streams_->num_streams(); ++s)
    LogSessionReleaseFailure(cudaStreamSynchronize(streams_->stream(s).stream),
                             "cudaStreamSynchronize");
  if (caller_done_ != nullptr)
    LogSessionReleaseFailure(cudaEventDestroy(caller_done_), "cudaEventDestroy");
  if (caller_ready_ != nullptr)
    LogSessionReleaseFailure(cudaEventDestroy(caller_ready_), "cudaEventDestroy");
  if (compute_stop_ != nullptr)
    LogSessionReleaseFailure(cudaEventDestroy(compute_stop_), "cudaEventDestroy");
  if (compute_start_ != nullptr)
    LogSessionReleaseFailure(cudaEventDestroy(compute_start_), "cudaEventDestroy");
}

Status CudaSession::SetInputs(const std::vector<Tensor>& inputs) {
  const Graph& graph = plan_.graph;
  IOS_RETURN_IF_ERROR(CheckSessionInputs(graph, inputs));
  IOS_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  // A previous copy may still read the staging buffers: wait before overwriting them.
  IOS_RETURN_IF_ERROR(Synchronize());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].num_bytes() > 0)
      std::memcpy(input_staging_[i].data(), inputs[i].raw(), inputs[i].num_bytes());
  }
  return EnqueueInputCopies();
}

Status CudaSession::EnqueueInputCopies() {
  const Graph& graph = plan_.graph;
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    if (input_staging_[i].bytes() == 0) continue;
    IOS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(value_ptr_[graph.inputs[i]], input_staging_[i].data(),
                                             input_staging_[i].bytes(), cudaMemcpyHostToDevice,
                                             streams_->origin()));
  }
  return Status::Ok();
}

Status CudaSession::EnqueueOutputCopies() {
  const Graph& graph = plan_.graph;
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    if (output_staging_[i].bytes() == 0) continue;
    IOS_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(output_staging_[i].data(), value_ptr_[graph.outputs[i]],
                        output_staging_[i].bytes(), cudaMemcpyDeviceToHost, streams_->origin()));
  }
  return Status::Ok();
}

Status CudaSession::Run() {
  // The calling thread's current device may differ from the one the session was made on.
  IOS_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  if (graph_exec_.valid()) return graph_exec_.Launch(streams_->origin());
  return ReplayCommands(commands_, *streams_, *this);
}

Status CudaSession::RunTraced(RunTrace* trace) {
  IOS_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  IOS_RETURN_IF_ERROR(Synchronize());  // the streams must be idle
  return TraceCommands(commands_, *streams_, *this, trace);
}

Status CudaSession::Synchronize() {
  IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(streams_->origin()));
  return Status::Ok();
}

StatusOr<std::vector<Tensor>> CudaSession::GetOutputs() {
  IOS_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  IOS_RETURN_IF_ERROR(EnqueueOutputCopies());
  IOS_RETURN_IF_ERROR(Synchronize());
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < plan_.graph.outputs.size(); ++i) {
    const Value& value = plan_.graph.values[plan_.graph.outputs[i]];
    Tensor t(value.dtype, value.dims);
    if (t.num_bytes() > 0) std::memcpy(t.raw(), output_staging_[i].data(), t.num_bytes());
    outputs.push_back(std::move(t));
  }
  return outputs;
}

Status CudaSession::RunOnStream(const std::vector<const void*>& inputs,
                                const std::vector<std::pair<size_t, void*>>& outputs,
                                cudaStream_t stream) {
  const Graph& graph = plan_.graph;
  if (inputs.size() != graph.inputs.size())
    return InvalidInput("the plan has " + std::to_string(graph.inputs.size()) + " inputs, " +
                        std::to_string(inputs.size()) + " were given");
  IOS_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& value = graph.values[graph.inputs[i]];
    if (ValueBytes(value) > 0)
      IOS_RETURN_IF_ERROR(CheckDevicePointer(inputs[i], device_, "input '" + value.name + "'"));
  }
  for (const auto& [index, pointer] : outputs) {
    if (index >= graph.outputs.size())
      return InvalidInput("the plan has no output " + std::to_string(index));
    const Value& value = graph.values[graph.outputs[index]];
    if (ValueBytes(value) > 0)
      IOS_RETURN_IF_ERROR(CheckDevicePointer(pointer, device_, "output '" + value.name + "'"));
  }
  const cudaStream_t origin = streams_->origin();
  IOS_CUDA_RETURN_IF_ERROR(cudaEventRecord(caller_ready_, stream));
  IOS_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(origin, caller_ready_, 0));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t bytes = static_cast<size_t>(ValueBytes(graph.values[graph.inputs[i]]));
    if (bytes == 0) continue;
    IOS_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(value_ptr_[graph.inputs[i]], inputs[i], bytes, cudaMemcpyDefault, origin));
  }
  IOS_RETURN_IF_ERROR(Run());
  for (const auto& [index, pointer] : outputs) {
    const size_t bytes = static_cast<size_t>(ValueBytes(graph.values[graph.outputs[index]]));
    if (bytes == 0) continue;
    IOS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(pointer, value_ptr_[graph.outputs[index]], bytes,
                                             cudaMemcpyDefault, origin));
  }
  IOS_CUDA_RETURN_IF_ERROR(cudaEventRecord(caller_done_, origin));
  IOS_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(stream, caller_done_, 0));
  return Status::Ok();
}

Status CudaSession::RecordComputeStart() {
  IOS_CUDA_RETURN_IF_ERROR(cudaEventRecord(compute_start_, streams_->origin()));
  return Status::Ok();
}

Status CudaSession::RecordComputeStop() {
  IOS_CUDA_RETURN_IF_ERROR(cudaEventRecord(compute_stop_, streams_->origin()));
  return Status::Ok();
}

StatusOr<double> CudaSession::ComputeMilliseconds() {
  IOS_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(compute_stop_));
  float milliseconds = 0;
  IOS_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&milliseconds, compute_start_, compute_stop_));
  return static_cast<double>(milliseconds);
}

Status CudaSession::Enqueue(NodeId op, const CudaStreamContext& stream) {
  if (op >= 0 && static_cast<size_t>(op) < redundant_.size() && redundant_[op])
    return Status::Ok();  // a Concat or Split whose slices are views (plan/tensor_views.h)
  if (op < 0 || static_cast<size_t>(op) >= kernels_.size() || kernels_[op] == nullptr)
    return Internal("the command list runs op " + std::to_string(op) + ", which has no kernel");
  const NodeBuffers& buffers = op_buffers_[op];
  Status status = kernels_[op]->Enqueue(buffers.inputs, buffers.outputs, stream);
  if (!status.ok()) return status.WithContext(plan_.graph.Describe(op));
  return Status::Ok();
}

}  // namespace ios
