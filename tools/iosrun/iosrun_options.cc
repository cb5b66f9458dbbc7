#include "iosrun/iosrun_options.h"

#include <CLI/CLI.hpp>

#include "common/help_json.h"

namespace ios {

int ParseIosrunOptions(int argc, char** argv, IosrunOptions* options) {
  CLI::App app{"iosrun: run an ios plan, check it, or benchmark it"};
  app.set_version_flag("--version", std::string("iosrun ") + IOS_VERSION);
  AddHelpJsonFlag(&app);
  app.get_formatter()->column_width(34);
  app.add_option("plan", options->plan_path,
                 "Plan written by iosc -o, or a folder of plans (one per device type, as in "
                 "plans/): the one made for --device is picked by its fingerprint")
      ->required()
      ->check(CLI::ExistingPath);
  app.add_option("--weights", options->weights_path,
                 "The ONNX model a weight-stripped plan (iosc --strip-weights) was compiled "
                 "from: its weights are rebuilt from it at load, and another model is refused")
      ->check(CLI::ExistingFile);
  app.add_option("--device", options->device,
                 "cpu, cuda (device 0) or a CUDA device ordinal; default: the kind the plan "
                 "was made for");
  app.add_flag("--force", options->force, "Run even where the plan's device does not match");
  app.add_option("--threads", options->threads, "CPU cores to use (0 = all)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-streams", options->max_streams,
                 "Streams (CPU: worker threads); 0 = one per group of the widest stage, up to "
                 "--threads on the CPU, 8 on a GPU")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--memory-limit-mb", options->memory_limit_mb,
                 "CPU: refuse a plan whose weights and arena need more than this many MiB, "
                 "before allocating them; -1 = the memory this machine has available, 0 = no "
                 "limit")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{-1}, int64_t{1} << 40));
  app.add_flag("--no-verify", options->no_verify,
               "Skip checking the plan's SHA-256 digests (its body and every weight) as it "
               "loads, and that its schedule orders every two ops that share bytes, for "
               "trusted, huge plans");
  app.add_flag("--no-cuda-graph", options->no_cuda_graph,
               "GPU: issue the commands onto the streams every run instead of launching one "
               "captured CUDA Graph");
  app.add_flag("--include-transfers", options->include_transfers,
               "GPU --bench: host latency includes copying the inputs in and the outputs out");
  app.add_flag("--info", options->info, "Print a summary of the plan");
  app.add_option("--info-json", options->info_json_path, "Write the plan's summary as JSON");
  app.add_option("--load-inputs", options->load_inputs_dir,
                 "Read DIR/input_N.pb (ONNX TensorProto) instead of random inputs");
  app.add_option("--save-outputs", options->save_outputs_dir, "Write DIR/output_N.pb");
  app.add_option("--check", options->check_dir,
                 "Run on DIR/input_*.pb and compare with DIR/output_*.pb; exit 1 on a mismatch");
  std::vector<std::string> atol, rtol, stats;
  auto tolerance_check = [](const std::string& spec) {
    PerOutput<double> scratch;
    Status parsed = ParsePerOutputTolerance(spec, &scratch);
    return parsed.ok() ? std::string() : parsed.message();
  };
  app.add_option("--atol", atol,
                 "Absolute tolerance of --check: VALUE, or OUTPUT:VALUE for one output "
                 "(repeatable, as polygraphy takes it)")
      ->default_str("1e-4")
      ->check(tolerance_check);
  app.add_option("--rtol", rtol, "Relative tolerance of --check: VALUE or OUTPUT:VALUE")
      ->default_str("1e-4")
      ->check(tolerance_check);
  app.add_option("--check-error-stat", stats,
                 "How --check decides, per output (STAT or OUTPUT:STAT): allclose (every element "
                 "within atol + rtol*|expected|), elemwise (every element within atol or rtol, "
                 "polygraphy's default), max, mean, median (that statistic of the abs error "
                 "within atol or of the rel error within rtol), scaled (max abs error within "
                 "atol + rtol*max|expected|: the error against the output's scale)")
      ->default_str("allclose")
      ->check([](const std::string& spec) {
        PerOutput<ErrorStat> scratch;
        Status parsed = ParsePerOutputStat(spec, &scratch);
        return parsed.ok() ? std::string() : parsed.message();
      });
  app.add_flag("--bench", options->bench, "Benchmark: warm up, then time repeated runs");
  app.add_option("--warmup-ms", options->warmup_ms, "Warm-up time before timing")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--iterations", options->iterations, "Fewest timed runs")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--duration", options->duration_s, "Shortest timing period, seconds")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--export-json", options->export_json_path, "Write the benchmark figures as JSON");
  app.add_option("--trace", options->trace_path,
                 "CPU: after the run (and --bench), write a Chrome trace of --trace-runs traced "
                 "runs to FILE.json: a track per stream, a span per op and wait, flows from event "
                 "records to waits, and the stages (open it in https://ui.perfetto.dev)");
  app.add_option("--trace-runs", options->trace_runs,
                 "Runs that --trace and --profile record (after two untraced warm-up runs)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_flag("--profile", options->profile,
               "CPU: print the slowest ops (time, share, FLOPs, GFLOP/s, bytes) and every stage's "
               "measured time against the plan's predicted latency, from --trace-runs runs");
  app.add_option("--schedule-dot", options->schedule_dot_path,
                 "Write the plan's schedule as a Graphviz picture (DOT) to FILE: stages top to "
                 "bottom, groups side by side, predicted latencies, the critical path");
  app.add_option("--schedule-svg", options->schedule_svg_path,
                 "The same picture drawn as SVG (needs Graphviz's dot)");
  app.add_option("--schedule-block", options->schedule_block,
                 "Draw only this block of the schedule (default: every block)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--export-profile", options->export_profile_path,
                 "Write the --profile figures (every op and stage) as JSON to FILE");
  app.add_option("--log-level", options->log_level, "Log level")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  // Checked by CLI11 above.
  for (const std::string& spec : atol) (void)ParsePerOutputTolerance(spec, &options->check.atol);
  for (const std::string& spec : rtol) (void)ParsePerOutputTolerance(spec, &options->check.rtol);
  for (const std::string& spec : stats) (void)ParsePerOutputStat(spec, &options->check.stat);
  return -1;
}

}  // namespace ios
