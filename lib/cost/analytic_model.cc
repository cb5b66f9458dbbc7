#include "cost/analytic_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <variant>

#include "sched/merge_shape.h"
#include "ir/fused_activation.h"
#include "ops/op_registry.h"

namespace ios {
namespace {

constexpr double kGemmReductionSplit = 32;     // threads that may share one output's reduction
constexpr double kInputElementsPerThread = 4;  // memory-bound ops: input elements per thread

GpuSpec MakeSpec(std::string name, std::string product, int major, int minor, int sms,
                 double peak_tflops, double bandwidth_gbs, double launch_us) {
  GpuSpec spec;
  spec.name = std::move(name);
  spec.product = std::move(product);
  spec.compute_major = major;
  spec.compute_minor = minor;
  spec.multiprocessors = sms;
  spec.threads_per_sm = 2048;
  spec.peak_flops = peak_tflops * 1e12;
  spec.mem_bandwidth = bandwidth_gbs * 1e9;
  spec.launch_us = launch_us;
  spec.stream_sync_us = 1.0;
  spec.compute_efficiency = 0.70;
  spec.memory_efficiency = 0.85;
  spec.work_per_thread = 1;
  spec.contention = 0.10;
  return spec;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

double Elements(const Value& value) {
  return value.has_shape ? static_cast<double>(NumElements(value.dims)) : 0;
}

double Bytes(const Value& value) { return Elements(value) * DTypeSize(value.dtype); }

// W of one op (see the header).
double ParallelWork(const Graph& graph, const Node& node, double flops) {
  double outputs = 0;
  for (ValueId out : node.outputs)
    if (out != kNoValue) outputs += Elements(graph.values[out]);
  outputs = std::max(outputs, 1.0);
  if (node.op_type == "Conv" || node.op_type == "ConvTranspose") return outputs;
  if (node.op_type == "Gemm" || node.op_type == "MatMul") {
    const double reduction = std::max(1.0, flops / (2 * outputs));
    return outputs * std::min(reduction, kGemmReductionSplit);
  }
  double largest_input = 0;
  for (ValueId in : node.inputs)
    if (in != kNoValue) largest_input = std::max(largest_input, Elements(graph.values[in]));
  return std::max(outputs, largest_input / kInputElementsPerThread);
}

// FNV-1a over 64-bit words: one multiply per word, as this runs for every op of every stage.
uint64_t Mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ULL; }

uint64_t MixString(uint64_t h, const std::string& s) {
  h = Mix(h, s.size());
  for (size_t i = 0; i < s.size(); i += 8) {  // eight bytes at a time
    uint64_t chunk = 0;
    std::memcpy(&chunk, s.data() + i, std::min<size_t>(8, s.size() - i));
    h = Mix(h, chunk);
  }
  return h;
}

uint64_t MixDims(uint64_t h, const Dims& dims) {
  h = Mix(h, dims.size());
  for (int64_t d : dims) h = Mix(h, static_cast<uint64_t>(d));
  return h;
}

uint64_t MixFloat(uint64_t h, float f) {
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof(bits));
  return Mix(h, bits);
}

// Everything an op's estimate depends on: its type, opset, attributes, and the dtypes and dims
// of its inputs and outputs (a tensor attribute by dtype and dims; costs never read values).
uint64_t NodeFingerprint(const Graph& graph, const Node& node) {
  uint64_t h = MixString(0xcbf29ce484222325ULL, node.op_type);
  h = Mix(h, static_cast<uint64_t>(node.opset));
  for (const std::vector<ValueId>* values : {&node.inputs, &node.outputs}) {
    h = Mix(h, values->size());
    for (ValueId v : *values) {
      if (v == kNoValue) {
        h = Mix(h, ~uint64_t{0});
        continue;
      }
      const Value& value = graph.values[v];
      h = Mix(h, static_cast<uint64_t>(value.dtype));
      h = Mix(h, value.has_shape);
      h = MixDims(h, value.dims);
    }
  }
  for (const auto& [name, attribute] : node.attrs.all()) {
    h = MixString(h, name);
    h = Mix(h, attribute.index());
    if (const auto* i = std::get_if<int64_t>(&attribute)) {
      h = Mix(h, static_cast<uint64_t>(*i));
    } else if (const auto* f = std::get_if<float>(&attribute)) {
      h = MixFloat(h, *f);
    } else if (const auto* text = std::get_if<std::string>(&attribute)) {
      h = MixString(h, *text);
    } else if (const auto* ints = std::get_if<std::vector<int64_t>>(&attribute)) {
      h = MixDims(h, *ints);
    } else if (const auto* floats = std::get_if<std::vector<float>>(&attribute)) {
      h = Mix(h, floats->size());
      for (float x : *floats) h = MixFloat(h, x);
    } else if (const auto* strings = std::get_if<std::vector<std::string>>(&attribute)) {
      h = Mix(h, strings->size());
      for (const std::string& x : *strings) h = MixString(h, x);
    } else if (const auto* tensor = std::get_if<Tensor>(&attribute)) {
      h = Mix(h, static_cast<uint64_t>(tensor->dtype()));
      h = MixDims(h, tensor->dims());
    }
  }
  return h;
}

// The sum of the demands and times of a sequence of kernels.
struct GroupEstimate {
  double time_ms = 0;
  double compute_ms = 0;
  double memory_ms = 0;
  void Add(const KernelEstimate& k) {
    time_ms += k.time_ms;
    compute_ms += k.compute_ms;
    memory_ms += k.memory_ms;
  }
};

}  // namespace

const std::vector<GpuSpec>& KnownGpus() {
  static const std::vector<GpuSpec> gpus = {
      MakeSpec("V100", "Tesla V100-SXM2", 7, 0, 80, 15.7, 900, 3.0),
      MakeSpec("A100", "A100-SXM4-40GB", 8, 0, 108, 19.5, 1555, 2.5),
      MakeSpec("H100", "H100-SXM5-80GB", 9, 0, 132, 66.9, 3350, 2.0),
  };
  return gpus;
}

StatusOr<std::unique_ptr<AnalyticCostSource>> MakeAnalyticCostSource(const std::string& name) {
  std::string known;
  for (const GpuSpec& spec : KnownGpus()) {
    if (Lower(spec.name) == Lower(name)) return std::make_unique<AnalyticCostSource>(spec);
    known += (known.empty() ? "" : ", ") + spec.name;
  }
  return InvalidInput("unknown GPU model '" + name + "' for the analytic cost model (sim:NAME); " +
                      "known models: " + known);
}

DeviceFingerprint AnalyticCostSource::Fingerprint() const {
  DeviceFingerprint fingerprint;
  fingerprint.kind = "sim";
  fingerprint.sim_model = spec_.name;
  fingerprint.gpu_name = spec_.product;
  fingerprint.compute_major = spec_.compute_major;
  fingerprint.compute_minor = spec_.compute_minor;
  fingerprint.multiprocessors = spec_.multiprocessors;
  return fingerprint;
}

double AnalyticCostSource::Utilisation(double parallel_work) const {
  const double capacity =
      static_cast<double>(spec_.multiprocessors) * spec_.threads_per_sm * spec_.work_per_thread;
  const double u = 1 - std::exp(-std::max(parallel_work, 1.0) / capacity);
  return std::max(u, 1e-12);
}

KernelEstimate AnalyticCostSource::EstimateKernel(double flops, double bytes,
                                                  double parallel_work) const {
  KernelEstimate k;
  k.flops = std::max(flops, 0.0);
  k.bytes = std::max(bytes, 0.0);
  k.parallel_work = std::max(parallel_work, 1.0);
  k.utilisation = Utilisation(k.parallel_work);
  k.compute_ms = k.flops / (spec_.peak_flops * spec_.compute_efficiency) * 1e3;
  k.memory_ms = k.bytes / (spec_.mem_bandwidth * spec_.memory_efficiency) * 1e3;
  k.time_ms = spec_.launch_us * 1e-3 + std::max(k.compute_ms, k.memory_ms) / k.utilisation;
  return k;
}

KernelEstimate AnalyticCostSource::EstimateNode(const Graph& graph, NodeId node) const {
  const OpCost cost = NodeCost(graph, node);
  return EstimateKernel(cost.flops, cost.bytes_moved,
                        ParallelWork(graph, graph.nodes[node], cost.flops));
}

const KernelEstimate& AnalyticCostSource::CachedEstimate(const Graph& graph, NodeId node) const {
  if (kernels_.size() < graph.nodes.size()) kernels_.resize(graph.nodes.size());
  CachedKernel& cached = kernels_[node];
  const uint64_t fingerprint = NodeFingerprint(graph, graph.nodes[node]);
  if (!cached.valid || cached.fingerprint != fingerprint) {
    cached.estimate = EstimateNode(graph, node);
    cached.fingerprint = fingerprint;
    cached.valid = true;
  }
  return cached.estimate;
}

StatusOr<double> AnalyticCostSource::StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                                    const StageCandidate& stage) {
  if (stage.groups.empty()) return InvalidInput("the stage has no groups");
  for (const std::vector<UnitId>& group : stage.groups) {
    if (group.empty()) return InvalidInput("the stage has an empty group");
    for (UnitId u : group) {
      if (u < 0 || static_cast<size_t>(u) >= units.units.size()) {
        return Internal("the stage refers to unit " + std::to_string(u) + " of " +
                        std::to_string(units.units.size()));
      }
    }
  }
  if (stage.strategy == StageStrategy::kMerge) return MergeLatencyMs(graph, units, stage);
  return ConcurrentLatencyMs(graph, units, stage);
}

StatusOr<double> AnalyticCostSource::ConcurrentLatencyMs(const Graph& graph, const UnitGraph& units,
                                                         const StageCandidate& stage) const {
  double longest_ms = 0;
  double total_ms = 0;
  double compute_ms = 0;
  double memory_ms = 0;
  for (const std::vector<UnitId>& group : stage.groups) {
    GroupEstimate estimate;
    for (UnitId u : group)
      for (NodeId n : units.units[u].nodes) estimate.Add(CachedEstimate(graph, n));
    longest_ms = std::max(longest_ms, estimate.time_ms);
    total_ms += estimate.time_ms;
    compute_ms += estimate.compute_ms;
    memory_ms += estimate.memory_ms;
  }
  const double launch_ms = spec_.launch_us * 1e-3;
  const double extra_streams = static_cast<double>(stage.groups.size() - 1);
  return std::max({longest_ms, launch_ms + compute_ms, launch_ms + memory_ms}) +
         spec_.contention * (total_ms - longest_ms) + extra_streams * spec_.stream_sync_us * 1e-3;
}

StatusOr<double> AnalyticCostSource::MergeLatencyMs(const Graph& graph, const UnitGraph& units,
                                                    const StageCandidate& stage) const {
  IOS_ASSIGN_OR_RETURN(MergedConvShape shape, MergedConvShapeOf(graph, units, stage));
  const Node& first = graph.nodes[units.units[stage.groups[0][0]].nodes[0]];
  const Value& x = graph.values[first.inputs[0]];
  const Value& y = graph.values[first.outputs[0]];
  const double element = static_cast<double>(DTypeSize(x.dtype));
  const double in_channels = static_cast<double>(x.dims[1]);
  const double outputs = static_cast<double>(y.dims[0]) * static_cast<double>(shape.out_channels) *
                         static_cast<double>(y.dims[2]) * static_cast<double>(y.dims[3]);
  bool any_bias = false;
  for (const std::vector<UnitId>& group : stage.groups) {
    const Node& conv = graph.nodes[units.units[group[0]].nodes[0]];
    if (conv.inputs.size() > 2 && conv.inputs[2] != kNoValue) any_bias = true;
  }
  const bool activation = GetFusedActivation(first.attrs).kind != ActivationKind::kNone;
  double flops = 2 * outputs * in_channels * static_cast<double>(shape.kh * shape.kw);
  if (any_bias) flops += outputs;
  if (activation) flops += outputs;
  const double weight_bytes = static_cast<double>(shape.out_channels) * in_channels *
                              static_cast<double>(shape.kh * shape.kw) * element;
  const double bias_bytes = any_bias ? static_cast<double>(shape.out_channels) * element : 0;
  const double output_bytes = outputs * element;
  const KernelEstimate conv =
      EstimateKernel(flops, Bytes(x) + weight_bytes + bias_bytes + output_bytes, outputs);
  const KernelEstimate split = EstimateKernel(0, 2 * output_bytes, outputs);
  return conv.time_ms + split.time_ms;
}

}  // namespace ios
