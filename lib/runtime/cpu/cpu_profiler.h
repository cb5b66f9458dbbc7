// The CPU stage profiler: measures a stage by running it on the CPU backend exactly as iosrun
// runs it inside a plan.
//   - The stage becomes a one-stage Schedule lowered by LowerToCommands, so it has the plan's
//     fork/join shape: group 0 on the origin, group i on stream i (round-robin beyond
//     `max_streams`), events as real waits, and each op gets the plan's thread share
//     (total threads / groups).
//   - A StreamExecutor (one worker thread per stream) is created once and reused for every stage.
//   - Ops run through CreateCpuKernel; kernels are cached per op (NodeId) across stages, so the
//     weights are prepacked once and oneDNN primitives for a thread share are created once (in
//     the warm-up runs).
//   - Values the stage reads but does not produce (its inputs) get buffers filled once with
//     uniform random data in [-1, 1); they are never written, so they stay random. The stage's
//     outputs and intermediates get buffers of a second pool. Both pools hand out buffers by
//     byte size and never free them: a stage needing two 1 MB inputs takes the first two 1 MB
//     input buffers, so memory is bounded by the largest per-size demand of any one stage.
//   - Merge stages (StageStrategy::kMerge) are costed as they run after ApplyMergeStages
//     (sched/merge_convs.h): the stage's convs are copied into a scratch graph of their own
//     (input, weights, convs), merged there into one conv + Split, and that single group is
//     measured. The scratch graph and its kernels are cached per set of convs.
//
// Timing: `warmup_runs` untimed runs, then `repeats` samples, each the wall time of
// `runs_per_repeat` back-to-back runs divided by `runs_per_repeat`; the result is RobustMedian
// of the samples (median after dropping samples beyond 3 median absolute deviations). The
// defaults are chosen for a noisy, shared 2-core machine:
//   - warmup 2: the first run of a stage creates the oneDNN primitives for its thread share and
//     faults in fresh buffers; the second settles the OpenMP team and the caches.
//   - runs per repeat 3: many stages take 0.1-1 ms, comparable to a thread wake-up and to timer
//     and scheduler jitter; averaging three runs smooths that, while a sample stays short enough
//     that one preemption by another process spoils only that sample.
//   - repeats 7: enough for the MAD filter to reject one or two spoiled samples and still take
//     the median of five; 2 + 21 runs per stage keep a search over thousands of stages in
//     minutes.
// Launch overhead: one executor run wakes the origin worker and waits for it, a round trip that
// a stage inside a plan does not pay (the origin is already running). With
// `subtract_launch_overhead`, the median time of an empty run (one stream, no commands),
// measured once, is subtracted from every stage, so that n sequential stages are not charged n
// round trips; fork/join events of multi-group stages stay in the measurement, as in a plan.
// The result is floored at kMinStageLatencyMs.
//
// OpenMP spin policy: libgomp reads GOMP_SPINCOUNT / OMP_WAIT_POLICY when it loads, and iosrun
// runs plans with concurrent stages under GOMP_SPINCOUNT=2000 (tools/iosrun). Measurements
// match iosrun's only when the profiling process runs under the same policy.
//
// Not thread-safe: one caller at a time (the scheduler measures stages one by one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sched/stage_cost_source.h"
#include "runtime/cpu/cpu_kernel.h"
#include "runtime/executor.h"

namespace ios {

struct CpuProfilerOptions {
  int warmup_runs = 2;      // untimed runs before the samples
  int repeats = 7;          // timed samples
  int runs_per_repeat = 3;  // runs averaged into one sample
  int total_threads = 0;    // cores in all; 0 = every core of the machine
  int max_streams = 0;      // 0 = total_threads (as CpuSession)
  bool subtract_launch_overhead = true;
};

inline constexpr double kMinStageLatencyMs = 1e-3;

// What the profiler has created, for tests and reports.
struct CpuProfilerCounters {
  int64_t stages_measured = 0;
  int64_t merge_stages_measured = 0;
  int64_t kernels_created = 0;     // CreateCpuKernel calls (graph ops and merged scratch ops)
  int64_t kernel_cache_hits = 0;   // ops whose cached kernel was reused
  int64_t buffers_allocated = 0;   // both pools
  int64_t pool_bytes = 0;          // bytes held by both pools
  int64_t executor_runs = 0;       // timed and untimed, baseline included
  double launch_overhead_ms = 0;   // the subtracted empty-run time (0 until measured or if off)
};

class CpuProfilerCostSource : public StageCostSource {
 public:
  explicit CpuProfilerCostSource(CpuProfilerOptions options = {});
  ~CpuProfilerCostSource() override;
  CpuProfilerCostSource(const CpuProfilerCostSource&) = delete;
  CpuProfilerCostSource& operator=(const CpuProfilerCostSource&) = delete;

  StatusOr<double> StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                  const StageCandidate& stage) override;
  std::string Name() const override { return "cpu-profiler"; }
  DeviceFingerprint Fingerprint() const override;

  // Measures an arbitrary stage of `graph` (nodes rather than units). kMerge stages must consist
  // of single-Conv groups that ApplyMergeStages accepts.
  StatusOr<double> MeasureStage(const Graph& graph, const ScheduleStage& stage);

  const CpuProfilerCounters& counters() const { return counters_; }
  const CpuProfilerOptions& options() const { return options_; }
  int total_threads() const { return total_threads_; }

 private:
  // Buffers handed out by byte size; a request for the i-th buffer of a size in one stage gets
  // the same buffer every time.
  class BufferPool {
   public:
    explicit BufferPool(bool randomize) : randomize_(randomize) {}
    void* Get(size_t bytes, int index, CpuProfilerCounters& counters, std::mt19937& rng);

   private:
    struct Deleter {
      void operator()(void* p) const;
    };
    bool randomize_;
    std::map<size_t, std::vector<std::unique_ptr<uint8_t, Deleter>>> buffers_;
  };

  struct CachedKernel {
    std::string signature;  // op, name and shapes: detects a different node under the same id
    std::unique_ptr<CpuKernel> kernel;
  };

  // A kMerge stage rebuilt as a scratch graph: one group [merged conv, split].
  struct MergedStage {
    std::string signature;  // the convs' signatures
    Graph graph;
    ScheduleStage stage;
    std::vector<std::unique_ptr<CpuKernel>> kernels;  // per scratch NodeId
  };

  class Runner;

  void ResetForGraph(const Graph& graph);
  StatusOr<CpuKernel*> KernelFor(const Graph& graph, NodeId node);
  StatusOr<MergedStage*> MergedStageFor(const Graph& graph, const ScheduleStage& stage);
  // Times `stage` of `graph` whose kernels are `kernels` (indexed by NodeId).
  StatusOr<double> TimeStage(const Graph& graph, const ScheduleStage& stage,
                             const std::vector<CpuKernel*>& kernels);
  StatusOr<double> TimeCommands(const CommandList& commands, OpRunner& runner);
  Status MeasureLaunchOverhead();

  CpuProfilerOptions options_;
  int total_threads_ = 1;
  int max_streams_ = 1;
  std::unique_ptr<StreamExecutor> executor_;
  BufferPool input_pool_{true};
  BufferPool work_pool_{false};
  std::mt19937 rng_{20210405};

  const Graph* graph_ = nullptr;  // the graph the caches belong to
  std::vector<CachedKernel> kernels_;  // per NodeId of graph_
  std::map<std::vector<NodeId>, std::unique_ptr<MergedStage>> merged_;
  bool launch_overhead_measured_ = false;
  CpuProfilerCounters counters_;
};

}  // namespace ios
