#include "profile/cpu/cpu_profiler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <tuple>
#include <utility>

#include "profile/profiled_stage.h"
#include "plan/fingerprint_proto.h"
#include "runtime/command_list.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/cpu/cpu_threading.h"
#include "util/latency_stats.h"
#include "util/memory_info.h"

namespace ios {
namespace {

constexpr size_t kBufferAlignment = 64;

size_t RoundedBufferBytes(size_t bytes) {
  return (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

// Runs nothing: the launch-overhead baseline has no ops.
class NoOpRunner : public OpRunner {
 public:
  Status RunOp(NodeId, int) override { return Status::Ok(); }
};

}  // namespace

// Runs one stage's ops with the buffers chosen for that stage, resolved before timing as
// CpuSession resolves them once per plan.
class CpuProfilerCostSource::Runner : public OpRunner {
 public:
  Runner(const Graph& graph, const std::vector<CpuKernel*>& kernels, const ScheduleStage& stage,
         const std::vector<void*>& value_ptr)
      : graph_(graph), kernels_(kernels), buffers_(graph.nodes.size()) {
    for (const ScheduleGroup& group : stage.groups)
      for (NodeId n : group.nodes) buffers_[n] = NodeBuffersOf(graph.nodes[n], value_ptr);
  }

  Status RunOp(NodeId op, int threads) override {
    const NodeBuffers& buffers = buffers_[op];
    return kernels_[op]
        ->Run(buffers.inputs, buffers.outputs, threads)
        .WithContext(graph_.Describe(op));
  }

 private:
  const Graph& graph_;
  const std::vector<CpuKernel*>& kernels_;
  std::vector<NodeBuffers> buffers_;  // per NodeId; the stage's nodes only
};

void CpuProfilerCostSource::BufferPool::Deleter::operator()(void* p) const { std::free(p); }

int64_t CpuProfilerCostSource::BufferPool::MissingBytes(size_t bytes, int count) const {
  const auto found = buffers_.find(bytes);
  const int held = found == buffers_.end() ? 0 : static_cast<int>(found->second.size());
  return count > held ? static_cast<int64_t>(count - held) *
                            static_cast<int64_t>(RoundedBufferBytes(bytes))
                      : 0;
}

void* CpuProfilerCostSource::BufferPool::Get(size_t bytes, int index, CpuProfilerCounters& counters,
                                             std::mt19937& rng) {
  if (bytes == 0) return nullptr;
  last_use_[bytes] = ++clock_;
  auto& list = buffers_[bytes];
  while (static_cast<int>(list.size()) <= index) {
    const size_t rounded = RoundedBufferBytes(bytes);
    // Never past the machine's available memory: the buffer is touched at once, and an
    // overcommitted allocation would end in the out-of-memory killer instead of an error.
    if (!CheckFitsInMemory(static_cast<int64_t>(rounded), -1, "", "").ok()) return nullptr;
    auto* data = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, rounded));
    if (data == nullptr) return nullptr;
    if (randomize_) {
      FillRandomStageInput(reinterpret_cast<float*>(data), rounded / sizeof(float), rng);
    } else {
      std::memset(data, 0, rounded);  // faults the pages in now, not in a timed run
    }
    list.emplace_back(data);
    ++counters.buffers_allocated;
    counters.pool_bytes += static_cast<int64_t>(rounded);
    bytes_ += static_cast<int64_t>(rounded);
  }
  return list[index].get();
}

int64_t CpuProfilerCostSource::BufferPool::FreeUnused(const std::map<size_t, int>& keep,
                                                      int64_t bytes,
                                                      CpuProfilerCounters& counters) {
  // (last use, size, buffers of it to keep) of every size with more buffers than that.
  std::vector<std::tuple<uint64_t, size_t, size_t>> unused;
  for (const auto& [size, list] : buffers_) {
    const auto kept = keep.find(size);
    const size_t keep_count = kept == keep.end() ? 0 : static_cast<size_t>(kept->second);
    if (list.size() > keep_count) unused.emplace_back(last_use_[size], size, keep_count);
  }
  std::sort(unused.begin(), unused.end());
  int64_t freed = 0;
  for (const auto& [last_use, size, keep_count] : unused) {
    if (freed >= bytes) break;
    auto& list = buffers_[size];
    const int64_t released =
        static_cast<int64_t>((list.size() - keep_count) * RoundedBufferBytes(size));
    counters.buffers_freed += static_cast<int64_t>(list.size() - keep_count);
    list.resize(keep_count);
    if (list.empty()) {
      buffers_.erase(size);
      last_use_.erase(size);
    }
    bytes_ -= released;
    freed += released;
  }
  return freed;
}

CpuProfilerCostSource::CpuProfilerCostSource(CpuProfilerOptions options) : options_(options) {
  // As the CPU session: never more than OpenMP's thread limit (runtime/cpu/cpu_threading.h).
  total_threads_ =
      ClampThreads(options_.total_threads > 0
                       ? options_.total_threads
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  max_streams_ = options_.max_streams > 0 ? options_.max_streams : total_threads_;
  options_.warmup_runs = std::max(0, options_.warmup_runs);
  options_.repeats = std::max(1, options_.repeats);
  options_.runs_per_repeat = std::max(0, options_.runs_per_repeat);
  options_.min_repeats = std::clamp(options_.min_repeats, 1, options_.repeats);
  options_.max_runs_per_repeat = std::max(1, options_.max_runs_per_repeat);
  executor_ = std::make_unique<StreamExecutor>(max_streams_);
}

CpuProfilerCostSource::~CpuProfilerCostSource() = default;

DeviceFingerprint CpuProfilerCostSource::Fingerprint() const {
  return FromPlanFingerprint(CpuFingerprint());
}

std::string CpuProfilerCostSource::KernelVersions() const { return CpuKernelVersions(); }

std::string CpuProfilerCostSource::CountersText() const {
  const CpuProfilerCounters& c = counters_;
  auto n = [](int64_t value) { return std::to_string(value); };
  // Under a cache (CachedStageCost), one-group stages are composed there and none here.
  const std::string composed =
      c.stages_composed > 0 ? ", " + n(c.stages_composed) + " composed of their units" : "";
  return n(c.stages_measured) + " stages measured (" + n(c.merge_stages_measured) + " merge" +
         composed + "), " + n(c.units_alone_measured) + " units alone; " + n(c.executor_runs) +
         " runs, " + n(c.samples_taken) + " samples; kernels " + n(c.kernels_created) +
         " created, " + n(c.kernel_cache_hits) + " reused, " + n(c.kernels_freed) +
         " freed; buffers " + n(c.buffers_allocated) + " allocated (" + n(c.pool_bytes >> 20) +
         " MiB), " + n(c.buffers_freed) + " freed; empty run " +
         std::to_string(static_cast<int64_t>(c.launch_overhead_ms * 1e3 + 0.5)) +
         " us subtracted per stage";
}

// Caches belong to one graph: another graph drops them. Within a graph, a cached kernel is
// re-checked against its node's signature before every use.
void CpuProfilerCostSource::ResetForGraph(const Graph& graph) {
  if (graph_ != &graph) {
    kernels_.clear();
    counters_.kernel_bytes = 0;
    merged_.clear();
    unit_ms_.clear();
    graph_ = &graph;
  }
  if (kernels_.size() != graph.nodes.size()) kernels_.resize(graph.nodes.size());
}

StatusOr<CpuKernel*> CpuProfilerCostSource::KernelFor(const Graph& graph, NodeId node) {
  CachedKernel& cached = kernels_[node];
  std::string signature = NodeKernelSignature(graph, node);
  if (cached.kernel && cached.signature == signature) {
    ++counters_.kernel_cache_hits;
    return cached.kernel.get();
  }
  cached.warmed_group_counts.clear();
  counters_.kernel_bytes -= cached.copied_bytes;
  cached.copied_bytes = 0;
  cached.kernel.reset();
  IOS_ASSIGN_OR_RETURN(cached.kernel,
                       CreateCpuKernel(MakeCpuKernelContext(graph, graph.nodes[node])));
  cached.signature = std::move(signature);
  const Node& op = graph.nodes[node];
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const Value* input = op.inputs[i] != kNoValue ? &graph.values[op.inputs[i]] : nullptr;
    if (input != nullptr && input->constant && cached.kernel->CopiedConstantInput(i))
      cached.copied_bytes += static_cast<int64_t>(input->constant->num_bytes());
  }
  counters_.kernel_bytes += cached.copied_bytes;
  ++counters_.kernels_created;
  return cached.kernel.get();
}

bool CpuProfilerCostSource::KernelWarmed(NodeId n, int width) const {
  const std::vector<int>& widths = kernels_[n].warmed_group_counts;
  return std::find(widths.begin(), widths.end(), width) != widths.end();
}

bool CpuProfilerCostSource::StageWarmed(const ScheduleStage& stage, int width) const {
  for (const ScheduleGroup& group : stage.groups)
    for (NodeId n : group.nodes)
      if (!KernelWarmed(n, width)) return false;
  return true;
}

void CpuProfilerCostSource::MarkWarmed(const ScheduleStage& stage, int width) {
  for (const ScheduleGroup& group : stage.groups)
    for (NodeId n : group.nodes)
      if (!KernelWarmed(n, width)) kernels_[n].warmed_group_counts.push_back(width);
}

void CpuProfilerCostSource::FreeUnusedKernels() {
  if (counters_.kernel_bytes <= options_.max_kernel_bytes) return;
  std::vector<NodeId> unused;
  for (size_t n = 0; n < kernels_.size(); ++n)
    if (kernels_[n].kernel && kernels_[n].last_use < kernel_clock_ && kernels_[n].copied_bytes > 0)
      unused.push_back(static_cast<NodeId>(n));
  std::sort(unused.begin(), unused.end(), [&](NodeId a, NodeId b) {
    return kernels_[a].last_use < kernels_[b].last_use;
  });
  for (NodeId n : unused) {
    if (counters_.kernel_bytes <= options_.max_kernel_bytes) break;
    CachedKernel& cached = kernels_[n];
    counters_.kernel_bytes -= cached.copied_bytes;
    cached = CachedKernel{};
    ++counters_.kernels_freed;
  }
}

StatusOr<CpuProfilerCostSource::MergedStage*> CpuProfilerCostSource::MergedStageFor(
    const Graph& graph, const ScheduleStage& stage) {
  // Kernels point into the scratch graph: made once it sits at its final address.
  auto create_kernels = [&](MergedStage& fresh) -> Status {
    fresh.kernels.resize(fresh.graph.nodes.size());
    for (const ScheduleGroup& group : fresh.stage.groups) {
      for (NodeId n : group.nodes) {
        IOS_ASSIGN_OR_RETURN(fresh.kernels[n], CreateCpuKernel(MakeCpuKernelContext(
                                                   fresh.graph, fresh.graph.nodes[n])));
        ++counters_.kernels_created;
      }
    }
    return Status::Ok();
  };
  bool hit = false;
  IOS_ASSIGN_OR_RETURN(MergedStage * merged,
                       FindOrBuildMergedStage(graph, stage, merged_, &hit, create_kernels));
  if (hit)
    counters_.kernel_cache_hits += static_cast<int64_t>(merged->stage.groups[0].nodes.size());
  return merged;
}

StatusOr<double> CpuProfilerCostSource::StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                                       const StageCandidate& stage) {
  const bool one_group = stage.strategy != StageStrategy::kMerge && stage.groups.size() == 1;
  if (one_group && stage.groups[0].size() == 1)
    return UnitAloneLatencyMs(graph, units, stage.groups[0][0], 1);
  if (one_group && options_.compose_one_group_stages) {
    double sum = 0;
    for (UnitId unit : stage.groups[0]) {
      IOS_ASSIGN_OR_RETURN(double ms, UnitAloneLatencyMs(graph, units, unit, 1));
      sum += ms;
    }
    ++counters_.stages_composed;
    return sum;
  }
  IOS_ASSIGN_OR_RETURN(ScheduleStage nodes_stage, NodeStageOf(units, stage));
  return MeasureStage(graph, nodes_stage);
}

StatusOr<double> CpuProfilerCostSource::UnitAloneLatencyMs(const Graph& graph,
                                                           const UnitGraph& units, UnitId unit,
                                                           int stage_width) {
  // A share of every thread is the one-unit stage itself, whatever the width asked.
  const int share = std::max(1, total_threads_ / std::max(1, stage_width));
  const int width = share == total_threads_ ? 1 : stage_width;
  StageCandidate alone;
  alone.groups = {{unit}};
  IOS_ASSIGN_OR_RETURN(ScheduleStage nodes_stage, NodeStageOf(units, alone));
  ResetForGraph(graph);  // drops the memo when the graph changes
  auto key = std::make_pair(nodes_stage.groups[0].nodes, share);
  auto known = unit_ms_.find(key);
  if (known != unit_ms_.end()) return known->second;
  IOS_ASSIGN_OR_RETURN(double ms, MeasureStageAs(graph, nodes_stage, width));
  if (width > 1) ++counters_.units_alone_measured;
  unit_ms_.emplace(std::move(key), ms);
  return ms;
}

StatusOr<double> CpuProfilerCostSource::MeasureStage(const Graph& graph,
                                                     const ScheduleStage& stage) {
  return MeasureStageAs(graph, stage, static_cast<int>(stage.groups.size()));
}

StatusOr<double> CpuProfilerCostSource::MeasureStageAs(const Graph& graph,
                                                       const ScheduleStage& stage, int width) {
  IOS_RETURN_IF_ERROR(CheckStageNodesLive(graph, stage));
  width = std::max(width, static_cast<int>(stage.groups.size()));
  ResetForGraph(graph);
  if (options_.subtract_launch_overhead && !launch_overhead_measured_)
    IOS_RETURN_IF_ERROR(MeasureLaunchOverhead());

  double ms = 0;
  if (stage.strategy == StageStrategy::kMerge) {
    IOS_ASSIGN_OR_RETURN(MergedStage * merged, MergedStageFor(graph, stage));
    std::vector<CpuKernel*> kernels(merged->kernels.size(), nullptr);
    for (size_t n = 0; n < kernels.size(); ++n) kernels[n] = merged->kernels[n].get();
    const Sampling sampling = StageSampling(merged->warmed);
    IOS_ASSIGN_OR_RETURN(ms, TimeStage(merged->graph, merged->stage, kernels, sampling,
                                       total_threads_));
    merged->warmed = true;
    ++counters_.merge_stages_measured;
  } else {
    IOS_ASSIGN_OR_RETURN(std::vector<CpuKernel*> kernels, StageKernels(graph, stage));
    const bool warmed = StageWarmed(stage, width);
    // Each of the stage's groups gets the thread share of a stage `width` groups wide.
    const int threads =
        std::max(1, total_threads_ / width) * static_cast<int>(stage.groups.size());
    IOS_ASSIGN_OR_RETURN(ms, TimeStage(graph, stage, kernels,
                                       StageSampling(warmed),
                                       threads));
    MarkWarmed(stage, width);
  }
  ++counters_.stages_measured;
  return std::max(kMinStageLatencyMs, ms - counters_.launch_overhead_ms);
}

StatusOr<double> CpuProfilerCostSource::BlockLatencyMs(const Graph& graph,
                                                       const ScheduleBlock& block, int) {
  // A lone merge stage runs as the stage profiler runs it, on its merged scratch graph (the
  // block check's segments isolate them; a longer block with one cannot run before the merge).
  if (block.stages.size() == 1 && block.stages[0].strategy == StageStrategy::kMerge)
    return MeasureStage(graph, block.stages[0]);
  ScheduleStage nodes;
  for (const ScheduleStage& stage : block.stages) {
    if (stage.strategy == StageStrategy::kMerge)
      return Unsupported("a block with a merge stage is measured stage by stage");
    nodes.groups.insert(nodes.groups.end(), stage.groups.begin(), stage.groups.end());
  }
  IOS_RETURN_IF_ERROR(CheckStageNodesLive(graph, nodes));
  // The block's buffers, produced ones reused by liveness as a plan's arena reuses bytes
  // (BlockBuffers): a block whose buffers still take too much is not measured whole.
  int64_t bytes = 0;
  std::set<std::tuple<bool, size_t, int>> slots;
  for (const StageBuffer& buffer : BlockBuffers(graph, block))
    if (slots.insert({buffer.produced, buffer.bytes, buffer.pool_index}).second)
      bytes += static_cast<int64_t>(buffer.bytes);
  if (bytes > options_.max_block_bytes)
    return Unsupported("the block's tensors take " + std::to_string(bytes >> 20) +
                       " MiB, more than a block is measured whole with");
  ResetForGraph(graph);
  if (options_.subtract_launch_overhead && !launch_overhead_measured_)
    IOS_RETURN_IF_ERROR(MeasureLaunchOverhead());
  IOS_ASSIGN_OR_RETURN(std::vector<CpuKernel*> kernels,
                       StageKernels(graph, nodes));
  // Each stage's ops run with that stage's thread share; one warm-up run when every op has run
  // with its share before (a block is measured both ways, twice, and its stages were measured
  // in the search: at batch 8 a second warm-up of a NasNet segment costs a tenth of a second).
  bool warmed = true;
  for (const ScheduleStage& stage : block.stages)
    warmed = warmed && StageWarmed(stage, static_cast<int>(stage.groups.size()));
  Schedule schedule;
  schedule.kind = "profiler";
  schedule.blocks = {block};
  Sampling sampling = StageSampling(warmed);
  sampling.min_samples = std::min(std::max(3, sampling.min_samples), sampling.max_samples);
  IOS_ASSIGN_OR_RETURN(double ms,
                       TimeSchedule(graph, schedule, nodes, kernels, sampling, total_threads_));
  for (const ScheduleStage& stage : block.stages)
    MarkWarmed(stage, static_cast<int>(stage.groups.size()));
  return std::max(kMinStageLatencyMs, ms - counters_.launch_overhead_ms);
}

CpuProfilerCostSource::Sampling CpuProfilerCostSource::StageSampling(bool warm) const {
  Sampling sampling;
  sampling.warmup_runs = warm ? std::min(1, options_.warmup_runs) : options_.warmup_runs;
  sampling.kernels_warm = warm;
  sampling.runs_per_sample = options_.runs_per_repeat;
  sampling.min_samples = options_.min_repeats;
  sampling.max_samples = options_.repeats;
  sampling.settle_tolerance = options_.settle_tolerance;
  return sampling;
}

StatusOr<std::vector<CpuKernel*>> CpuProfilerCostSource::StageKernels(const Graph& graph,
                                                                      const ScheduleStage& stage) {
  std::vector<CpuKernel*> kernels(graph.nodes.size(), nullptr);
  ++kernel_clock_;
  for (const ScheduleGroup& group : stage.groups) {
    for (NodeId n : group.nodes) {
      IOS_ASSIGN_OR_RETURN(kernels[n], KernelFor(graph, n));
      kernels_[n].last_use = kernel_clock_;
    }
  }
  FreeUnusedKernels();
  return kernels;
}

StatusOr<double> CpuProfilerCostSource::TimeStage(const Graph& graph, const ScheduleStage& stage,
                                                  const std::vector<CpuKernel*>& kernels,
                                                  const Sampling& sampling, int threads) {
  return TimeSchedule(graph, OneStageSchedule(stage, "profiler"), stage, kernels, sampling,
                      threads);
}

StatusOr<double> CpuProfilerCostSource::TimeSchedule(const Graph& graph, const Schedule& schedule,
                                                     const ScheduleStage& stage,
                                                     const std::vector<CpuKernel*>& kernels,
                                                     const Sampling& sampling, int threads) {
  // Buffers: values produced inside the stage come from the work pool, the others (the stage's
  // inputs) from the random-filled input pool; constants are read in place.
  // One block of stages (one for a stage): produced buffers reused by liveness across them.
  const std::vector<StageBuffer> buffers = schedule.blocks.size() == 1
                                               ? BlockBuffers(graph, schedule.blocks[0])
                                               : StageBuffers(graph, stage);
  std::map<std::pair<bool, size_t>, int> wanted;  // (produced, bytes): buffers of that size
  for (const StageBuffer& buffer : buffers) {
    int& count = wanted[{buffer.produced, buffer.bytes}];
    count = std::max(count, buffer.pool_index + 1);
  }
  int64_t missing = 0;
  for (const auto& [kind, count] : wanted)
    missing += (kind.first ? work_pool_ : input_pool_).MissingBytes(kind.second, count);
  const int64_t held = work_pool_.bytes() + input_pool_.bytes();
  if (missing > 0 && held + missing > options_.max_pool_bytes) {
    // Room for the new buffers: the buffers this measurement does not use are freed, of the
    // sizes asked for longest ago first (neighbouring stages share shapes). Those it uses stay,
    // even past the limit: batch-8 stages of RandWire use up to 430 MiB, and emptying both pools
    // before each of them made its profile allocate and fill 62 GB of buffers (9.7 GB now).
    std::map<size_t, int> work_counts, input_counts;  // size: how many of it this one uses
    for (const auto& [kind, count] : wanted)
      (kind.first ? work_counts : input_counts)[kind.second] = count;
    const int64_t over = held + missing - options_.max_pool_bytes;
    // Work buffers first: they are only zeroed, inputs are filled with random numbers.
    int64_t freed = work_pool_.FreeUnused(work_counts, over, counters_);
    if (freed < over) freed += input_pool_.FreeUnused(input_counts, over - freed, counters_);
    if (freed < over) ++counters_.pools_over_limit;
    // Or glibc keeps the freed buffers, fragmented by their sizes.
    if (freed > 0) ReleaseFreedMemory();
  }
  std::vector<void*> value_ptr(graph.values.size(), nullptr);
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (graph.values[v].constant)
      value_ptr[v] = const_cast<uint8_t*>(graph.values[v].constant->raw());
  }
  for (const StageBuffer& buffer : buffers) {
    void* data = (buffer.produced ? work_pool_ : input_pool_)
                     .Get(buffer.bytes, buffer.pool_index, counters_, rng_);
    if (data == nullptr)
      return InvalidInput("profiling needs a " + std::to_string(buffer.bytes >> 20) +
                          " MiB buffer for '" + graph.values[buffer.value].name +
                          "', more than this machine has available (lower --batch or "
                          "--input-shape, or compile for an analytic --device sim:...)");
    value_ptr[buffer.value] = data;
  }

  IOS_ASSIGN_OR_RETURN(CommandList commands,
                       LowerToCommands(graph, schedule, max_streams_, threads));
  Runner runner(graph, kernels, stage, value_ptr);
  return TimeCommands(commands, runner, sampling);
}

StatusOr<double> CpuProfilerCostSource::TimeCommands(const CommandList& commands,
                                                     OpRunner& runner, const Sampling& sampling) {
  using Clock = std::chrono::steady_clock;
  auto elapsed_ms = [](Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };
  const StreamExecutor::Origin origin = OriginForCaller();
  double last_run_ms = 0;
  for (int i = 0; i < sampling.warmup_runs; ++i) {
    const Clock::time_point start = Clock::now();
    IOS_RETURN_IF_ERROR(executor_->Run(commands, runner, nullptr, origin));
    last_run_ms = elapsed_ms(start);
    ++counters_.executor_runs;
  }
  int runs = sampling.runs_per_sample;
  if (runs <= 0) {
    runs = 1;
    if (last_run_ms > 0 && last_run_ms < options_.min_sample_ms)
      runs = static_cast<int>(std::min<double>(options_.max_runs_per_repeat,
                                               std::ceil(options_.min_sample_ms / last_run_ms)));
  }
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(sampling.max_samples));
  const bool created_nothing =
      sampling.warmup_runs >= 2 || (sampling.warmup_runs == 1 && sampling.kernels_warm);
  if (created_nothing && runs == 1 && options_.warmup_sample_ms > 0 &&
      last_run_ms >= options_.warmup_sample_ms)
    samples.push_back(last_run_ms);
  while (static_cast<int>(samples.size()) < sampling.max_samples) {
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < runs; ++i)
      IOS_RETURN_IF_ERROR(executor_->Run(commands, runner, nullptr, origin));
    samples.push_back(elapsed_ms(start) / runs);
    counters_.executor_runs += runs;
    if (sampling.settle_tolerance > 0 &&
        MedianSettled(samples, sampling.min_samples, sampling.settle_tolerance))
      break;
  }
  if (sampling.counted) counters_.samples_taken += static_cast<int64_t>(samples.size());
  return RobustMedian(std::move(samples));
}

Status CpuProfilerCostSource::MeasureLaunchOverhead() {
  // An empty origin stream: the executor wakes worker 0, which finds nothing to do. Many more
  // runs per sample than a stage: each run is only microseconds.
  CommandList empty;
  empty.streams.resize(1);
  NoOpRunner runner;
  Sampling sampling;
  sampling.warmup_runs = std::max(options_.warmup_runs, 10);
  sampling.runs_per_sample = 60;
  sampling.max_samples = 7;
  sampling.counted = false;  // the baseline's samples are not a stage's
  StatusOr<double> ms = TimeCommands(empty, runner, sampling);
  IOS_RETURN_IF_ERROR(ms.status());
  counters_.launch_overhead_ms = ms.value();
  launch_overhead_measured_ = true;
  return Status::Ok();
}

}  // namespace ios
