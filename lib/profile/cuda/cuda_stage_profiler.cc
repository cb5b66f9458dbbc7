#include "profile/cuda/cuda_stage_profiler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "profile/profiled_stage.h"
#include "plan/fingerprint_proto.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/cuda_fingerprint.h"
#include "runtime/cuda/cuda_replay.h"
#include "runtime/cuda/cuda_session.h"
#include "profile/cuda/stream_blocker_impl.h"
#include "util/latency_stats.h"

namespace ios {
namespace {

// The launch-overhead baseline: one graph with one empty kernel.
class EmptyKernelLauncher : public CudaOpLauncher {
 public:
  Status Enqueue(NodeId, const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchEmptyKernel(stream.stream));
    return Status::Ok();
  }
};

// The stream blocker gives up after this long; a sample is enqueued in far less.
constexpr double kBlockTimeoutMs = 1000.0;

}  // namespace

Status ValidateCudaProfilerOptions(const CudaProfilerOptions& options) {
  if (options.device < 0)
    return InvalidInput("CUDA profiler: device must be a non-negative ordinal, got " +
                        std::to_string(options.device));
  if (options.warmup_launches < 0)
    return InvalidInput("CUDA profiler: warm-up launches must be >= 0, got " +
                        std::to_string(options.warmup_launches));
  if (options.repeats < 1)
    return InvalidInput("CUDA profiler: repeats must be >= 1, got " +
                        std::to_string(options.repeats));
  if (options.min_repeats < 1 || options.min_repeats > options.repeats)
    return InvalidInput("CUDA profiler: min repeats must be within 1.." +
                        std::to_string(options.repeats) + ", got " +
                        std::to_string(options.min_repeats));
  if (!(options.settle_tolerance >= 0))
    return InvalidInput("CUDA profiler: settle tolerance must be >= 0, got " +
                        std::to_string(options.settle_tolerance));
  if (options.launches_per_repeat < 1)
    return InvalidInput("CUDA profiler: launches per repeat must be >= 1, got " +
                        std::to_string(options.launches_per_repeat));
  if (options.max_streams < 1)
    return InvalidInput("CUDA profiler: max streams must be >= 1, got " +
                        std::to_string(options.max_streams));
  return Status::Ok();
}

StatusOr<CommandList> LowerProfiledStage(const Graph& graph, const ScheduleStage& stage,
                                         int max_streams) {
  // One thread per op: the CPU backend's intra-op share has no meaning on the GPU.
  return LowerToCommands(graph, OneStageSchedule(stage, "cuda-profiler"), max_streams, 1);
}

// Enqueues one stage's ops with the buffers chosen for that stage.
class CudaStageProfiler::Launcher : public CudaOpLauncher {
 public:
  Launcher(const Graph& graph, const std::vector<CudaKernel*>& kernels,
           const std::vector<const void*>& value_ptr)
      : graph_(graph), kernels_(kernels), value_ptr_(value_ptr) {}

  Status Enqueue(NodeId op, const CudaStreamContext& stream) override {
    // Built per enqueue, which happens only while capturing: never inside a timed launch.
    const NodeBuffers buffers = NodeBuffersOf(graph_.nodes[op], value_ptr_);
    return kernels_[op]
        ->Enqueue(buffers.inputs, buffers.outputs, stream)
        .WithContext(graph_.Describe(op));
  }

 private:
  const Graph& graph_;
  const std::vector<CudaKernel*>& kernels_;
  const std::vector<const void*>& value_ptr_;
};

StatusOr<void*> CudaStageProfiler::BufferPool::Get(size_t bytes, int index,
                                                   CudaProfilerCounters& counters,
                                                   std::mt19937& rng, cudaStream_t stream) {
  std::vector<DeviceBuffer>& list = buffers_[bytes];
  while (static_cast<int>(list.size()) <= index) {
    IOS_ASSIGN_OR_RETURN(DeviceBuffer buffer, DeviceBuffer::Allocate(bytes));
    if (randomize_) {
      // A tail of fewer than four bytes stays as cudaMalloc left it; no fp32 tensor has one.
      std::vector<float> host(bytes / sizeof(float));
      FillRandomStageInput(host.data(), host.size(), rng);
      if (!host.empty()) {
        IOS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(buffer.data(), host.data(),
                                                 host.size() * sizeof(float),
                                                 cudaMemcpyHostToDevice, stream));
        IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));  // before `host` goes
      }
    } else {
      IOS_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(buffer.data(), 0, bytes, stream));
    }
    list.push_back(std::move(buffer));
    ++counters.buffers_allocated;
    counters.pool_bytes += static_cast<int64_t>(bytes);
  }
  return list[static_cast<size_t>(index)].data();
}

StatusOr<std::unique_ptr<CudaStageProfiler>> CudaStageProfiler::Create(
    CudaProfilerOptions options) {
  IOS_RETURN_IF_ERROR(ValidateCudaProfilerOptions(options));
  IOS_ASSIGN_OR_RETURN(CudaDeviceInfo device, QueryCudaDevice(options.device));
  std::unique_ptr<CudaStageProfiler> profiler(new CudaStageProfiler(options));
  profiler->device_ = std::move(device);
  CudaStreamSetOptions stream_options;
  stream_options.device = options.device;
  stream_options.num_streams = 1;
  stream_options.allow_tf32 = options.allow_tf32;
  IOS_ASSIGN_OR_RETURN(profiler->streams_, CudaStreamSet::Create(stream_options));
  // Default flags: timing enabled (cudaEventDisableTiming is not set).
  IOS_CUDA_RETURN_IF_ERROR(cudaEventCreate(&profiler->start_));
  IOS_CUDA_RETURN_IF_ERROR(cudaEventCreate(&profiler->stop_));
  IOS_ASSIGN_OR_RETURN(profiler->blocker_, StreamBlocker::Create());
  return profiler;
}

CudaStageProfiler::~CudaStageProfiler() {
  auto log_if_failed = [](cudaError_t error, const char* call) {
    Status status = CudaStatus(error, call, __FILE__, __LINE__);
    if (!status.ok()) spdlog::warn("releasing the CUDA profiler: {}", status.message());
  };
  if (streams_ != nullptr)
    log_if_failed(cudaStreamSynchronize(streams_->origin()), "cudaStreamSynchronize");
  if (stop_ != nullptr) log_if_failed(cudaEventDestroy(stop_), "cudaEventDestroy");
  if (start_ != nullptr) log_if_failed(cudaEventDestroy(start_), "cudaEventDestroy");
  // Kernels, constants and pools are released by their members; the stream set last (declared
  // before them), after everything that might still use its streams.
  blocker_.reset();
  merged_.clear();
  graph_state_ = DeviceGraph();
}

DeviceFingerprint CudaStageProfiler::Fingerprint() const {
  return FromPlanFingerprint(CudaFingerprint(device_));
}

std::string CudaStageProfiler::KernelVersions() const {
  return "CUDA runtime " + FormatCudaVersion(device_.runtime_version) + ", cuDNN " +
         FormatCudnnVersion(static_cast<int64_t>(device_.cudnn_version));
}

// Caches belong to one graph: another graph drops them. Within a graph, cached kernels and
// constants are re-checked against their node or tensor before every use.
void CudaStageProfiler::ResetForGraph(const Graph& graph) {
  if (graph_ != &graph) {
    graph_state_ = DeviceGraph();
    merged_.clear();
    graph_ = &graph;
  }
  if (graph_state_.kernels.size() != graph.nodes.size())
    graph_state_.kernels.resize(graph.nodes.size());
  if (graph_state_.constants.size() != graph.values.size())
    graph_state_.constants.resize(graph.values.size());
}

StatusOr<const void*> CudaStageProfiler::ConstantOnDevice(const Graph& graph, ValueId value,
                                                          DeviceGraph& state) {
  const Tensor& tensor = *graph.values[value].constant;
  DeviceConstant& constant = state.constants[value];
  if (constant.host == tensor.raw() && constant.buffer.bytes() == tensor.num_bytes())
    return static_cast<const void*>(constant.buffer.data());
  IOS_ASSIGN_OR_RETURN(constant.buffer, DeviceBuffer::Allocate(tensor.num_bytes()));
  if (tensor.num_bytes() > 0) {
    IOS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(constant.buffer.data(), tensor.raw(),
                                             tensor.num_bytes(), cudaMemcpyHostToDevice,
                                             streams_->origin()));
    IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(streams_->origin()));
  }
  constant.host = tensor.raw();
  ++counters_.constants_uploaded;
  return static_cast<const void*>(constant.buffer.data());
}

StatusOr<CudaKernel*> CudaStageProfiler::KernelFor(const Graph& graph, NodeId node,
                                                   DeviceGraph& state) {
  CachedKernel& cached = state.kernels[static_cast<size_t>(node)];
  std::string signature = NodeKernelSignature(graph, node);
  if (cached.kernel && cached.signature == signature) {
    ++counters_.kernel_cache_hits;
    return cached.kernel.get();
  }
  CudaKernelContext context = MakeCudaKernelContext(graph, graph.nodes[node]);
  context.allow_tf32 = options_.allow_tf32;
  context.cudnn = streams_->stream(0).cudnn;  // for queries while the kernel is created
  IOS_ASSIGN_OR_RETURN(cached.kernel, CreateCudaKernel(context));
  cached.signature = std::move(signature);
  ++counters_.kernels_created;
  return cached.kernel.get();
}

Status CudaStageProfiler::PrepareGraph(const Graph& graph) {
  IOS_RETURN_IF_ERROR(CheckCudaSupportsGraph(graph));
  IOS_CUDA_RETURN_IF_ERROR(cudaSetDevice(options_.device));
  ResetForGraph(graph);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].dead) continue;
    IOS_RETURN_IF_ERROR(KernelFor(graph, static_cast<NodeId>(n), graph_state_).status());
  }
  return Status::Ok();
}

StatusOr<CudaStageProfiler::MergedStage*> CudaStageProfiler::MergedStageFor(
    const Graph& graph, const ScheduleStage& stage) {
  bool hit = false;
  // Kernels and constants are made on first use, by TimeStage.
  return FindOrBuildMergedStage(graph, stage, merged_, &hit, [](MergedStage& fresh) -> Status {
    fresh.device.kernels.resize(fresh.graph.nodes.size());
    fresh.device.constants.resize(fresh.graph.values.size());
    return Status::Ok();
  });
}

StatusOr<double> CudaStageProfiler::StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                                   const StageCandidate& stage) {
  IOS_ASSIGN_OR_RETURN(ScheduleStage nodes_stage, NodeStageOf(units, stage));
  return MeasureStage(graph, nodes_stage);
}

StatusOr<double> CudaStageProfiler::MeasureStage(const Graph& graph, const ScheduleStage& stage) {
  IOS_RETURN_IF_ERROR(CheckStageNodesLive(graph, stage));
  IOS_CUDA_RETURN_IF_ERROR(cudaSetDevice(options_.device));
  ResetForGraph(graph);
  if (options_.subtract_launch_overhead && !launch_overhead_measured_)
    IOS_RETURN_IF_ERROR(MeasureLaunchOverhead());

  double ms = 0;
  if (stage.strategy == StageStrategy::kMerge) {
    IOS_ASSIGN_OR_RETURN(MergedStage * merged, MergedStageFor(graph, stage));
    IOS_ASSIGN_OR_RETURN(ms, TimeStage(merged->graph, merged->stage, merged->device));
    ++counters_.merge_stages_measured;
  } else {
    IOS_ASSIGN_OR_RETURN(ms, TimeStage(graph, stage, graph_state_));
  }
  ++counters_.stages_measured;
  return std::max(kMinCudaStageLatencyMs, ms - counters_.launch_overhead_ms);
}

StatusOr<double> CudaStageProfiler::TimeStage(const Graph& graph, const ScheduleStage& stage,
                                              DeviceGraph& state) {
  // Nothing of an earlier stage may still run: Reserve below may replace workspaces, and the
  // pools' buffers are shared between stages.
  IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(streams_->origin()));

  std::vector<CudaKernel*> kernels(graph.nodes.size(), nullptr);
  size_t workspace_bytes = 0;
  for (const ScheduleGroup& group : stage.groups) {
    for (NodeId n : group.nodes) {
      IOS_ASSIGN_OR_RETURN(kernels[static_cast<size_t>(n)], KernelFor(graph, n, state));
      workspace_bytes =
          std::max(workspace_bytes, kernels[static_cast<size_t>(n)]->WorkspaceBytes());
    }
  }

  // Buffers: values produced inside the stage come from the work pool, the others (the stage's
  // inputs) from the random-filled input pool; constants live on the device once per graph.
  std::vector<const void*> value_ptr(graph.values.size(), nullptr);
  for (const ScheduleGroup& group : stage.groups) {
    for (NodeId n : group.nodes) {
      for (ValueId in : graph.nodes[static_cast<size_t>(n)].inputs) {
        if (in == kNoValue || !graph.values[static_cast<size_t>(in)].constant) continue;
        IOS_ASSIGN_OR_RETURN(value_ptr[static_cast<size_t>(in)],
                             ConstantOnDevice(graph, in, state));
      }
    }
  }
  for (const StageBuffer& buffer : StageBuffers(graph, stage)) {
    IOS_ASSIGN_OR_RETURN(
        void* data, (buffer.produced ? work_pool_ : input_pool_)
                        .Get(buffer.bytes, buffer.pool_index, counters_, rng_, streams_->origin()));
    value_ptr[static_cast<size_t>(buffer.value)] = data;
  }

  IOS_ASSIGN_OR_RETURN(CommandList commands,
                       LowerProfiledStage(graph, stage, options_.max_streams));
  IOS_RETURN_IF_ERROR(streams_->Reserve(static_cast<int>(commands.streams.size()),
                                        commands.num_events, workspace_bytes));
  Launcher launcher(graph, kernels, value_ptr);
  return TimeCommands(commands, launcher, options_.warmup_launches, options_.launches_per_repeat);
}

StatusOr<double> CudaStageProfiler::TimeCommands(const CommandList& commands,
                                                 CudaOpLauncher& launcher, int warmup_launches,
                                                 int launches_per_repeat) {
  // One direct run first (first-use setup of cuDNN and cuBLAS stays out of the capture).
  IOS_ASSIGN_OR_RETURN(CapturedCommands captured,
                       RunOnceThenCapture(commands, *streams_, launcher));
  if (captured.graph.valid()) {
    ++counters_.graphs_captured;
  } else {
    // Replayed commands queued behind the blocker still run back to back on the device; the
    // measurement stays meaningful, if a little above a graph's.
    ++counters_.capture_fallbacks;
    if (counters_.capture_fallbacks == 1) {
      spdlog::warn(
          "CUDA profiler: a stage could not be captured into a CUDA Graph ({}); such "
          "stages are timed as replayed commands",
          captured.capture_status.message());
    }
  }
  const cudaStream_t origin = streams_->origin();
  auto launch = [&]() -> Status {
    ++counters_.graph_launches;
    if (captured.graph.valid()) return captured.graph.Launch(origin);
    return ReplayCommands(commands, *streams_, launcher);
  };
  for (int i = 0; i < warmup_launches; ++i) IOS_RETURN_IF_ERROR(launch());
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(options_.repeats));
  for (int r = 0; r < options_.repeats; ++r) {
    // The origin is held while the launches are queued, so they run back to back on the device
    // and the events time the GPU, not the host's launch rate.
    bool timed_out = false;
    IOS_ASSIGN_OR_RETURN(const double ms,
                         TimeHeldRuns(blocker_.get(), origin, start_, stop_, launches_per_repeat,
                                      launch, &timed_out, kBlockTimeoutMs));
    if (timed_out) ++counters_.blocker_timeouts;  // the robust median copes
    samples.push_back(ms);
    ++counters_.samples_taken;
    if (options_.settle_tolerance > 0 &&
        MedianSettled(samples, options_.min_repeats, options_.settle_tolerance))
      break;
  }
  return RobustMedian(std::move(samples));
}

std::string CudaStageProfiler::CountersText() const {
  const CudaProfilerCounters& c = counters_;
  auto n = [](int64_t value) { return std::to_string(value); };
  return n(c.stages_measured) + " stages measured (" + n(c.merge_stages_measured) +
         " merge); " + n(c.graphs_captured) + " graphs captured (" + n(c.capture_fallbacks) +
         " replayed instead), " + n(c.graph_launches) + " launches, " + n(c.samples_taken) +
         " samples, " + n(c.blocker_timeouts) + " blocker timeouts; kernels " +
         n(c.kernels_created) + " created, " + n(c.kernel_cache_hits) + " reused; buffers " +
         n(c.buffers_allocated) + " (" + n(c.pool_bytes >> 20) + " MiB); launch overhead " +
         std::to_string(static_cast<int64_t>(std::lround(c.launch_overhead_ms * 1000))) + " us";
}

Status CudaStageProfiler::MeasureLaunchOverhead() {
  // A graph of one empty kernel on the origin: what remains is the gap between two graphs on
  // the device (and a kernel that does nothing). More launches per sample than a stage, as each
  // takes only microseconds.
  CommandList baseline;
  baseline.streams.resize(1);
  Command run;
  run.kind = CommandKind::kRunOp;
  run.op = 0;
  baseline.streams[0].push_back(run);
  EmptyKernelLauncher launcher;
  StatusOr<double> ms = TimeCommands(baseline, launcher, std::max(options_.warmup_launches, 10),
                                     options_.launches_per_repeat * 10);
  launch_overhead_measured_ = true;
  if (!ms.ok()) {
    // A refinement, not a requirement: without it every stage carries one graph launch.
    spdlog::warn(
        "CUDA profiler: the one-kernel graph could not be timed ({}); stage times include one "
        "graph launch each",
        ms.status().message());
    counters_.launch_overhead_ms = 0;
    return Status::Ok();
  }
  counters_.launch_overhead_ms = ms.value();
  return Status::Ok();
}

}  // namespace ios
