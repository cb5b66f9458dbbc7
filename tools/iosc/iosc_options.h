// iosc's command line, parsed into one options struct (CLI11).
#pragma once

#include <cstdint>
#include <string>

namespace ios {

struct IoscOptions {
  std::string model_path;
  int64_t batch = 1;
  int part_limit = 50;
  std::string dump_blocks_path;  // --dump-blocks: JSON of blocks, parts and units
  std::string emit_onnx_path;    // --emit-onnx: the canonicalised graph as ONNX
  std::string log_level = "warn";
};

// Parses argv. Returns -1 to continue, or an exit code (0 after --help/--version, 2 on a usage
// error, with the message already printed).
int ParseIoscOptions(int argc, char** argv, IoscOptions* options);

}  // namespace ios
