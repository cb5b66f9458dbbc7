#include "iosc/iosc_options.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "common/help_json.h"
#include "compile/device_defaults.h"
#include "iosc/op_support_table.h"
#include "passes/canonicalize.h"
#include "util/device_name.h"
#include "onnx/shape_spec.h"

namespace ios {
namespace {

// An option spelled as one of `names` on the command line (CLI11 checks it against them) and
// stored as its typed value; --help shows the spellings and the default's.
template <typename T>
CLI::Option* AddNamedOption(CLI::App& app, const std::string& flag, T& value,
                            const std::vector<std::pair<std::string, T>>& names,
                            const std::string& help) {
  std::vector<std::string> spellings;
  std::string default_name;
  for (const auto& [name, named] : names) {
    spellings.push_back(name);
    if (named == value) default_name = name;
  }
  return app
      .add_option_function<std::string>(
          flag,
          [&value, &names](const std::string& text) {
            for (const auto& [name, named] : names)
              if (name == text) value = named;
          },
          help)
      ->default_str(default_name)
      ->check(CLI::IsMember(spellings));
}

}  // namespace

int ParseIoscOptions(int argc, char** argv, IoscOptions* options) {
  CLI::App app{"iosc: compile an ONNX CNN into an inter-operator schedule for ios"};
  app.set_version_flag("--version", std::string("iosc ") + IOS_VERSION);
  AddHelpJsonFlag(&app);
  app.add_flag_callback(
      "--list-ops",
      [] {
        std::fputs(OpSupportTableMarkdown().c_str(), stdout);
        throw CLI::Success();
      },
      "Print the supported ops and the backends that run them (docs/operators.md), then exit");
  app.get_formatter()->column_width(34);
  app.add_option("model", options->model_path, "ONNX model to compile")
      ->required()
      ->check(CLI::ExistingFile);
  CLI::Option* output = app.add_option("-o,--output", options->output_path,
                 "Write the plan (weights, schedule, memory plan, device fingerprint) here");
  app.add_flag("--strip-weights", options->strip_weights,
               "Write the plan without its weights, with the model's SHA-256 and how each weight "
               "derives from the model; iosrun --weights MODEL rebuilds them at load")
      ->needs(output);
  app.add_option("--device", options->device,
                 "Target device: cpu (stage costs measured on this CPU), sim:V100|A100|H100 "
                 "(analytic GPU model), or a CUDA device: an ordinal such as 0, cuda or cuda:N")
      ->capture_default_str();
  AddNamedOption(app, "--schedule", options->schedule, ScheduleNames(),
                 "ios (IOS search, both strategies), ios-parallel (concurrent execution only), "
                 "ios-merge (operator merge only), greedy (every ready unit per stage) or "
                 "sequential (one unit per stage)");
  app.add_option("--max-units-per-group", options->max_units_per_group,
                 "IOS pruning r: most units in one group (0 = unlimited)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-groups-per-stage", options->max_groups_per_stage,
                 "IOS pruning s: most groups in one stage (0 = unlimited; default 8, on "
                 "--device cpu at most the core count)")
      ->default_str(std::to_string(kDefaultGroupsPerStage))
      ->check(CLI::NonNegativeNumber);
  AddNamedOption(app, "--endings", options->endings, EndingsNames(),
                 "IOS endings: paper (groups are the connected components of the ending) or "
                 "reference (single-root groups, as the reference implementation enumerates)");
  app.add_option("--search-budget", options->search_budget_s,
                 "Seconds for the IOS search; past it the remaining parts are scheduled greedily "
                 "(0 = no budget)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-transitions-per-part", options->max_transitions_per_part,
                 "IOS search guard: a block part whose DP would evaluate more (S, S') transitions "
                 "is scheduled greedily instead, with a warning")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--stats-json", options->stats_json_path,
                 "Write the IOS search statistics (per block part) as JSON");
  app.add_option("--timing-cache", options->timing_cache_path,
                 "Read and update stage timings in this file (refused if made on another device)");
  app.add_option("--profile-warmup", options->profile_warmup,
                 "Stage profiler: warm-up runs per stage (CPU default 2; CUDA default 3 graph "
                 "launches)")
      ->default_str(std::to_string(kCpuProfileWarmup))
      ->check(CLI::NonNegativeNumber);
  app.add_option("--profile-repeats", options->profile_repeats,
                 "Stage profiler: timed repeats per stage (the median is kept, outliers "
                 "dropped); on the CPU at most this many, fewer once the median settles")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_flag("!--no-block-check", options->check_blocks,
               "CPU profiling: do not run searched parts and blocks whole against their "
               "sequential stages (by default the search stops once three parts it gave "
               "concurrent stages save under --min-concurrency-gain, and a block measured "
               "faster op by op keeps the sequential stages)");
  app.add_option("--profile-budget", options->profile_budget_s,
                 "CPU profiling: seconds of stage measuring for the IOS search, estimated from "
                 "the stages' own latencies so that a recompilation from the timing cache makes "
                 "the same plan; past it the remaining parts run sequentially, unsearched "
                 "(0 = no budget)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--min-concurrency-gain", options->min_concurrency_gain,
                 "CPU profiling: concurrent blocks must be measured to save this fraction of "
                 "the sequential latency, or the plan runs sequentially (concurrent plans run "
                 "under a short OpenMP spin that slows every op a little)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--profile-tolerance", options->profile_tolerance,
                 "CPU stage profiler: stop sampling a stage once a majority of at least 3 "
                 "samples lie within this fraction of their median (0: always "
                 "--profile-repeats samples)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  AddNamedOption(app, "--stage-bounds", options->stage_bounds, OnOffNames(),
                 "CPU profiling: measure each unit alone at the thread share of a stage and skip "
                 "the candidate stages whose slowest group alone already loses (off: measure "
                 "every candidate stage, as the paper's search does)");
  AddNamedOption(app, "--tf32", options->tf32, OnOffNames(),
                 "CUDA: let fp32 convs and GEMMs use TF32 tensor cores (Ampere and newer). The "
                 "default follows onnxruntime's CUDA execution provider, whose use_tf32 option "
                 "defaults to true (CUDAExecutionProviderInfo)");
  AddNamedOption(app, "--conv-algorithms", options->conv_algorithms, ConvAlgorithmNames(),
                 "CUDA: heuristic records no conv algorithm, and iosrun takes cuDNN's heuristic "
                 "choice as it loads the plan, as the stage profiler does; measure times each "
                 "distinct conv's three fastest algorithms by cudnnFind, and the heuristic's, in "
                 "the call the plan makes (with its fused bias and ReLU) and records the fastest "
                 "(cudnnFind's first alone ran 1.05-3.3x slower on an H100: "
                 "docs/gpu-performance.md)");
  AddNamedOption(app, "--slice-views", options->slice_views, OnOffNames(),
                 "Memory plan: let convs write their slices of a Concat's output and read their "
                 "slices of a Split's input in place, so that neither copies (off: every Concat "
                 "and Split copies, for comparison)");
  AddNamedOption(app, "--in-place", options->in_place, OnOffNames(),
                 "Memory plan of a --device cpu plan: an elementwise Add, Sub, Mul, Div, Max, Min "
                 "or Sum of two inputs, a standalone activation (Relu, Clip, Sigmoid, ...), or a "
                 "conv's fused residual Add writes its output over an input of its shape that "
                 "no later op reads, as onnxruntime does, so the output stays in the cache (off: "
                 "every output has bytes of its own, for comparison). CUDA plans do not do it "
                 "yet");
  AddNamedOption(app, "--layout", options->layout, LayoutNames(),
                 "Tensor layouts of a --device cpu plan: auto stores conv outputs channels-last "
                 "(NHWC) and keeps them so between the ops that take it, where this CPU's oneDNN "
                 "has JIT convs for it (AVX-512, AVX2), and channel-blocked (nChw8c) between the "
                 "spatial convs that oneDNN runs blocked (AVX2); channels-last does the same "
                 "without blocked tensors, and row-major keeps every tensor NCHW, both for "
                 "comparison. GPU plans are row-major");
  app.add_option("--max-streams", options->max_streams,
                 "greedy: most groups (streams) per stage; 0 = the device's default (CPU: its "
                 "cores, GPU: 8)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--batch", options->batch,
                 "Batch size; replaces dimension 0 of the inputs not given by --input-shape: "
                 "a symbolic one, or a static one when no input's is symbolic and it equals "
                 "that of the first input of the highest rank")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  std::vector<std::string> input_shapes;
  app.add_option("--input-shape", input_shapes,
                 "NAME:DIMS, e.g. images:1x3x640x640 (repeatable): the whole shape of an input, "
                 "for models with free dimensions (height, width, sequence length); the model's "
                 "symbol takes the value wherever it appears")
      ->check([](const std::string& spec) {
        auto parsed = ParseInputShapeSpec(spec);
        return parsed.ok() ? std::string() : parsed.status().message();
      });
  app.add_option("--max-nodes", options->max_nodes,
                 "Refuse a model whose graph has more nodes than this (0 = no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--part-limit", options->part_limit,
                 "Largest number of schedule units in one block part (0 = no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--schedule-dot", options->schedule_dot_path,
                 "Write the schedule as a Graphviz picture (DOT) to FILE: stages top to bottom, "
                 "groups side by side, predicted latencies, the critical path");
  app.add_option("--schedule-svg", options->schedule_svg_path,
                 "The same picture drawn as SVG (needs Graphviz's dot)");
  app.add_option("--schedule-block", options->schedule_block,
                 "Draw only this block of the schedule (default: every block)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--dump-blocks", options->dump_blocks_path,
                 "Write the blocks, parts and units as JSON to this file");
  app.add_option("--reference-outputs", options->reference_outputs_dir,
                 "Instead of compiling: evaluate the model as imported with ios's reference "
                 "kernels in float64 on DIR/input_N.pb and write DIR/output_N.pb (float64), an "
                 "oracle for iosrun --check (scripts/ort_reference.py --float64 makes such a "
                 "folder)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--emit-onnx", options->emit_onnx_path,
                 "Write the canonicalised graph as ONNX to this file (to check it with "
                 "onnxruntime)");
  app.add_option("--passes", options->passes,
                 "Canonicalisation passes to run (they always run in the order listed here); "
                 "shape inference always runs")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::IsMember(CanonicalizePassNames()));
  app.add_option("--progress", options->progress,
                 "A progress line on stderr while the IOS search profiles and searches (parts "
                 "done, stages measured, time left); auto = when stderr is a terminal")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "on", "off"}));
  app.add_option("--log-level", options->log_level, "Log level")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  for (const std::string& spec : input_shapes) {
    auto parsed = ParseInputShapeSpec(spec);  // checked by CLI11 above
    if (!options->input_shapes.emplace(parsed->first, parsed->second).second) {
      std::fprintf(stderr, "iosc: error: --input-shape gives input '%s' twice\n",
                   parsed->first.c_str());
      return 2;
    }
  }
  ResolveDeviceDefaults(*options);
  return -1;
}

}  // namespace ios
