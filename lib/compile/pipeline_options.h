// What the compile pipeline (compile_pipeline.h) is asked to do: iosc's options, less its
// command-line-only ones, and the callbacks through which it reports.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "passes/canonicalize.h"
#include "sched/ios_scheduler.h"
#include "util/status.h"

namespace ios {

// --schedule: the IOS search with both strategies, concurrent stages only, or merges only; or a
// baseline (every ready unit per stage, or one unit per stage).
enum class ScheduleKind { kIos, kIosParallel, kIosMerge, kGreedy, kSequential };
// --layout of a CPU plan's tensors (see PipelineOptions::layout).
enum class TensorLayouts { kAuto, kChannelsLast, kRowMajor };
// --conv-algorithms of a CUDA plan (see PipelineOptions::conv_algorithms).
enum class ConvAlgorithms { kHeuristic, kMeasure };

// An option's value where it was not given and the device decides (device_defaults.h).
inline constexpr int kDeviceDefault = -1;

struct PipelineOptions {
  std::string model_path;
  // The model's bytes, when it is not read from model_path (which then only names it in
  // messages); such a model cannot have external data.
  std::string model_bytes;
  std::string output_path;     // -o: the plan file
  bool strip_weights = false;  // a weight-stripped plan (compile/weight_rebuild.h)
  std::string device = "cpu";  // cpu, sim:NAME, or a CUDA device ordinal
  ScheduleKind schedule = ScheduleKind::kIos;
  // IOS search (the paper's r and s; 0 = unlimited)
  int max_units_per_group = 3;
  int max_groups_per_stage = kDeviceDefault;  // 8, at most the core count on --device cpu
  Endings endings = Endings::kPaper;
  double search_budget_s = 0;
  int64_t max_transitions_per_part = 50'000'000;  // IosOptions::max_transitions_per_part
  std::string stats_json_path;
  std::string timing_cache_path;
  // kDeviceDefault: 2 on the CPU; on a CUDA device it stays, the CUDA profiler's own default.
  int profile_warmup = kDeviceDefault;
  int profile_repeats = 7;
  double profile_tolerance = 0.05;  // the CPU profiler's settle_tolerance
  // The CPU profiler bounds stages, and the search skips measuring those that cannot win
  // (ios_dp.h's branch and bound); false measures every candidate stage.
  bool stage_bounds = true;
  // Where the cost source measures whole blocks (the CPU profiler): blocks measured faster with
  // the sequential stages keep them (compile_schedule.cc, KeepSequentialWhereMeasuredFaster), and
  // the search stops once the parts it checks save under min_concurrency_gain (SearchCheck).
  bool check_blocks = true;
  // With check_blocks: concurrent blocks must be measured to save at least this fraction of the
  // sequential latency, or the plan runs sequentially (block_check.h, DropConcurrentBlocks).
  double min_concurrency_gain = 0.05;
  // Where the cost source measures blocks (the CPU profiler): IosOptions::profile_budget_s, the
  // search's measuring time estimated from what it measured, past which the later parts run
  // sequentially, unsearched (0 = none). 40 s keeps the four benchmark networks' CPU compiles at
  // batch 8 to about a minute on 2 cores.
  double profile_budget_s = 40;
  bool slice_views = true;  // zero-copy Concat/Split slices in the memory plan
  bool in_place = true;     // CPU plans: elementwise outputs over dying inputs (plan/in_place.h)
  // Tensor layouts: kAuto stores a CPU plan's conv outputs channels-last where this CPU's
  // oneDNN prefers it, and blocked between the spatial convs it runs blocked
  // (runtime/cpu/cpu_layout.h); kChannelsLast the same without blocked tensors; kRowMajor
  // keeps every tensor row-major. GPU plans are row-major either way.
  TensorLayouts layout = TensorLayouts::kAuto;
  bool tf32 = true;  // CUDA: fp32 convs and GEMMs may use TF32 tensor cores
  // CUDA: kHeuristic records no conv algorithm, so the runtime takes cuDNN's heuristic choice
  // (as the stage profiler does); kMeasure times cudnnFind's three fastest and the
  // heuristic's choice in the call the plan makes and records the fastest
  // (profile/cuda/conv_run_timing.h). cudnnFind's first alone ran 1.05-3.3x slower on an H100.
  ConvAlgorithms conv_algorithms = ConvAlgorithms::kHeuristic;
  // 0: the device's default (GreedyStreams, device_defaults.h); the plan records it as given.
  int max_streams = 0;
  int64_t batch = 1;
  std::map<std::string, std::vector<int64_t>> input_shapes;  // --input-shape NAME:DIMS
  int part_limit = 50;
  int64_t max_nodes = 1000000;    // --max-nodes: larger graphs are refused at import
  std::string dump_blocks_path;   // --dump-blocks: JSON of blocks, parts and units
  std::string emit_onnx_path;     // --emit-onnx: the canonicalised graph as ONNX
  std::string schedule_dot_path;  // --schedule-dot: the schedule as Graphviz DOT
  std::string schedule_svg_path;  // --schedule-svg: the same drawn by Graphviz
  int schedule_block = -1;        // --schedule-block: draw one block only
  std::string reference_outputs_dir;  // --reference-outputs: float64 oracle outputs, no plan
  // Canonicalisation passes to run, in their fixed order (see lib/passes/canonicalize.h): all.
  std::vector<std::string> passes = CanonicalizePassNames();

  // What the pipeline says as it goes (iosc prints it to stdout): the model, the
  // canonicalisation, the blocks, the search's summary and the plan, in lines ending with '\n'.
  std::function<void(const std::string& text)> report;
  // Called as the IOS search finishes parts (iosc --progress draws a bar).
  std::function<void(const SearchProgress&)> on_progress;
  // Build the plan and hand it back (RunPipeline's result) even with no output_path to write.
  bool keep_plan = false;
};

// The options' spellings, on the command line, in the public API and in a plan's options: one
// table per option, in the order --help lists them.
const std::vector<std::pair<std::string, ScheduleKind>>& ScheduleNames();
const std::vector<std::pair<std::string, Endings>>& EndingsNames();
const std::vector<std::pair<std::string, TensorLayouts>>& LayoutNames();
const std::vector<std::pair<std::string, ConvAlgorithms>>& ConvAlgorithmNames();
const std::vector<std::pair<std::string, bool>>& OnOffNames();  // "on", "off"

std::string ScheduleName(ScheduleKind schedule);
std::string EndingsName(Endings endings);
std::string LayoutName(TensorLayouts layout);
std::string ConvAlgorithmsName(ConvAlgorithms algorithms);
std::string OnOff(bool on);

// The public API's schedule name (CompileOptions::schedule); InvalidInput naming the known ones.
StatusOr<ScheduleKind> ParseScheduleName(const std::string& name);

// The IOS search's schedules (ios, ios-parallel, ios-merge), not the baselines.
bool IsIosSearch(ScheduleKind schedule);

// True for a CUDA device ordinal ("0", "cuda", "cuda:N").
bool IsCudaDevice(const std::string& device);

// Formats like printf and hands the text to options.report (nothing without one).
void Report(const PipelineOptions& options, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

}  // namespace ios
