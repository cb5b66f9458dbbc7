// iosrun's command line, parsed into one options struct (CLI11).
#pragma once

#include <string>

#include "iosrun/output_check.h"

namespace ios {

struct IosrunOptions {
  std::string plan_path;
  std::string weights_path;  // --weights: the model a weight-stripped plan was compiled from
  std::string device;  // "" = the plan's device kind; "cpu", "cuda", "cuda:N" or a CUDA ordinal
  bool force = false;
  int threads = 0;      // CPU: cores to use, 0 = all
  int max_streams = 0;  // 0 = one per group of the widest stage, up to the cores (CPU) or 8 (GPU)
  // CPU: the weights and the arena must fit in this many MiB; -1 = the available memory, 0 = no
  // check.
  int64_t memory_limit_mb = -1;
  bool no_cuda_graph = false;      // GPU: replay the commands every run instead of a CUDA Graph
  bool no_verify = false;          // skip the plan's SHA-256 checks (plan/plan_io.h)
  bool include_transfers = false;  // GPU --bench: host latency includes the H2D and D2H copies
  bool info = false;
  std::string info_json_path;
  std::string load_inputs_dir;
  std::string save_outputs_dir;
  std::string check_dir;
  OutputCheckOptions check;  // --atol, --rtol, --check-error-stat (iosrun/output_check.h)
  bool bench = false;
  double warmup_ms = 200;
  int iterations = 10;    // at least this many timed runs
  double duration_s = 3;  // and at least this long
  std::string export_json_path;
  std::string trace_path;           // --trace: a Chrome trace of traced runs
  int trace_runs = 5;               // --trace-runs: how many runs --trace and --profile record
  bool profile = false;             // --profile: per-op and per-stage tables
  std::string export_profile_path;  // --export-profile: the same as JSON
  std::string schedule_dot_path;    // --schedule-dot: the plan's schedule as Graphviz DOT
  std::string schedule_svg_path;    // --schedule-svg: the same drawn by Graphviz
  int schedule_block = -1;          // --schedule-block: draw one block only
  std::string log_level = "warn";
  char** argv = nullptr;  // to re-execute with another OpenMP spin policy (iosrun_runner.cc)
};

// Returns -1 to continue, or an exit code (0 after --help/--version, 2 on a usage error).
int ParseIosrunOptions(int argc, char** argv, IosrunOptions* options);

}  // namespace ios
