#include "compile/compile_pipeline.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "compile/compile_schedule.h"
#include "compile/device_defaults.h"
#include "compile/search_statistics.h"
#include "compile/slow_nodes.h"
#include "compile/weight_rebuild.h"
#include "kernels/reference/reference_graph.h"
#include "onnx/onnx_exporter.h"
#include "onnx/onnx_importer.h"
#include "onnx/tensor_files.h"
#include "passes/assign_layouts.h"
#include "passes/canonicalize.h"
#include "passes/cpu_lowering.h"
#include "plan/memory_plan.h"
#include "plan/plan_builder.h"
#include "plan/plan_info.h"
#include "plan/plan_io.h"
#include "runtime/cpu/cpu_layout.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "runtime/cuda/kernels/cuda_kernel_table.h"
#include "runtime/session_inputs.h"
#include "sched/block_report.h"
#include "sched/blocks.h"
#include "sched/schedule.h"
#include "sched/schedule_dot.h"
#include "util/file_util.h"
#include "util/json_print.h"
#include "util/memory_info.h"
#include "util/sha256.h"
#ifdef IOS_HAVE_CUDA
#include "compile/compile_cuda.h"
#endif

namespace ios {

namespace {

// The kernel table of the backend that runs a plan for `device`: the CPU's, or the CUDA
// backend's for a GPU (an ordinal, or a simulated one).
const KernelCapsTable& KernelsOfDevice(const std::string& device) {
  return device == "cpu" ? CpuKernelCaps() : CudaKernelCaps();
}

// The plan's batch: dimension 0 of the first input (--input-shape may set it), else --batch.
int64_t PlanBatch(const Graph& graph, int64_t batch) {
  if (graph.inputs.empty()) return batch;
  const Dims& dims = graph.values[graph.inputs[0]].dims;
  return dims.empty() ? batch : dims[0];
}

std::string Joined(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

// 1x3x640x640, as --input-shape takes it.
std::string DimsSpec(const std::vector<int64_t>& dims) {
  std::string out;
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? "x" : "") + std::to_string(dims[i]);
  return out;
}

std::string FormatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

bool WantsSchedulePicture(const PipelineOptions& options) {
  return !options.schedule_dot_path.empty() || !options.schedule_svg_path.empty();
}

// --schedule-dot / --schedule-svg: the final schedule with its predicted stage latencies.
Status DrawSchedule(const PipelineOptions& options, const Graph& graph, const Schedule& schedule,
                    const google::protobuf::RepeatedPtrField<plan::StageLatency>& latencies) {
  if (!WantsSchedulePicture(options)) return Status::Ok();
  ScheduleDotOptions dot;
  dot.title = options.model_path + ": " + schedule.kind + " schedule for " + options.device +
              ", batch " + std::to_string(options.batch);
  dot.stage_predicted_ms = PredictedStageMs(schedule, latencies);
  dot.block = options.schedule_block;
  return WriteSchedulePicture(graph, schedule, dot, options.schedule_dot_path,
                              options.schedule_svg_path);
}

// The statistics of the schedule built (the search's, or the schedule's kind and prediction),
// with the slow nodes given their stages' predicted latencies: reported, kept in `result` and
// written to --stats-json.
Status FinishStats(const PipelineOptions& options, const Graph& graph,
                   const ScheduleOutcome& outcome, const CanonicalizeStats& canonicalized,
                   std::vector<proto::SlowNode> slow_nodes, PipelineResult* result) {
  proto::SearchStats stats;
  if (outcome.search_stats) {
    stats = *outcome.search_stats;
  } else {
    stats.set_model(options.model_path);
    stats.set_schedule(outcome.schedule.kind);
    stats.set_predicted_latency_ms(-1);
  }
  const google::protobuf::RepeatedPtrField<plan::StageLatency> latencies(
      outcome.stage_latencies.begin(), outcome.stage_latencies.end());
  const std::vector<double> stage_ms = PredictedStageMs(outcome.schedule, latencies);
  double total = stats.predicted_latency_ms();
  if (total <= 0 && !stage_ms.empty()) {  // a costed schedule without the search
    total = 0;
    for (double ms : stage_ms) total = ms < 0 || total < 0 ? -1 : total + ms;
    stats.set_predicted_latency_ms(total);
  }
  AttachStageLatencies(graph, outcome.schedule, stage_ms, total, &slow_nodes);
  Report(options, "%s", FormatSlowNodes(slow_nodes).c_str());
  for (proto::SlowNode& node : slow_nodes) *stats.add_slow_nodes() = std::move(node);
  *stats.mutable_canonicalize() = CanonicalizeStatistics(canonicalized);
  if (!options.stats_json_path.empty()) {
    IOS_ASSIGN_OR_RETURN(std::string text, MessageToJson(stats));
    IOS_RETURN_IF_ERROR(WriteFileAtomically(options.stats_json_path, text));
  }
  result->search_stats = std::move(stats);
  return Status::Ok();
}

Status WritePlan(const PipelineOptions& options, Graph& graph, const BlockStructure& blocks,
                 const std::string& model_sha256, const plan::DeviceFingerprint& device,
                 const std::map<std::string, std::string>& model_constants,
                 const CanonicalizeStats& canonicalized, std::vector<proto::SlowNode> slow_nodes,
                 PipelineResult* result) {
  IOS_ASSIGN_OR_RETURN(ScheduleOutcome outcome, BuildSchedule(options, graph, blocks));
  IOS_RETURN_IF_ERROR(
      FinishStats(options, graph, outcome, canonicalized, std::move(slow_nodes), result));
  const Schedule& schedule = outcome.schedule;
  IOS_RETURN_IF_ERROR(ValidateSchedule(graph, schedule));
  // In-place elementwise ops on the CPU only, for now: the CUDA kernels allow it too
  // (plan/in_place.h), but no GPU has run such a plan yet.
  const bool in_place = options.device == "cpu" && options.in_place;
  const KernelCapsTable& kernels = KernelsOfDevice(options.device);
  IOS_ASSIGN_OR_RETURN(MemoryPlan memory, PlanMemory(graph, schedule, kernels, /*alignment=*/256,
                                                     options.slice_views, in_place));
  IOS_RETURN_IF_ERROR(CheckMemoryPlan(graph, schedule, memory, kernels));
  // The plan records every option that shapes it, and not the command line: its paths would make
  // the same compilation give different bytes (plans/ keeps plans byte-reproducible).
  PlanMetadata meta;
  meta.options = {{"schedule", ScheduleName(options.schedule)},
                  {"max_streams", std::to_string(options.max_streams)},
                  {"max_units_per_group", std::to_string(options.max_units_per_group)},
                  {"max_groups_per_stage", std::to_string(options.max_groups_per_stage)},
                  {"endings", EndingsName(options.endings)},
                  {"part_limit", std::to_string(options.part_limit)},
                  {"slice_views", OnOff(options.slice_views)},
                  {"device", options.device},
                  {"batch", std::to_string(options.batch)},
                  {"passes", Joined(options.passes, ",")},
                  {"search_budget_s", FormatNumber(options.search_budget_s)},
                  {"max_transitions_per_part", std::to_string(options.max_transitions_per_part)}};
  if (!options.input_shapes.empty()) {
    std::vector<std::string> shapes;
    for (const auto& [name, dims] : options.input_shapes)  // a std::map: sorted by name
      shapes.push_back(name + ":" + DimsSpec(dims));
    meta.options["input_shapes"] = Joined(shapes, ";");
  }
  if (IsCudaDevice(options.device)) {
    meta.options["tf32"] = OnOff(options.tf32);
    meta.options["conv_algorithms"] = ConvAlgorithmsName(options.conv_algorithms);
  }
  if (options.device == "cpu") {
    meta.options["layout"] = LayoutName(options.layout);
    meta.options["in_place"] = OnOff(options.in_place);
  }
  meta.stage_latencies = outcome.stage_latencies;
  meta.model_sha256 = model_sha256;
  meta.batch = PlanBatch(graph, options.batch);
  meta.device = device;
  // A plan that is only written takes its weights' bytes from the graph as it is written: the
  // weights are held once. Only a plan kept in memory (the API's) holds its own copy.
  meta.weight_bytes = options.keep_plan;
  IOS_ASSIGN_OR_RETURN(plan::Plan plan, BuildPlan(graph, schedule, memory, meta));
#ifdef IOS_HAVE_CUDA
  if (IsCudaDevice(options.device)) {
    // After the merges: the final graph's convs, merged ones included (op i = node i).
    IOS_ASSIGN_OR_RETURN(*plan.mutable_cuda(), SelectCudaConvAlgorithms(options, graph, memory));
    if (options.conv_algorithms == ConvAlgorithms::kMeasure)
      Report(options, "conv algorithms: %d convs measured on the device (TF32 %s)\n",
             plan.cuda().conv_algorithms_size(), OnOff(options.tf32).c_str());
    else
      Report(options, "conv algorithms: cuDNN's heuristic, chosen as the plan loads (TF32 %s)\n",
             OnOff(options.tf32).c_str());
  }
#endif
  if (options.strip_weights)
    IOS_RETURN_IF_ERROR(RecordWeightDerivations(model_constants, graph, plan));
  if (!options.output_path.empty()) {
    WeightTensors weight_tensors;
    if (!meta.weight_bytes)
      for (const PlanWeightRef& weight : PlanWeightTensors(graph))
        weight_tensors.push_back(weight.tensor);
    IOS_RETURN_IF_ERROR(WritePlanFile(
        plan, options.output_path,
        options.strip_weights ? PlanWeights::kStrip : PlanWeights::kKeep,
        meta.weight_bytes ? nullptr : &weight_tensors));
  }
  IOS_RETURN_IF_ERROR(DrawSchedule(options, graph, schedule, plan.stage_latencies()));
  size_t stages = 0;
  for (const auto& block : schedule.blocks) stages += block.stages.size();
  Report(options, "plan: %s schedule, %zu stages; arena %.1f MB (tensors %.1f MB without reuse)\n",
         schedule.kind.c_str(), stages, memory.arena_bytes / 1e6,
         memory.total_tensor_bytes / 1e6);
  if (!options.output_path.empty())
    Report(options, "wrote %s%s\n", options.output_path.c_str(),
           options.strip_weights ? " (weights stripped: iosrun --weights MODEL rebuilds them)"
                                 : "");
  if (options.keep_plan) result->plan = std::move(plan);
  return Status::Ok();
}

// iosc --reference-outputs: the imported model (no pass has run) in float64 on the folder's
// inputs; the outputs replace any there.
Status WriteFloat64Reference(const PipelineOptions& options, const Graph& graph) {
  const std::string& dir = options.reference_outputs_dir;
  IOS_ASSIGN_OR_RETURN(std::vector<Tensor> inputs, ReadNumberedTensors(dir, "input"));
  IOS_RETURN_IF_ERROR(CheckSessionInputs(graph, inputs).WithContext(dir));
  StatusOr<std::vector<Tensor>> outputs = EvaluateGraphInFloat64(graph, inputs);
  if (!outputs.ok()) return outputs.status().WithContext(options.model_path);
  std::vector<std::string> names;
  for (ValueId id : graph.outputs) names.push_back(graph.values[id].name);
  IOS_RETURN_IF_ERROR(WriteNumberedTensors(dir, "output", *outputs, names));
  Report(options, "wrote %zu float64 reference output(s) to %s\n", outputs->size(), dir.c_str());
  return Status::Ok();
}

}  // namespace

StatusOr<PipelineResult> RunPipeline(const PipelineOptions& options) {
  if (!DeviceDefaultsResolved(options))
    return Internal("the compile options' device defaults are not resolved "
                    "(ResolveDeviceDefaults, compile/device_defaults.h)");
  PipelineResult result;
  IOS_ASSIGN_OR_RETURN(plan::DeviceFingerprint device, TargetDevice(options.device));
  for (const auto& [path, flag] : {std::pair<std::string, std::string>{options.output_path, "-o"},
                                   {options.dump_blocks_path, "--dump-blocks"},
                                   {options.emit_onnx_path, "--emit-onnx"},
                                   {options.stats_json_path, "--stats-json"},
                                   {options.schedule_dot_path, "--schedule-dot"},
                                   {options.schedule_svg_path, "--schedule-svg"},
                                   {options.timing_cache_path, "--timing-cache"}})
    IOS_RETURN_IF_ERROR(CheckOutputIsNotInput(options.model_path, path, flag));
  ImportOptions import_options;
  import_options.batch = options.batch;
  import_options.input_shapes = options.input_shapes;
  import_options.max_nodes = options.max_nodes;
  std::string model_sha256;
  Graph graph;
  if (options.model_bytes.empty()) {
    // Hashed as it is parsed: the file's bytes are never held beside the parsed model.
    IOS_ASSIGN_OR_RETURN(graph,
                         ImportOnnxFile(options.model_path, import_options, &model_sha256));
  } else {
    model_sha256 = Sha256Hex(options.model_bytes);
    IOS_ASSIGN_OR_RETURN(graph,
                         ImportOnnxBytes(options.model_bytes, options.model_path, import_options));
  }
  spdlog::info("imported {}: {} nodes, opset {}", options.model_path, graph.nodes.size(),
               graph.opset);

  if (!options.reference_outputs_dir.empty()) {
    IOS_RETURN_IF_ERROR(WriteFloat64Reference(options, graph));
    return result;
  }

  IOS_ASSIGN_OR_RETURN(CanonicalizeOptions passes, CanonicalizeOptionsForPasses(options.passes));
  // A stripped plan records which weights are the model's own tensors as they are.
  const std::map<std::string, std::string> model_constants =
      options.strip_weights ? ModelConstantDigests(graph) : std::map<std::string, std::string>{};
  CanonicalizeStats stats;
  IOS_RETURN_IF_ERROR(Canonicalize(graph, passes, &stats));
  // The import and the passes freed the parsed model and the weights they replaced (folded
  // BatchNorms), mostly in pieces small enough that glibc would keep them.
  ReleaseFreedMemory();
  Report(options, "model %s (opset %lld), batch %lld\n", options.model_path.c_str(),
              static_cast<long long>(graph.opset),
              static_cast<long long>(PlanBatch(graph, options.batch)));
  if (!options.input_shapes.empty()) {
    for (ValueId input : graph.inputs)
      Report(options, "input %s: %s\n", graph.values[input].name.c_str(),
                  DimsToString(graph.values[input].dims).c_str());
  }
  Report(options,
         "canonicalised: %d -> %d nodes (%d constants folded, %d Gathers to Reshape, "
         "%d identities removed, %d repeated ops merged, %d GELUs fused, %d LayerNorms fused, "
         "%d reductions to global pools, %d HardSigmoids/HardSwishes fused, %d MatMul+Adds to "
         "Gemm, %d Reshapes to Flatten, %d Slices to Split, %d ConvTransposes as Convs, "
         "%d BatchNorms folded, %d activations fused)\n",
         stats.nodes_before, stats.nodes_after, stats.constants_folded, stats.gathers_to_reshapes,
         stats.identities_removed, stats.common_subexpressions_eliminated, stats.gelus_fused,
         stats.layer_norms_fused, stats.global_pools_made, stats.hard_swishes_fused,
         stats.gemms_made, stats.flattens_made, stats.splits_made, stats.conv_transposes_as_convs,
         stats.batchnorms_folded, stats.activations_fused);
  if (stats.float16_values_widened > 0)
    Report(options, 
        "float16 model: %d float16 values computed in float32 (inputs and outputs stay "
        "float16)\n",
        stats.float16_values_widened);
  if (!options.emit_onnx_path.empty()) {
    IOS_RETURN_IF_ERROR(ExportOnnxFile(graph, options.emit_onnx_path));
    spdlog::info("wrote the canonicalised graph to {}", options.emit_onnx_path);
  }

#ifdef IOS_HAVE_CUDA
  // Before any profiling: a model the CUDA backend cannot run is refused, naming its nodes.
  if (IsCudaDevice(options.device)) IOS_RETURN_IF_ERROR(CheckGraphRunsOnCuda(graph));
#endif

  // The CPU's lowering, before any profiling: the profiler runs the kernels the plan will.
  std::vector<proto::SlowNode> slow_nodes;
  if (options.device == "cpu") {
    const CpuLoweringStats lowered = LowerGraphForCpu(graph);
    if (lowered.channel_shuffles > 0)
      Report(options, "cpu: %d channel shuffles run as Gathers of channels\n",
             lowered.channel_shuffles);
    if (lowered.channel_affines > 0 || lowered.batchnorm_activations > 0)
      Report(options,
             "cpu: %d per-channel Mul/Add pairs run as BatchNormalizations, %d activations fused "
             "into BatchNormalizations\n",
             lowered.channel_affines, lowered.batchnorm_activations);
    if (lowered.conv_transpose_activations > 0)
      Report(options, "cpu: %d activations fused into ConvTransposes\n",
             lowered.conv_transpose_activations);
    if (lowered.residual_adds > 0)
      Report(options, "cpu: %d residual Adds and %d activations after them fused into convs\n",
             lowered.residual_adds, lowered.activations_after_adds);
    const bool channels_last =
        options.layout != TensorLayouts::kRowMajor && CpuPrefersChannelsLast();
    const int stored =
        AssignCpuLayouts(graph, CpuKernelCaps(), channels_last,
                         options.layout == TensorLayouts::kAuto && CpuBlocksSpatialConvs());
    const auto blocked =
        std::count_if(graph.values.begin(), graph.values.end(),
                      [](const Value& v) { return v.layout == Layout::kChannelsBlocked8; });
    if (channels_last)
      Report(options,
             "layout: %d tensors channels-last (NHWC), %d of them blocked (nChw8c), the rest "
             "row-major\n",
             stored, static_cast<int>(blocked));
    IOS_ASSIGN_OR_RETURN(slow_nodes, FindSlowCpuNodes(graph));
  }

  BlockOptions block_options;
  block_options.part_limit = options.part_limit;
  IOS_ASSIGN_OR_RETURN(BlockStructure blocks, PartitionIntoBlocks(graph, block_options));
  Report(options, "%s", FormatBlockSummary(blocks).c_str());
  if (!options.dump_blocks_path.empty()) {
    IOS_ASSIGN_OR_RETURN(std::string json, BlocksToJson(graph, blocks, options.model_path,
                                                        options.batch, options.part_limit));
    IOS_RETURN_IF_ERROR(WriteFileAtomically(options.dump_blocks_path, json));
    spdlog::info("wrote the block structure to {}", options.dump_blocks_path);
  }
  if (!options.output_path.empty() || options.keep_plan) {
    IOS_RETURN_IF_ERROR(WritePlan(options, graph, blocks, model_sha256, device, model_constants,
                                  stats, std::move(slow_nodes), &result));
  } else if (!options.stats_json_path.empty() || WantsSchedulePicture(options)) {
    // The search (and the picture) alone.
    IOS_ASSIGN_OR_RETURN(ScheduleOutcome outcome, BuildSchedule(options, graph, blocks));
    const google::protobuf::RepeatedPtrField<plan::StageLatency> latencies(
        outcome.stage_latencies.begin(), outcome.stage_latencies.end());
    IOS_RETURN_IF_ERROR(DrawSchedule(options, graph, outcome.schedule, latencies));
    IOS_RETURN_IF_ERROR(
        FinishStats(options, graph, outcome, stats, std::move(slow_nodes), &result));
  }
  return result;
}

}  // namespace ios
