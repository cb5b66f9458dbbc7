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
  app.add_option("--batch", options->batch,
                 "Batch size; replaces dimension 0 of every input, symbolic or numeric")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--part-limit", options->part_limit,
                 "Largest number of schedule units in one block part (0 = no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--dump-blocks", options->dump_blocks_path,
                 "Write the blocks, parts and units as JSON to this file");
  app.add_option("--emit-onnx", options->emit_onnx_path,
                 "Write the canonicalised graph as ONNX to this file (to check it with "
                 "onnxruntime)");
  app.add_option("--log-level", options->log_level, "Log level")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  return -1;
}

}  // namespace ios
