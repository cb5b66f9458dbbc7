// The CPU stage profiler: measures a stage by running it on the CPU backend exactly as iosrun
// runs it inside a plan.
//   - The stage becomes a one-stage Schedule lowered by LowerToCommands, so it has the plan's
//     fork/join shape: group 0 on the origin, group i on stream i (round-robin beyond
//     `max_streams`), events as real waits, and each op gets the plan's thread share
//     (total threads / groups).
//   - A StreamExecutor (one worker thread per stream) is created once and reused for every stage.
//   - Ops run through CreateCpuKernel; kernels are cached per op (NodeId) across stages, so the
//     weights are prepacked once and oneDNN primitives for a thread share are created once (in
//     the warm-up runs), unless the kernel was freed in the meantime (`max_kernel_bytes`).
//   - Values the stage reads but does not produce (its inputs) get buffers filled once with
//     uniform random data in [-1, 1); they are never written, so they stay random. The stage's
//     outputs and intermediates get buffers of a second pool. Both pools hand out buffers by
//     byte size: a stage needing two 1 MB inputs takes the first two 1 MB input buffers. Past
//     `max_pool_bytes`, the buffers that the next measurement does not use are freed first.
//   - Merge stages (StageStrategy::kMerge) are costed as they run after ApplyMergeStages
//     (sched/merge_convs.h): the stage's convs are copied into a scratch graph of their own
//     (input, weights, convs), merged there into one conv + Split, and that single group is
//     measured. The scratch graph and its kernels are cached per set of convs.
//
// Timing: `warmup_runs` untimed runs, then samples until the median settles: each sample is the
// wall time of some back-to-back runs divided by their number, and sampling stops as soon as
// MedianSettled (util/latency_stats.h: at least `min_repeats` samples, a majority within
// `settle_tolerance` of the median), or after `repeats` samples. The result is RobustMedian of
// the samples (median after dropping samples beyond 3 median absolute deviations). The defaults
// are chosen for a noisy, shared 2-core machine:
//   - warmup 2: the first run of a stage creates the oneDNN primitives for its thread share and
//     faults in fresh buffers; the second settles the OpenMP team and the caches, and its time
//     sets the runs per sample.
//   - runs per sample: enough to last `min_sample_ms` (1 ms), at most `max_runs_per_repeat` (8).
//     Many stages take 0.1-1 ms, comparable to a thread wake-up and to timer and scheduler
//     jitter; averaging runs smooths that, while a sample stays short enough that one
//     preemption by another process spoils only that sample. A stage of a millisecond or more
//     runs once per sample. `runs_per_repeat` > 0 fixes the number instead.
//   - 3 to 7 samples, tolerance 5%: a quiet machine settles a stage in three samples (2 + 3
//     runs for most stages, against 2 + 21 with a fixed seven samples of three runs, which took
//     Inception V3's search 46 s); a spoiled sample costs one more, a noisy stage takes seven.
//     `settle_tolerance` 0 always takes `repeats` samples.
// Warm-up: a stage whose every kernel has already run with the thread share this stage gives it
// (the same op in a stage of as many groups) creates no primitive; it gets one warm-up run
// instead of `warmup_runs`. A long warm-up run that created nothing counts as a sample
// (`warmup_sample_ms`).
//
// One-group stages: with `compose_one_group_stages`, a stage of one group of several units
// (they run back to back on one stream with every thread, as in a plan) costs the sum of its
// units measured alone, each once; only multi-group stages and merges are measured whole. This
// leaves out what consecutive ops gain from sharing the cache, which is small next to an op's
// time on these networks, and avoids measuring every chain of up to r units again. A
// CachedStageCost in front does the sum itself from its one-unit figures
// (ComposesOneGroupStages), so that a chain costs what its units cost as separate stages.
//
// Lower bounds (UnitAloneLatencyMs, when `bound_stages`): a unit measured alone with the thread
// share a stage of w groups gives each group (total threads / w). A group of such a stage runs
// its units back to back on that share while the other groups compete for the memory system, so
// the sum of its units alone bounds it from below; the search skips a stage whose largest group
// already loses. On 2 cores a two-group stage is at least its longer group on one thread, which
// is close to what it measures: most candidate stages are decided without running them.
//
// Launch overhead: one executor run publishes the run and, for a stage of several groups, wakes
// the other workers; the origin (stream 0) runs on the profiling thread, as a session runs it on
// its caller (StreamExecutor::Origin::kCaller). A stage inside a plan pays none of the run's
// own costs (the origin is already running). With `subtract_launch_overhead`, the median time
// of an empty run (one stream, no commands), measured once, is subtracted from every stage, so
// that n sequential stages are not charged n runs; fork/join events of multi-group stages stay
// in the measurement, as in a plan. The result is floored at kMinStageLatencyMs. (Until
// 2026-11-30 the origin ran on worker 0: waking it took 60-90 us on a 2-core VM, and its
// jitter, charged to each of a MobileNet's 79 stages, put the predicted latency anywhere
// between 0.65 and 5.8 ms against 2.8 ms measured.)
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
#include <utility>
#include <vector>

#include "sched/stage_cost_source.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "runtime/executor.h"

namespace ios {

struct CpuProfilerOptions {
  int warmup_runs = 2;      // untimed runs before the samples
  int repeats = 7;          // timed samples at most
  int min_repeats = 2;      // timed samples at least, before the median may settle
  double settle_tolerance = 0.05;  // MedianSettled's; 0 = always `repeats` samples
  int runs_per_repeat = 0;  // runs averaged into one sample; 0 = from the last warm-up run:
  // The last warm-up run is the first sample when it lasted this long and created nothing (a
  // run preceded it, or the kernels had run with these thread shares before); 0: never. The
  // caches and the OpenMP team that warm-up settles matter little to a run this long, and at
  // batch 8 NasNet's stages take 10-40 ms each. Not the first run of new kernels: creating
  // their primitives can take 20 ms on its own.
  double warmup_sample_ms = 20.0;
  double min_sample_ms = 1.0;    // enough runs for a sample to last this long,
  int max_runs_per_repeat = 8;   // and no more than this
  int total_threads = 0;    // cores in all; 0 = every core of the machine
  int max_streams = 0;      // 0 = total_threads (as CpuSession)
  bool subtract_launch_overhead = true;
  bool compose_one_group_stages = true;
  // Offer the search lower bounds on stages (UnitAloneLatencyMs), so that it skips measuring
  // stages that cannot win.
  bool bound_stages = true;
  // BlockLatencyMs: blocks whose tensors take more are not measured whole (Unsupported). At
  // 128 MiB, RandWire's and NasNet's blocks at batch 8 were too large, and the block check kept
  // their concurrent segments on the stage costs' word: the plans ran 6-16% behind sequential.
  int64_t max_block_bytes = int64_t{512} << 20;
  // The buffer pools keep a buffer per size and slot that any stage asked for; when they would
  // pass this many bytes with a measurement's new buffers, the buffers it does not use are freed
  // first, the sizes asked for longest ago first, and the freed pages handed back to the system
  // (NasNet's many shapes otherwise hold hundreds of MiB, on top of the weights and their
  // prepacked copies). A measurement whose own buffers take more keeps them all.
  int64_t max_pool_bytes = int64_t{96} << 20;
  // The cached kernels' own copies of constant inputs (prepacked weights, biases): past this
  // many bytes, the kernels that went longest unused are freed (made again when a stage needs
  // them). The search works through a network part by part, so a large model's kernels would
  // otherwise hold a second copy of all its weights (NasNet: 300 MiB) until the block check.
  // The merge stages' scratch kernels (one per merged set of convs) are not counted.
  int64_t max_kernel_bytes = int64_t{64} << 20;
};

inline constexpr double kMinStageLatencyMs = 1e-3;

// What the profiler has created, for tests and reports.
struct CpuProfilerCounters {
  int64_t stages_measured = 0;
  int64_t merge_stages_measured = 0;
  int64_t kernels_created = 0;     // CreateCpuKernel calls (graph ops and merged scratch ops)
  int64_t kernel_cache_hits = 0;   // ops whose cached kernel was reused
  int64_t kernels_freed = 0;       // cached kernels freed to keep under max_kernel_bytes
  int64_t kernel_bytes = 0;        // the cached kernels' copies of constants, now
  int64_t buffers_allocated = 0;   // both pools
  int64_t pool_bytes = 0;          // bytes allocated by both pools, freed ones included
  int64_t buffers_freed = 0;       // buffers freed to stay under max_pool_bytes
  int64_t pools_over_limit = 0;    // measurements whose own buffers passed max_pool_bytes
  int64_t executor_runs = 0;       // timed and untimed, baseline included
  int64_t samples_taken = 0;       // timed samples of stages (not of the baseline)
  int64_t stages_composed = 0;     // one-group stages costed as the sum of their units
  int64_t units_alone_measured = 0;  // UnitAloneLatencyMs measurements at a partial share
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
  std::string CountersText() const override;
  DeviceFingerprint Fingerprint() const override;
  std::string KernelVersions() const override;

  // Measures an arbitrary stage of `graph` (nodes rather than units). kMerge stages must consist
  // of single-Conv groups that ApplyMergeStages accepts.
  StatusOr<double> MeasureStage(const Graph& graph, const ScheduleStage& stage);

  // The block's stages lowered together, as CpuSession runs them, sampled with at least three
  // samples (a choice between schedules rests on it); a block of one merge stage as
  // MeasureStage measures it. Unsupported for a longer block with a merge stage, or one whose
  // buffers take more than `max_block_bytes` (produced ones reused by liveness, BlockBuffers).
  StatusOr<double> BlockLatencyMs(const Graph& graph, const ScheduleBlock& block,
                                  int round = 0) override;
  bool MeasuresBlocks() const override { return true; }

  // The unit alone on the origin stream, its ops with the thread share of a stage of
  // `stage_width` groups (the search's lower bounds; width 1: the one-unit stage); measured once
  // per unit and share, and it warms the unit's kernels for such stages.
  StatusOr<double> UnitAloneLatencyMs(const Graph& graph, const UnitGraph& units, UnitId unit,
                                      int stage_width) override;
  bool BoundsStages() const override { return options_.bound_stages; }
  bool ComposesOneGroupStages() const override { return options_.compose_one_group_stages; }

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
    int64_t bytes() const { return bytes_; }
    // Bytes that Get would allocate to hand out buffers 0 .. count - 1 of this size.
    int64_t MissingBytes(size_t bytes, int count) const;
    // Frees the buffers past the first `keep[size]` of each size (all of a size not in `keep`),
    // the sizes asked for longest ago first, until `bytes` are freed or none is left to free.
    // Returns the bytes freed.
    int64_t FreeUnused(const std::map<size_t, int>& keep, int64_t bytes,
                       CpuProfilerCounters& counters);

   private:
    struct Deleter {
      void operator()(void* p) const;
    };
    bool randomize_;
    int64_t bytes_ = 0;
    uint64_t clock_ = 0;  // counts Get calls
    std::map<size_t, std::vector<std::unique_ptr<uint8_t, Deleter>>> buffers_;
    std::map<size_t, uint64_t> last_use_;  // per size: the Get call that last asked for it
  };

  struct CachedKernel {
    std::string signature;  // op, name and shapes: detects a different node under the same id
    std::unique_ptr<CpuKernel> kernel;
    std::vector<int> warmed_group_counts;  // stage widths it has run in (its thread shares)
    int64_t copied_bytes = 0;  // the constant inputs it holds copies of (CopiedConstantInput)
    uint64_t last_use = 0;     // the StageKernels call that last asked for it
  };

  // A kMerge stage rebuilt as a scratch graph: one group [merged conv, split].
  struct MergedStage {
    std::string signature;  // the convs' signatures
    Graph graph;
    ScheduleStage stage;
    std::vector<std::unique_ptr<CpuKernel>> kernels;  // per scratch NodeId
    bool warmed = false;
  };

  class Runner;

  void ResetForGraph(const Graph& graph);
  StatusOr<CpuKernel*> KernelFor(const Graph& graph, NodeId node);
  StatusOr<MergedStage*> MergedStageFor(const Graph& graph, const ScheduleStage& stage);
  // How one measurement samples: from the options, with the warm-up and floor of samples the
  // caller needs (the launch-overhead baseline has its own).
  struct Sampling {
    int warmup_runs = 0;
    int runs_per_sample = 0;  // 0 = sized from the last warm-up run (min_sample_ms)
    int min_samples = 1;
    int max_samples = 1;
    double settle_tolerance = 0;  // 0 = always max_samples
    bool counted = true;          // adds its samples to counters_.samples_taken
    bool kernels_warm = false;    // no kernel creates a primitive in the first run
  };
  // `warm`: every kernel has run with its thread share: one warm-up run, not warmup_runs.
  Sampling StageSampling(bool warm) const;
  // The kernels of the stage's nodes, indexed by NodeId (null elsewhere).
  StatusOr<std::vector<CpuKernel*>> StageKernels(const Graph& graph, const ScheduleStage& stage);
  // Whether node n's cached kernel has run in a stage `width` groups wide (with that thread
  // share, so its primitives exist); whether every op of `stage` has; recording that they have.
  bool KernelWarmed(NodeId n, int width) const;
  bool StageWarmed(const ScheduleStage& stage, int width) const;
  void MarkWarmed(const ScheduleStage& stage, int width);
  // Frees the longest-unused kernels, never those of the current StageKernels call, until the
  // kernels' copies of constants take at most max_kernel_bytes.
  void FreeUnusedKernels();
  // MeasureStage with each group given the thread share of a stage `width` groups wide
  // (at least the stage's own width).
  StatusOr<double> MeasureStageAs(const Graph& graph, const ScheduleStage& stage, int width);
  // Times `stage` of `graph` whose kernels are `kernels` (indexed by NodeId).
  // `threads`: LowerToCommands's total_threads (each group gets threads / groups).
  StatusOr<double> TimeStage(const Graph& graph, const ScheduleStage& stage,
                             const std::vector<CpuKernel*>& kernels, const Sampling& sampling,
                             int threads);
  // Times `schedule`, whose nodes are those of `nodes` (one stage holding every group: the
  // buffers and the runner are resolved from it).
  StatusOr<double> TimeSchedule(const Graph& graph, const Schedule& schedule,
                                const ScheduleStage& nodes, const std::vector<CpuKernel*>& kernels,
                                const Sampling& sampling, int threads);
  StatusOr<double> TimeCommands(const CommandList& commands, OpRunner& runner,
                                const Sampling& sampling);
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
  uint64_t kernel_clock_ = 0;          // StageKernels calls so far
  std::map<std::vector<NodeId>, std::unique_ptr<MergedStage>> merged_;
  // UnitAloneLatencyMs (one-unit stages at share total_threads_) by the unit's nodes and share.
  std::map<std::pair<std::vector<NodeId>, int>, double> unit_ms_;
  bool launch_overhead_measured_ = false;
  CpuProfilerCounters counters_;
};

}  // namespace ios
