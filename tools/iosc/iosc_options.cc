#include "iosc/iosc_options.h"

#include <CLI/CLI.hpp>

namespace ios {

int ParseIoscOptions(int argc, char** argv, IoscOptions* options) {
  CLI::App app{"iosc: compile an ONNX CNN into an inter-operator schedule for ios"};
  app.set_version_flag("--version", std::string("iosc ") + IOS_VERSION);
  app.get_formatter()->column_width(34);
  app.add_option("model", options->model_path, "ONNX model to compile")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("-o,--output", options->output_path,
                 "Write the plan (weights, schedule, memory plan, device fingerprint) here");
  app.add_option("--device", options->device,
                 "Target device: cpu, or a CUDA device ordinal such as 0")
      ->capture_default_str();
  app.add_option("--schedule", options->schedule,
                 "Schedule: sequential (one unit per stage) or greedy (every ready unit)")
      ->capture_default_str()
      ->check(CLI::IsMember({"sequential", "greedy"}));
  app.add_option("--max-streams", options->max_streams,
                 "Most groups (streams) per stage; 0 = the device's default (CPU: its cores)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--batch", options->batch,
                 "Batch size; replaces dimension 0 of every input, symbolic or numeric")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app.add_option("--part-limit", options->part_limit,
                 "Largest number of schedule units in one block part (0 = no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--dump-blocks", options->dump_blocks_path,
                 "Write the blocks, parts and units as JSON to this file");
  app.add_option("--emit-onnx", options->emit_onnx_path,
                 "Write the canonicalised graph as ONNX to this file (to check it with "
                 "onnxruntime)");
  app.add_option("--passes", options->passes,
                 "Canonicalisation passes to run (they always run in the order listed here); "
                 "shape inference always runs")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::IsMember(
          {"fold-constants", "eliminate-identity", "fold-batchnorm", "fuse-activation"}));
  app.add_option("--log-level", options->log_level, "Log level")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  for (int i = 0; i < argc; ++i) options->command_line += (i ? " " : "") + std::string(argv[i]);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  return -1;
}

}  // namespace ios
