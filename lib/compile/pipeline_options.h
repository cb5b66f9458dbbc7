// What the compile pipeline (compile_pipeline.h) is asked to do: iosc's options, less its
// command-line-only ones, and the callbacks through which it reports.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "passes/canonicalize.h"
#include "sched/ios_scheduler.h"

namespace ios {

struct PipelineOptions {
  std::string model_path;
  // The model's bytes, when it is not read from model_path (which then only names it in
  // messages); such a model cannot have external data.
  std::string model_bytes;
  std::string output_path;     // -o: the plan file
  bool strip_weights = false;  // a weight-stripped plan (compile/weight_rebuild.h)
  std::string device = "cpu";  // cpu, sim:NAME, or a CUDA device ordinal
  std::string schedule = "ios";
  // IOS search (the paper's r and s; 0 = unlimited)
  int max_units_per_group = 3;
  int max_groups_per_stage = 8;  // on --device cpu, at most the core count unless given
  std::string endings = "paper";
  double search_budget_s = 0;
  int64_t max_transitions_per_part = 50'000'000;  // IosOptions::max_transitions_per_part
  std::string stats_json_path;
  std::string timing_cache_path;
  int profile_warmup = 2;  // -1: the profiler's default (set for a CUDA device)
  int profile_repeats = 7;
  double profile_tolerance = 0.05;  // the CPU profiler's settle_tolerance
  // The CPU profiler bounds stages, and the search skips measuring those that cannot win
  // (ios_dp.h's branch and bound); "off" measures every candidate stage.
  std::string stage_bounds = "on";
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
  std::string slice_views = "on";  // zero-copy Concat/Split slices in the memory plan
  std::string in_place = "on";  // CPU plans: elementwise outputs over dying inputs (plan/in_place.h)
  // Tensor layouts: "auto" stores a CPU plan's conv outputs channels-last where this CPU's
  // oneDNN prefers it, and blocked between the spatial convs it runs blocked
  // (runtime/cpu/cpu_layout.h); "channels-last" the same without blocked tensors; "row-major"
  // keeps every tensor row-major. GPU plans are row-major either way.
  std::string layout = "auto";
  std::string tf32 = "on";         // CUDA: fp32 convs and GEMMs may use TF32 tensor cores
  // CUDA: "heuristic" records no conv algorithm, so the runtime takes cuDNN's heuristic choice
  // (as the stage profiler does); "measure" times cudnnFind's three fastest and the
  // heuristic's choice in the call the plan makes and records the fastest
  // (profile/cuda/conv_run_timing.h). cudnnFind's first alone ran 1.05-3.3x slower on an H100.
  std::string conv_algorithms = "heuristic";
  int max_streams = 0;             // 0: the device's default (CPU: its cores; GPU: 8)
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

// True for a CUDA device ordinal ("0", "cuda", "cuda:N").
bool IsCudaDevice(const std::string& device);

// Formats like printf and hands the text to options.report (nothing without one).
void Report(const PipelineOptions& options, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

}  // namespace ios
