#include "runtime/cpu/cpu_layout.h"

#include <optional>
#include <string>
#include <vector>

#include "ir/fused_activation.h"
#include "runtime/cpu/cpu_kernel.h"
#include "runtime/cpu/dnnl_common.h"

namespace ios {
namespace {

// A value that may be channels-last: a float32 intermediate of rank 3 to 5 whose bytes differ
// between the layouts.
bool MayBeChannelsLast(const Value& value) {
  return !value.constant && !value.is_graph_input && !value.is_graph_output && value.has_shape &&
         value.dtype == DType::kFloat32 && HasChannelsLastForm(value.dims) &&
         !ChannelsLastIsRowMajor(value.dims);
}

bool IsChannelsLastSource(const Graph& graph, const Node& node) {
  if (node.op_type != "Conv" || node.inputs.size() < 2 || node.inputs[0] == kNoValue)
    return false;
  const Value& x = graph.values[node.inputs[0]];
  return x.dtype == DType::kFloat32 && HasChannelsLastForm(x.dims);
}

// Whether the non-constant inputs stored differently in the two layouts are all channels-last,
// and there is at least one.
bool ReadsChannelsLast(const Graph& graph, const Node& node) {
  bool any = false;
  for (ValueId in : node.inputs) {
    if (in == kNoValue) continue;
    const Value& value = graph.values[in];
    if (value.constant || !HasChannelsLastForm(value.dims) || ChannelsLastIsRowMajor(value.dims))
      continue;
    if (value.layout != Layout::kChannelsLast) return false;
    any = true;
  }
  return any;
}

// The probe conv's src and dst (64 channels at 56x56, Inception's and ResNet's sizes) in `layout`.
dnnl::memory::desc ProbeTensor(dnnl::memory::format_tag layout) {
  return dnnl::memory::desc({1, 64, 56, 56}, dnnl::memory::data_type::f32, layout);
}

// oneDNN's primitive for a 64 -> 64 3x3 conv over ProbeTensor(layout) (`any`: oneDNN's
// choice), or nothing when it has none or oneDNN is not there.
std::optional<dnnl::convolution_forward::primitive_desc> ProbeConv3x3(
    dnnl::memory::format_tag layout) {
  StatusOr<dnnl::engine> engine = CpuEngine();
  if (!engine.ok()) return std::nullopt;
  try {
    using memory = dnnl::memory;
    const memory::desc tensor = ProbeTensor(layout);
    const memory::desc weights({64, 64, 3, 3}, memory::data_type::f32, memory::format_tag::any);
    const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                               dnnl::algorithm::convolution_direct, tensor,
                                               weights, tensor, {1, 1}, {1, 1}, {1, 1});
    return dnnl::convolution_forward::primitive_desc(desc, engine.value());
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

// A conv that oneDNN runs on blocked channels where it may choose (CpuBlocksSpatialConvs): dense
// (group 1), 2-D, float32, with a spatial kernel. conv_cpu.cc reorders its channels-last
// tensors into nChw8c and back.
bool RunsOnBlockedChannels(const Graph& graph, const Node& node) {
  if (node.op_type != "Conv" || node.inputs.size() < 2 || node.inputs[0] == kNoValue ||
      node.inputs[1] == kNoValue)
    return false;
  const Value& x = graph.values[node.inputs[0]];
  const Value& w = graph.values[node.inputs[1]];
  StatusOr<int64_t> group = node.attrs.GetInt("group", 1);
  return x.dtype == DType::kFloat32 && x.dims.size() == 4 && w.dims.size() == 4 && group.ok() &&
         group.value() == 1 && w.dims[2] * w.dims[3] > 1;
}

// Stores channels-blocked-8 the channels-last values that pass only between such convs: each
// is the output of one (without a fused residual, which its kernel adds by element strides) and
// only ever X of others. Both ends then run on it as it is, where each would reorder it.
int AssignBlockedChannels(Graph& graph) {
  graph.RebuildUses();
  // Only X: the conv's other inputs (weights, bias, residual) are read by element strides.
  auto reads_only_as_x = [&](NodeId consumer, ValueId id) {
    const Node& node = graph.nodes[consumer];
    for (size_t i = 1; i < node.inputs.size(); ++i)
      if (node.inputs[i] == id) return false;
    return RunsOnBlockedChannels(graph, node);
  };
  int count = 0;
  for (ValueId id = 0; id < static_cast<ValueId>(graph.values.size()); ++id) {
    Value& value = graph.values[id];
    if (value.layout != Layout::kChannelsLast || !HasChannelsBlocked8Form(value.dims) ||
        value.producer == kNoNode || value.consumers.empty())
      continue;
    const Node& made_by = graph.nodes[value.producer];
    if (made_by.outputs[0] != id || !RunsOnBlockedChannels(graph, made_by) ||
        HasFusedResidual(made_by))
      continue;
    bool only_convs = true;
    for (NodeId consumer : value.consumers)
      only_convs = only_convs && reads_only_as_x(consumer, id);
    if (!only_convs) continue;
    value.layout = Layout::kChannelsBlocked8;
    ++count;
  }
  return count;
}

}  // namespace

bool CpuPrefersChannelsLast() {
  // Channels-last pays where one of oneDNN's JIT convs runs the probe on NHWC tensors (brgconv
  // on AVX-512, jit:avx2 on AVX2), even where oneDNN left to choose would block the channels
  // (nChw8c on AVX2). Only its gemm or reference conv would run plain tensors, and its gemm conv
  // on plain NCHW is what the alternative comes down to: on an AVX2 EPYC (2 threads, batch 8)
  // MobileNetV2's 16 -> 96 1x1 conv at 112x112 took 74 ms through it against 5.5 ms
  // channels-last, the whole network 300 against 73 ms.
  static const bool prefers = [] {
    const auto pd = ProbeConv3x3(dnnl::memory::format_tag::nhwc);
    if (!pd) return false;
    const std::string impl = pd->impl_info_str();
    return impl.rfind("jit", 0) == 0 || impl.rfind("brg", 0) == 0;
  }();
  return prefers;
}

bool CpuBlocksSpatialConvs() {
  static const bool blocks = [] {
    const auto pd = ProbeConv3x3(dnnl::memory::format_tag::any);
    if (!pd) return false;
    const dnnl::memory::desc nhwc = ProbeTensor(dnnl::memory::format_tag::nhwc);
    return pd->src_desc() != nhwc || pd->dst_desc() != nhwc;
  }();
  return blocks;
}

int AssignCpuLayouts(Graph& graph, bool channels_last, bool blocked) {
  for (Value& value : graph.values) value.layout = Layout::kRowMajor;
  if (!channels_last) return 0;
  StatusOr<std::vector<NodeId>> order = graph.TopologicalOrder();
  if (!order.ok()) return 0;  // the plan's checks report the cycle
  int count = 0;
  for (NodeId id : order.value()) {
    const Node& node = graph.nodes[id];
    std::vector<ValueId> made;
    if (IsChannelsLastSource(graph, node)) {
      if (!node.outputs.empty() && node.outputs[0] != kNoValue) made.push_back(node.outputs[0]);
    } else if (ReadsChannelsLast(graph, node)) {
      made = node.outputs;
    }
    std::vector<ValueId> changed;
    for (ValueId out : made) {
      if (out == kNoValue || !MayBeChannelsLast(graph.values[out])) continue;
      graph.values[out].layout = Layout::kChannelsLast;
      changed.push_back(out);
    }
    if (changed.empty()) continue;
    // Kept only where the op's kernel takes the layouts so (the conv's always does).
    if (!CpuKernelTakesLayouts(MakeCpuKernelContext(graph, node))) {
      for (ValueId out : changed) graph.values[out].layout = Layout::kRowMajor;
      continue;
    }
    count += static_cast<int>(changed.size());
  }
  if (blocked && CpuBlocksSpatialConvs()) AssignBlockedChannels(graph);
  return count;
}

}  // namespace ios
