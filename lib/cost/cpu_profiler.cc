#include "cost/cpu_profiler.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "passes/merge_convs.h"
#include "runtime/command_list.h"
#include "runtime/cpu/cpu_device.h"
#include "util/latency_stats.h"

namespace ios {
namespace {

constexpr size_t kBufferAlignment = 64;

// What a cached kernel was made for: a different node under the same id (another graph at the
// same address, or a graph changed in between) gets a new kernel.
std::string KernelSignature(const Graph& graph, NodeId id) {
  const Node& node = graph.nodes[id];
  std::string signature = node.op_type + "|" + node.name;
  for (ValueId v : node.inputs)
    signature += "|" + (v == kNoValue ? std::string("-") : DimsToString(graph.values[v].dims));
  for (ValueId v : node.outputs)
    signature += "|" + (v == kNoValue ? std::string("-") : DimsToString(graph.values[v].dims));
  return signature;
}

size_t ValueBytes(const Value& value) {
  return static_cast<size_t>(NumElements(value.dims)) * DTypeSize(value.dtype);
}

// Runs nothing: the launch-overhead baseline has no ops.
class NoOpRunner : public OpRunner {
 public:
  Status RunOp(NodeId, int) override { return Status::Ok(); }
};

}  // namespace

// Runs one stage's ops with the buffers chosen for that stage.
class CpuProfilerCostSource::Runner : public OpRunner {
 public:
  Runner(const Graph& graph, const std::vector<CpuKernel*>& kernels,
         const std::vector<void*>& value_ptr)
      : graph_(graph), kernels_(kernels), value_ptr_(value_ptr) {}

  Status RunOp(NodeId op, int threads) override {
    const Node& node = graph_.nodes[op];
    // Per call, as CpuSession does (the kernels take vectors); small next to any kernel.
    std::vector<const void*> inputs;
    std::vector<void*> outputs;
    inputs.reserve(node.inputs.size());
    outputs.reserve(node.outputs.size());
    for (ValueId in : node.inputs) inputs.push_back(in == kNoValue ? nullptr : value_ptr_[in]);
    for (ValueId out : node.outputs)
      outputs.push_back(out == kNoValue ? nullptr : value_ptr_[out]);
    return kernels_[op]->Run(inputs, outputs, threads).WithContext(graph_.Describe(op));
  }

 private:
  const Graph& graph_;
  const std::vector<CpuKernel*>& kernels_;
  const std::vector<void*>& value_ptr_;
};

void CpuProfilerCostSource::BufferPool::Deleter::operator()(void* p) const { std::free(p); }

void* CpuProfilerCostSource::BufferPool::Get(size_t bytes, int index,
                                             CpuProfilerCounters& counters, std::mt19937& rng) {
  if (bytes == 0) return nullptr;
  auto& list = buffers_[bytes];
  while (static_cast<int>(list.size()) <= index) {
    const size_t rounded = (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
    auto* data = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, rounded));
    if (data == nullptr) return nullptr;
    if (randomize_) {
      // Stage inputs: float-shaped random data (every supported activation is fp32; integer
      // inputs of index ops are constants, which never come from the pool).
      std::uniform_real_distribution<float> dist(-1.f, 1.f);
      float* f = reinterpret_cast<float*>(data);
      const size_t n = rounded / sizeof(float);
      for (size_t i = 0; i < n; ++i) f[i] = dist(rng);
    } else {
      std::memset(data, 0, rounded);  // faults the pages in now, not in a timed run
    }
    list.emplace_back(data);
    ++counters.buffers_allocated;
    counters.pool_bytes += static_cast<int64_t>(rounded);
  }
  return list[index].get();
}

CpuProfilerCostSource::CpuProfilerCostSource(CpuProfilerOptions options)
    : options_(options) {
  total_threads_ = options_.total_threads > 0
                       ? options_.total_threads
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  max_streams_ = options_.max_streams > 0 ? options_.max_streams : total_threads_;
  options_.warmup_runs = std::max(0, options_.warmup_runs);
  options_.repeats = std::max(1, options_.repeats);
  options_.runs_per_repeat = std::max(1, options_.runs_per_repeat);
  executor_ = std::make_unique<StreamExecutor>(max_streams_);
}

CpuProfilerCostSource::~CpuProfilerCostSource() = default;

plan::DeviceFingerprint CpuProfilerCostSource::Fingerprint() const { return CpuFingerprint(); }

// Caches belong to one graph: another graph drops them. Within a graph, a cached kernel is
// re-checked against its node's signature before every use.
void CpuProfilerCostSource::ResetForGraph(const Graph& graph) {
  if (graph_ != &graph) {
    kernels_.clear();
    merged_.clear();
    graph_ = &graph;
  }
  if (kernels_.size() != graph.nodes.size()) kernels_.resize(graph.nodes.size());
}

StatusOr<CpuKernel*> CpuProfilerCostSource::KernelFor(const Graph& graph, NodeId node) {
  CachedKernel& cached = kernels_[node];
  std::string signature = KernelSignature(graph, node);
  if (cached.kernel && cached.signature == signature) {
    ++counters_.kernel_cache_hits;
    return cached.kernel.get();
  }
  IOS_ASSIGN_OR_RETURN(cached.kernel, CreateCpuKernel(MakeCpuKernelContext(graph, graph.nodes[node])));
  cached.signature = std::move(signature);
  ++counters_.kernels_created;
  return cached.kernel.get();
}

StatusOr<CpuProfilerCostSource::MergedStage*> CpuProfilerCostSource::MergedStageFor(
    const Graph& graph, const ScheduleStage& stage) {
  std::vector<NodeId> convs;
  std::string signature;
  for (const ScheduleGroup& group : stage.groups) {
    if (group.nodes.size() != 1)
      return Internal("a merge stage needs one conv per group; a group has " +
                      std::to_string(group.nodes.size()) + " ops");
    const NodeId n = group.nodes[0];
    if (graph.nodes[n].op_type != "Conv")
      return Internal("a merge stage holds " + graph.Describe(n) + ", which is not a Conv");
    convs.push_back(n);
    signature += KernelSignature(graph, n) + ";";
  }
  auto found = merged_.find(convs);
  if (found != merged_.end() && found->second->signature == signature) {
    counters_.kernel_cache_hits += static_cast<int64_t>(found->second->stage.groups[0].nodes.size());
    return found->second.get();
  }

  // A scratch graph holding only what the merge reads: the shared input, weights, biases and
  // the convs (copying the whole graph would copy every weight of the model).
  auto merged = std::make_unique<MergedStage>();
  merged->signature = signature;
  Graph& scratch = merged->graph;
  scratch.name = graph.name;
  scratch.source_path = graph.source_path;
  scratch.opset = graph.opset;
  std::map<ValueId, ValueId> copied;  // graph's value -> scratch value
  auto copy_value = [&](ValueId id) -> ValueId {
    if (id == kNoValue) return kNoValue;
    auto it = copied.find(id);
    if (it != copied.end()) return it->second;
    const Value& from = graph.values[id];
    Value value;
    value.name = from.name;
    value.dtype = from.dtype;
    value.dims = from.dims;
    value.has_shape = from.has_shape;
    value.constant = from.constant;
    const ValueId to = scratch.AddValue(std::move(value));
    copied[id] = to;
    return to;
  };
  Schedule schedule;
  schedule.kind = "profiler-merge";
  schedule.blocks.resize(1);
  ScheduleStage& scratch_stage = schedule.blocks[0].stages.emplace_back();
  scratch_stage.strategy = StageStrategy::kMerge;
  for (NodeId n : convs) {
    const Node& from = graph.nodes[n];
    Node node = from;
    node.inputs.clear();
    node.outputs.clear();
    for (ValueId in : from.inputs) {
      const bool is_new = in != kNoValue && copied.count(in) == 0;
      const ValueId to = copy_value(in);
      if (is_new && !scratch.values[to].constant) scratch.inputs.push_back(to);
      node.inputs.push_back(to);
    }
    for (ValueId out : from.outputs) node.outputs.push_back(copy_value(out));
    const NodeId id = scratch.AddNode(std::move(node));
    for (ValueId out : scratch.nodes[id].outputs)
      if (out != kNoValue) scratch.outputs.push_back(out);
    scratch_stage.groups.push_back(ScheduleGroup{{id}});
  }
  scratch.RebuildUses();
  IOS_RETURN_IF_ERROR(ApplyMergeStages(scratch, schedule).WithContext("merging a stage to profile it"));
  if (schedule.blocks.size() != 1 || schedule.blocks[0].stages.size() != 1)
    return Internal("ApplyMergeStages changed the shape of a one-stage schedule");
  merged->stage = schedule.blocks[0].stages[0];
  merged->kernels.resize(scratch.nodes.size());
  for (const ScheduleGroup& group : merged->stage.groups) {
    for (NodeId n : group.nodes) {
      IOS_ASSIGN_OR_RETURN(merged->kernels[n],
                           CreateCpuKernel(MakeCpuKernelContext(scratch, scratch.nodes[n])));
      ++counters_.kernels_created;
    }
  }
  MergedStage* result = merged.get();
  merged_[convs] = std::move(merged);
  return result;
}

StatusOr<double> CpuProfilerCostSource::StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                                       const StageCandidate& stage) {
  ScheduleStage nodes_stage;
  nodes_stage.strategy = stage.strategy;
  for (const std::vector<UnitId>& group : stage.groups) {
    ScheduleGroup& nodes = nodes_stage.groups.emplace_back();
    for (UnitId u : group) {
      if (u < 0 || u >= static_cast<UnitId>(units.units.size()))
        return Internal("stage names unit " + std::to_string(u) + " of " +
                        std::to_string(units.units.size()));
      const Unit& unit = units.units[u];
      nodes.nodes.insert(nodes.nodes.end(), unit.nodes.begin(), unit.nodes.end());
    }
  }
  return MeasureStage(graph, nodes_stage);
}

StatusOr<double> CpuProfilerCostSource::MeasureStage(const Graph& graph,
                                                     const ScheduleStage& stage) {
  for (const ScheduleGroup& group : stage.groups) {
    for (NodeId n : group.nodes) {
      if (n < 0 || n >= static_cast<NodeId>(graph.nodes.size()) || graph.nodes[n].dead)
        return Internal("stage names node " + std::to_string(n) + ", which is not live");
    }
  }
  ResetForGraph(graph);
  if (options_.subtract_launch_overhead && !launch_overhead_measured_)
    IOS_RETURN_IF_ERROR(MeasureLaunchOverhead());

  double ms = 0;
  if (stage.strategy == StageStrategy::kMerge) {
    IOS_ASSIGN_OR_RETURN(MergedStage * merged, MergedStageFor(graph, stage));
    std::vector<CpuKernel*> kernels(merged->kernels.size(), nullptr);
    for (size_t n = 0; n < kernels.size(); ++n) kernels[n] = merged->kernels[n].get();
    IOS_ASSIGN_OR_RETURN(ms, TimeStage(merged->graph, merged->stage, kernels));
    ++counters_.merge_stages_measured;
  } else {
    std::vector<CpuKernel*> kernels(graph.nodes.size(), nullptr);
    for (const ScheduleGroup& group : stage.groups) {
      for (NodeId n : group.nodes) {
        IOS_ASSIGN_OR_RETURN(kernels[n], KernelFor(graph, n));
      }
    }
    IOS_ASSIGN_OR_RETURN(ms, TimeStage(graph, stage, kernels));
  }
  ++counters_.stages_measured;
  return std::max(kMinStageLatencyMs, ms - counters_.launch_overhead_ms);
}

StatusOr<double> CpuProfilerCostSource::TimeStage(const Graph& graph, const ScheduleStage& stage,
                                                  const std::vector<CpuKernel*>& kernels) {
  // Buffers: values produced inside the stage come from the work pool, the others (the stage's
  // inputs) from the random-filled input pool; constants are read in place.
  std::vector<bool> produced(graph.values.size(), false);
  for (const ScheduleGroup& group : stage.groups)
    for (NodeId n : group.nodes)
      for (ValueId out : graph.nodes[n].outputs)
        if (out != kNoValue) produced[out] = true;
  std::vector<void*> value_ptr(graph.values.size(), nullptr);
  std::vector<bool> placed(graph.values.size(), false);
  std::map<size_t, int> input_index, work_index;  // per byte size: buffers taken so far
  auto place = [&](ValueId v) -> Status {
    if (v == kNoValue || placed[v]) return Status::Ok();
    placed[v] = true;
    const Value& value = graph.values[v];
    if (value.constant) {
      value_ptr[v] = const_cast<uint8_t*>(value.constant->raw());
      return Status::Ok();
    }
    const size_t bytes = ValueBytes(value);
    if (bytes == 0) return Status::Ok();
    const bool work = produced[v];
    int& index = (work ? work_index : input_index)[bytes];
    value_ptr[v] = (work ? work_pool_ : input_pool_).Get(bytes, index++, counters_, rng_);
    if (value_ptr[v] == nullptr)
      return Internal("cannot allocate a " + std::to_string(bytes) + "-byte profiling buffer");
    return Status::Ok();
  };
  for (const ScheduleGroup& group : stage.groups) {
    for (NodeId n : group.nodes) {
      for (ValueId in : graph.nodes[n].inputs) IOS_RETURN_IF_ERROR(place(in));
      for (ValueId out : graph.nodes[n].outputs) IOS_RETURN_IF_ERROR(place(out));
    }
  }

  Schedule schedule;
  schedule.kind = "profiler";
  schedule.blocks.resize(1);
  schedule.blocks[0].stages.push_back(stage);
  IOS_ASSIGN_OR_RETURN(CommandList commands,
                       LowerToCommands(graph, schedule, max_streams_, total_threads_));
  Runner runner(graph, kernels, value_ptr);
  return TimeCommands(commands, runner);
}

StatusOr<double> CpuProfilerCostSource::TimeCommands(const CommandList& commands,
                                                     OpRunner& runner) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < options_.warmup_runs; ++i) {
    IOS_RETURN_IF_ERROR(executor_->Run(commands, runner));
    ++counters_.executor_runs;
  }
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(options_.repeats));
  for (int r = 0; r < options_.repeats; ++r) {
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < options_.runs_per_repeat; ++i)
      IOS_RETURN_IF_ERROR(executor_->Run(commands, runner));
    const Clock::time_point end = Clock::now();
    counters_.executor_runs += options_.runs_per_repeat;
    samples.push_back(std::chrono::duration<double, std::milli>(end - start).count() /
                      options_.runs_per_repeat);
  }
  return RobustMedian(std::move(samples));
}

Status CpuProfilerCostSource::MeasureLaunchOverhead() {
  // An empty origin stream: the executor wakes worker 0, which finds nothing to do. Many more
  // runs per sample than a stage: each run is only microseconds.
  CommandList empty;
  empty.streams.resize(1);
  NoOpRunner runner;
  const CpuProfilerOptions saved = options_;
  options_.warmup_runs = std::max(options_.warmup_runs, 10);
  options_.runs_per_repeat = options_.runs_per_repeat * 20;
  StatusOr<double> ms = TimeCommands(empty, runner);
  options_ = saved;
  IOS_RETURN_IF_ERROR(ms.status());
  counters_.launch_overhead_ms = ms.value();
  launch_overhead_measured_ = true;
  return Status::Ok();
}

}  // namespace ios
