// The CUDA stage profiler: measures a stage by running it on the GPU as the CUDA runtime runs it
// inside a plan.
//   - The stage becomes a one-stage Schedule lowered by LowerToCommands: group 0 on the origin,
//     group i on stream i (round-robin beyond `max_streams`), fork/join events. That list is
//     captured into a small CUDA Graph with CaptureCommands (runtime/cuda/cuda_replay.h), as
//     iosrun captures the whole plan, and the graph is launched on the origin stream.
//   - One CudaStreamSet (streams, per-stream cuDNN/cuBLAS handles and workspaces, events) is
//     created once and grown with Reserve when a stage needs more streams, events or workspace.
//   - Kernels come from CreateCudaKernel and are cached per node (NodeId, re-checked against the
//     node's signature), so weights are prepared and cuDNN descriptors built once per node.
//     Constants are uploaded to the device once per graph.
//   - Buffers come from two device pools handed out by byte size, grow-only and never freed
//     (as the CPU profiler's): stage inputs are filled once with uniform random data in [-1, 1)
//     through one host-to-device copy on the origin stream and are never written; outputs and
//     intermediates come from a second pool, zeroed once. So memory is bounded by the largest
//     per-size demand of any one stage, and no allocation happens between measurements of known
//     sizes.
//   - Merge stages (StageStrategy::kMerge) are costed on a scratch graph exactly as the CPU
//     profiler does it (profile/profiled_stage.h): the convs merged there into one conv + Split.
//
// Timing: the stage's command list runs once directly and is waited for (so that cuDNN's and
// cuBLAS's first-use setup stays out of the capture), then it is captured; `warmup_launches`
// untimed launches follow, then samples until the median settles (`min_repeats` at least,
// `repeats` at most; `settle_tolerance`, as the CPU profiler's rule). A sample holds the origin stream with a
// StreamBlocker (stream_blocker.h), records a timing-enabled CUDA event, queues
// `launches_per_repeat` graph launches and a second event, releases the stream, waits for the
// second event, and divides cudaEventElapsedTime by the launch count. Held so, the launches run
// back to back on the device: without it, a stage shorter than the host's launch call (a few
// microseconds) would measure the host's launch rate. The result is RobustMedian of the samples
// (median after dropping samples beyond 3 median absolute deviations). Should a stage fail to
// capture, it is timed as replayed commands behind the same blocker, with a warning
// (counters().capture_fallbacks). Defaults:
//   - warmup 3: the first launch of a new graph uploads it to the device and the first runs of
//     cuDNN/cuBLAS kernels load their modules lazily (CUDA_MODULE_LOADING=LAZY is the default
//     since CUDA 12.2); two more settle clocks and caches.
//   - launches per repeat 10: cudaEventElapsedTime has a resolution of about 0.5 us (CUDA
//     Runtime API, Event Management), and many stages of a batch-1 CNN take 5-50 us; ten
//     launches put the resolution below 1% of such a stage's time.
//   - repeats 7: as the CPU profiler, enough for the MAD filter to drop one or two samples
//     disturbed by another process on the GPU and keep a median of five.
//   - min_repeats 3, settle_tolerance 2%: a GPU's samples of one stage agree far closer than a
//     shared CPU's (whole-plan rounds on an H100 within 0.5%), so most stages stop at three
//     samples: 33 launches instead of 73. One disturbed sample of three leaves the two others
//     to agree; a stage whose samples keep disagreeing takes all seven.
// Launch overhead: back-to-back launches of a graph are separated on the device by the gap
// between two graphs (a few microseconds), which a stage inside a plan does not pay: the whole
// plan is one graph. With `subtract_launch_overhead`, the per-launch time of a graph holding one
// empty kernel, measured once in the same way, is subtracted from every stage, so that n
// sequential stages are not charged n graph launches; the fork/join events of a multi-group
// stage stay in the measurement, as in a plan. The result is floored at kMinCudaStageLatencyMs.
//
// Conv algorithms: a conv kernel created without a recorded algorithm uses cuDNN's heuristic
// choice (CudaKernelContext::conv_algorithm == nullptr), as plans do by default; only
// `iosc --conv-algorithms measure` records measured ones after scheduling
// (profile/cuda/conv_algorithm_selection.h).
//
// Not thread-safe: one caller at a time (the scheduler measures stages one by one), and the
// calling thread's current device is set to `device`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sched/stage_cost_source.h"
#include "runtime/command_list.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/kernels/cuda_kernel.h"
#include "runtime/cuda/cuda_replay.h"
#include "runtime/cuda/cuda_session.h"
#include "runtime/cuda/cuda_streams.h"
#include "profile/cuda/stream_blocker.h"

namespace ios {

struct CudaProfilerOptions {
  int device = 0;                         // CUDA device ordinal
  int warmup_launches = 3;                // untimed graph launches per stage
  int repeats = 7;                        // timed samples per stage, at most
  // Stop early once the median settles (util/latency_stats.h, MedianSettled): at least
  // `min_repeats` samples, more than half within `settle_tolerance` of their median. 0: always
  // take `repeats`.
  int min_repeats = 3;
  double settle_tolerance = 0.02;
  int launches_per_repeat = 10;           // back-to-back graph launches timed as one sample
  int max_streams = kMaxAutoCudaStreams;  // streams of a stage (as CudaSession); more groups
                                          // share them round-robin
  bool allow_tf32 = true;                 // fp32 convs and GEMMs may use TF32 tensor cores
  bool subtract_launch_overhead = true;
};

// InvalidInput naming the first bad field (a negative warm-up, fewer than one repeat, launch or
// stream, a negative device, min_repeats outside 1..repeats, a negative settle tolerance).
Status ValidateCudaProfilerOptions(const CudaProfilerOptions& options);

inline constexpr double kMinCudaStageLatencyMs = 1e-4;

// The command list the profiler captures for `stage` of `graph`: the one-stage schedule lowered
// by LowerToCommands, as the runtime lowers a plan's stages.
StatusOr<CommandList> LowerProfiledStage(const Graph& graph, const ScheduleStage& stage,
                                         int max_streams);

// What the profiler has created, for tests and reports.
struct CudaProfilerCounters {
  int64_t stages_measured = 0;
  int64_t merge_stages_measured = 0;
  int64_t kernels_created = 0;     // CreateCudaKernel calls (graph ops and merged scratch ops)
  int64_t kernel_cache_hits = 0;   // ops whose cached kernel was reused
  int64_t constants_uploaded = 0;  // constant tensors copied to the device
  int64_t buffers_allocated = 0;   // both pools
  int64_t pool_bytes = 0;          // device bytes held by both pools
  int64_t graphs_captured = 0;     // CUDA Graphs captured and instantiated, baseline included
  int64_t graph_launches = 0;      // timed and untimed, baseline included
  int64_t samples_taken = 0;       // timed samples, baseline included
  int64_t capture_fallbacks = 0;   // stages timed as replayed commands: their capture failed
  int64_t blocker_timeouts = 0;    // samples whose queueing outlasted the stream blocker
  double launch_overhead_ms = 0;   // the subtracted one-kernel graph (0 until measured or off)
};

class CudaStageProfiler : public StageCostSource {
 public:
  // Validates the options, finds the device ("no CUDA device ..." InvalidInput without one) and
  // creates the stream set.
  static StatusOr<std::unique_ptr<CudaStageProfiler>> Create(CudaProfilerOptions options);
  ~CudaStageProfiler() override;
  CudaStageProfiler(const CudaStageProfiler&) = delete;
  CudaStageProfiler& operator=(const CudaStageProfiler&) = delete;

  StatusOr<double> StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                  const StageCandidate& stage) override;
  std::string Name() const override { return "cuda-profiler"; }
  std::string CountersText() const override;
  DeviceFingerprint Fingerprint() const override;
  // "CUDA runtime 13.0, cuDNN 9.10.2" (cuBLAS ships with the runtime).
  std::string KernelVersions() const override;

  // Checks the graph (CheckCudaSupportsGraph, cuda_session.h) and creates the kernel of every
  // live node now: any node the CUDA backend refuses, for its op, attributes or dtype, is an
  // error before the first measurement rather than in the middle of a search.
  Status PrepareGraph(const Graph& graph);

  // Measures an arbitrary stage of `graph` (nodes rather than units). kMerge stages must consist
  // of single-Conv groups that ApplyMergeStages accepts.
  StatusOr<double> MeasureStage(const Graph& graph, const ScheduleStage& stage);

  const CudaProfilerCounters& counters() const { return counters_; }
  const CudaProfilerOptions& options() const { return options_; }
  const CudaDeviceInfo& device() const { return device_; }

 private:
  // Device buffers handed out by byte size; the i-th buffer of a size in one stage is the same
  // buffer every time.
  class BufferPool {
   public:
    explicit BufferPool(bool randomize) : randomize_(randomize) {}
    // Fills a new buffer with copies ordered on `stream` (the origin, which every timed
    // graph launch follows; the legacy default stream would not order them).
    StatusOr<void*> Get(size_t bytes, int index, CudaProfilerCounters& counters, std::mt19937& rng,
                        cudaStream_t stream);

   private:
    bool randomize_;
    std::map<size_t, std::vector<DeviceBuffer>> buffers_;
  };

  struct CachedKernel {
    std::string signature;  // NodeKernelSignature: detects a different node under the same id
    std::unique_ptr<CudaKernel> kernel;
  };

  struct DeviceConstant {
    const void* host = nullptr;  // the Tensor bytes uploaded: detects a replaced constant
    DeviceBuffer buffer;
  };

  // A graph's device-side state: constants uploaded once, kernels per NodeId.
  struct DeviceGraph {
    std::vector<DeviceConstant> constants;  // per ValueId; empty until uploaded
    std::vector<CachedKernel> kernels;      // per NodeId
  };

  // A kMerge stage rebuilt as a scratch graph: one group [merged conv, split].
  struct MergedStage {
    std::string signature;  // the convs' signatures
    Graph graph;
    ScheduleStage stage;
    DeviceGraph device;
  };

  class Launcher;

  explicit CudaStageProfiler(CudaProfilerOptions options) : options_(options) {}

  void ResetForGraph(const Graph& graph);
  StatusOr<const void*> ConstantOnDevice(const Graph& graph, ValueId value, DeviceGraph& state);
  StatusOr<CudaKernel*> KernelFor(const Graph& graph, NodeId node, DeviceGraph& state);
  StatusOr<MergedStage*> MergedStageFor(const Graph& graph, const ScheduleStage& stage);
  // Times `stage` of `graph` whose device state is `state`; creates the kernels it lacks.
  StatusOr<double> TimeStage(const Graph& graph, const ScheduleStage& stage, DeviceGraph& state);
  StatusOr<double> TimeCommands(const CommandList& commands, CudaOpLauncher& launcher,
                                int warmup_launches, int launches_per_repeat);
  Status MeasureLaunchOverhead();

  CudaProfilerOptions options_;
  CudaDeviceInfo device_;
  std::unique_ptr<CudaStreamSet> streams_;
  std::unique_ptr<StreamBlocker> blocker_;  // after streams_: it waits on the origin when it goes
  cudaEvent_t start_ = nullptr;             // timing-enabled, on the origin
  cudaEvent_t stop_ = nullptr;
  BufferPool input_pool_{true};
  BufferPool work_pool_{false};
  std::mt19937 rng_{20210405};

  const Graph* graph_ = nullptr;  // the graph `graph_state_` belongs to
  DeviceGraph graph_state_;
  std::map<std::vector<NodeId>, std::unique_ptr<MergedStage>> merged_;
  bool launch_overhead_measured_ = false;
  CudaProfilerCounters counters_;
};

}  // namespace ios
