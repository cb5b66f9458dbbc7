#include "profile/cuda/conv_algorithm_selection.h"

#include <algorithm>
#include <map>
#include <memory>
#include <random>

#include "profile/profiled_stage.h"
#include "runtime/cuda/kernels/conv_algorithm.h"
#include "profile/cuda/conv_run_timing.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/cuda_streams.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"
#include "runtime/strided_views.h"

namespace ios {
namespace {

// A device buffer that only grows; with `fill_random`, new bytes get random fp32 values.
class GrowingBuffer {
 public:
  explicit GrowingBuffer(bool fill_random) : fill_random_(fill_random) {}

  StatusOr<void*> Get(size_t bytes, cudaStream_t stream, std::mt19937& rng) {
    if (bytes <= buffer_.bytes()) return buffer_.data();
    buffer_ = DeviceBuffer();  // free first: the old and new need not fit together
    IOS_ASSIGN_OR_RETURN(buffer_, DeviceBuffer::Allocate(bytes));
    if (fill_random_) {
      std::uniform_real_distribution<float> dist(-1.f, 1.f);
      std::vector<float> host(bytes / sizeof(float));
      for (float& f : host) f = dist(rng);
      if (!host.empty()) {
        IOS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(buffer_.data(), host.data(),
                                                 host.size() * sizeof(float),
                                                 cudaMemcpyHostToDevice, stream));
        IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));  // before `host` goes
      }
    }
    return buffer_.data();
  }

 private:
  bool fill_random_;
  DeviceBuffer buffer_;
};

StatusOr<DeviceBuffer> Upload(const Tensor& tensor, cudaStream_t stream) {
  IOS_ASSIGN_OR_RETURN(DeviceBuffer buffer, DeviceBuffer::Allocate(tensor.num_bytes()));
  if (tensor.num_bytes() > 0) {
    IOS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(buffer.data(), tensor.raw(), tensor.num_bytes(),
                                             cudaMemcpyHostToDevice, stream));
    IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  }
  return buffer;
}

// Where `value` starts past a boundary, and the bytes it spans (every batch item of a strided
// view, with the gaps between them).
struct PlacedSpan {
  int64_t offset = 0;
  int64_t bytes = 0;
};

PlacedSpan SpanOf(const Graph& graph, const std::vector<const TensorPlacement*>& placement,
                  ValueId value) {
  const Value& v = graph.values[static_cast<size_t>(value)];
  const TensorPlacement* p = placement[static_cast<size_t>(value)];
  PlacedSpan span;
  span.bytes = ValueBytes(v);
  if (p == nullptr) return span;  // a constant: uploaded on its own, aligned and dense
  span.offset = p->offset % kConvMeasureBoundary;
  if (p->pitch > 0 && !v.dims.empty() && v.dims[0] > 1)
    span.bytes = (v.dims[0] - 1) * p->pitch + p->bytes / v.dims[0];
  return span;
}

// cudnnFind's fastest kConvCandidatesTimedAsRun (`found`, fastest first) and the heuristic's
// choice, each timed as the session runs the conv (ConvRunTimer) on x and w of `measure` and a
// y placed as `placed` says; the fastest, cudnnFind's order breaking ties.
StatusOr<plan::ConvAlgorithm> FastestAsRun(
    const Graph& graph, NodeId n, const ConvMeasureLayout& placed,
    const ConvDescriptors& descriptors, const std::vector<plan::ConvAlgorithm>& found,
    const ConvAlgorithmSelectionOptions& options, size_t workspace_limit, CudaStreamSet& streams,
    ConvRunTimer& timer, const ConvMeasureBuffers& measure, GrowingBuffer& run_output,
    std::mt19937& rng) {
  const CudaStreamContext& context = streams.stream(0);
  std::vector<plan::ConvAlgorithm> candidates(
      found.begin(), found.begin() + std::min(found.size(), kConvCandidatesTimedAsRun));
  StatusOr<ConvAlgorithmChoice> heuristic = ChooseConvAlgorithmByHeuristic(
      context.cudnn, descriptors, options.allow_tf32, workspace_limit);
  if (heuristic.ok()) {
    plan::ConvAlgorithm h = ToPlanConvAlgorithm(*heuristic, static_cast<int>(n));
    const bool listed = std::any_of(candidates.begin(), candidates.end(),
                                    [&h](const plan::ConvAlgorithm& c) {
                                      return c.algo() == h.algo() && c.math_type() == h.math_type();
                                    });
    if (!listed) candidates.push_back(h);
  }
  if (candidates.size() == 1) return candidates.front();

  const Node& node = graph.nodes[static_cast<size_t>(n)];
  ConvRunBuffers run;
  run.x = measure.x;
  run.w = measure.w;
  DeviceBuffer bias;
  if (node.inputs.size() > 2 && node.inputs[2] != kNoValue) {
    const Value& b = graph.values[static_cast<size_t>(node.inputs[2])];
    if (b.constant) {
      IOS_ASSIGN_OR_RETURN(bias, Upload(*b.constant, context.stream));
    } else {
      IOS_ASSIGN_OR_RETURN(bias, DeviceBuffer::Allocate(ValueBytes(b)));
      IOS_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(bias.data(), 0, bias.bytes(), context.stream));
    }
    run.bias = bias.data();
  }
  IOS_ASSIGN_OR_RETURN(void* y_base,
                       run_output.Get(static_cast<size_t>(placed.y_offset + placed.y_bytes),
                                      context.stream, rng));
  run.y = static_cast<char*>(y_base) + placed.y_offset;
  size_t best = 0;
  double best_ms = 0;
  for (size_t c = 0; c < candidates.size(); ++c) {
    StatusOr<double> ms = timer.Time(graph, n, placed.batch_strides, candidates[c],
                                     options.allow_tf32, streams, run);
    if (!ms.ok()) return ms.status().WithContext("timing " + graph.Describe(n));
    if (c == 0 || *ms < best_ms) {
      best = c;
      best_ms = *ms;
    }
  }
  IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(context.stream));  // before `bias` goes
  return candidates[best];
}

}  // namespace

StatusOr<ConvMeasureLayout> ConvMeasureLayoutInPlan(const Graph& graph, const MemoryPlan& memory,
                                                    NodeId conv) {
  const Node& node = graph.nodes[static_cast<size_t>(conv)];
  if (node.inputs.empty() || node.inputs[0] == kNoValue || node.outputs.empty() ||
      node.outputs[0] == kNoValue)
    return Internal(graph.Describe(conv) + " lacks its input or output");
  std::vector<const TensorPlacement*> placement(graph.values.size(), nullptr);
  for (const TensorPlacement& p : memory.placements) {
    if (p.value < 0 || static_cast<size_t>(p.value) >= graph.values.size())
      return Internal("the memory plan places a value the graph does not have");
    placement[static_cast<size_t>(p.value)] = &p;
  }
  // As the session derives them (cuda_session.cc, CreateKernels).
  IOS_ASSIGN_OR_RETURN(
      NodeBatchStrides strides,
      BatchStridesOfNode(graph, conv, BatchStridesOfValues(graph, memory), {}, CudaKernelCaps()));
  ConvMeasureLayout layout;
  layout.batch_strides.x = strides.inputs[0];
  layout.batch_strides.y = strides.outputs[0];
  const PlacedSpan x = SpanOf(graph, placement, node.inputs[0]);
  const PlacedSpan y = SpanOf(graph, placement, node.outputs[0]);
  layout.x_offset = x.offset;
  layout.x_bytes = x.bytes;
  layout.y_offset = y.offset;
  layout.y_bytes = y.bytes;
  return layout;
}

StatusOr<std::string> ConvMeasureKey(const Graph& graph, NodeId conv,
                                     const ConvMeasureLayout& layout) {
  const Node& node = graph.nodes[static_cast<size_t>(conv)];
  if (node.inputs.size() < 2 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue ||
      node.outputs.empty() || node.outputs[0] == kNoValue)
    return Internal(graph.Describe(conv) + " lacks its input, weights or output");
  const Dims& x = graph.values[static_cast<size_t>(node.inputs[0])].dims;
  const Dims& w = graph.values[static_cast<size_t>(node.inputs[1])].dims;
  const Dims& y = graph.values[static_cast<size_t>(node.outputs[0])].dims;
  IOS_ASSIGN_OR_RETURN(CudnnWindowGeometry g, PlanConvWindow(node, x, w, y));
  auto group = node.attrs.GetInt("group", 1);
  if (!group.ok()) return group.status().WithContext(graph.Describe(conv));
  std::string key;
  auto add = [&key](const char* name, const auto& values) {
    key += name;
    for (auto v : values) key += " " + std::to_string(v);
    key += ";";
  };
  add("x", x);
  add("w", w);
  add("y", y);
  add("k", g.kernel);
  add("p", g.pads);
  add("s", g.strides);
  add("d", g.dilations);
  add("full", g.full_output);
  add("crop", g.crop_begin);
  add("layout", std::vector<int64_t>{*group, layout.batch_strides.x, layout.batch_strides.y,
                                     layout.x_offset, layout.y_offset, layout.x_bytes,
                                     layout.y_bytes});
  return key;
}

std::vector<NodeId> ConvNodesToMeasure(const Graph& graph) {
  std::vector<NodeId> convs;
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    if (!graph.nodes[n].dead && graph.nodes[n].op_type == "Conv")
      convs.push_back(static_cast<NodeId>(n));
  return convs;
}

StatusOr<plan::CudaOptions> SelectConvAlgorithms(const Graph& graph, const MemoryPlan& memory,
                                                 const ConvAlgorithmSelectionOptions& options) {
  plan::CudaOptions cuda;
  cuda.set_allow_tf32(options.allow_tf32);
  const std::vector<NodeId> convs = ConvNodesToMeasure(graph);
  if (convs.empty()) return cuda;

  // One stream with its cuDNN handle (bound to it); the workspace is this pass's own buffer.
  CudaStreamSetOptions stream_options;
  stream_options.device = options.device;
  stream_options.allow_tf32 = options.allow_tf32;
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<CudaStreamSet> streams,
                       CudaStreamSet::Create(stream_options));
  const CudaStreamContext& context = streams->stream(0);
  size_t free_bytes = 0, total_bytes = 0;
  IOS_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t workspace_limit = std::min(options.workspace_limit_bytes, free_bytes / 2);
  std::mt19937 rng(20210405);
  GrowingBuffer input(true), output(false), workspace(false), run_output(false);
  std::map<std::string, plan::ConvAlgorithm> measured;  // by ConvMeasureKey
  std::unique_ptr<ConvRunTimer> timer;
  if (options.time_as_run) {
    IOS_ASSIGN_OR_RETURN(timer, ConvRunTimer::Create());
  }

  for (NodeId n : convs) {
    const Node& node = graph.nodes[static_cast<size_t>(n)];
    if (node.inputs.size() < 2 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue ||
        node.outputs.empty() || node.outputs[0] == kNoValue)
      return Internal(graph.Describe(n) + " lacks its input, weights or output");
    const Value& x = graph.values[static_cast<size_t>(node.inputs[0])];
    const Value& w = graph.values[static_cast<size_t>(node.inputs[1])];
    const Value& y = graph.values[static_cast<size_t>(node.outputs[0])];
    if (!w.constant)
      return Unsupported(graph.Describe(n) +
                         ": its weights are not a constant; the CUDA backend needs them folded");
    IOS_ASSIGN_OR_RETURN(ConvMeasureLayout layout, ConvMeasureLayoutInPlan(graph, memory, n));
    const ConvMeasureLayout placed = layout;  // where the session's kernel reads and writes
    IOS_ASSIGN_OR_RETURN(const std::string key, ConvMeasureKey(graph, n, layout));
    if (auto same = measured.find(key); same != measured.end()) {
      plan::ConvAlgorithm copy = same->second;
      copy.set_op(static_cast<int32_t>(n));
      *cuda.add_conv_algorithms() = copy;
      continue;
    }
    IOS_ASSIGN_OR_RETURN(
        ConvDescriptors descriptors,
        BuildConvDescriptors(node, x.dims, w.dims, y.dims, ConvMathType(options.allow_tf32),
                             layout.batch_strides));
    // A cropped conv writes cuDNN's full output into the stream's workspace (aligned, dense)
    // and copies its crop into y; otherwise cuDNN writes y itself.
    if (descriptors.geometry.cropped()) {
      layout.y_offset = 0;
      layout.y_bytes = static_cast<int64_t>(ConvMeasureOutputBytes(descriptors));
    }

    ConvMeasureBuffers buffers;
    // A constant input (legal, if rare) is measured on its own bytes.
    DeviceBuffer constant_x;
    if (x.constant) {
      IOS_ASSIGN_OR_RETURN(constant_x, Upload(*x.constant, context.stream));
      buffers.x = constant_x.data();
    } else {
      IOS_ASSIGN_OR_RETURN(
          void* base,
          input.Get(static_cast<size_t>(layout.x_offset + layout.x_bytes), context.stream, rng));
      buffers.x = static_cast<char*>(base) + layout.x_offset;
    }
    IOS_ASSIGN_OR_RETURN(DeviceBuffer weights, Upload(*w.constant, context.stream));
    buffers.w = weights.data();
    IOS_ASSIGN_OR_RETURN(
        void* y_base,
        output.Get(static_cast<size_t>(layout.y_offset + layout.y_bytes), context.stream, rng));
    buffers.y = static_cast<char*>(y_base) + layout.y_offset;
    IOS_ASSIGN_OR_RETURN(buffers.workspace, workspace.Get(workspace_limit, context.stream, rng));
    buffers.workspace_bytes = workspace_limit;

    StatusOr<std::vector<plan::ConvAlgorithm>> found = FindConvAlgorithms(
        context.cudnn, descriptors, static_cast<int>(n), options.allow_tf32, buffers);
    if (!found.ok()) return found.status().WithContext("measuring " + graph.Describe(n));
    plan::ConvAlgorithm chosen = found->front();
    if (timer != nullptr) {
      IOS_ASSIGN_OR_RETURN(chosen, FastestAsRun(graph, n, placed, descriptors, *found, options,
                                                workspace_limit, *streams, *timer, buffers,
                                                run_output, rng));
    }
    chosen.set_op(static_cast<int32_t>(n));
    *cuda.add_conv_algorithms() = chosen;
    measured.emplace(key, chosen);
    // The measurement ran on the stream: drained before `weights` and `constant_x` are freed.
    IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(context.stream));
  }
  return cuda;
}

}  // namespace ios
