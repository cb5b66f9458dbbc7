// iosc's command line, parsed into one options struct (CLI11).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compile/pipeline_options.h"

namespace ios {

// The pipeline's options plus what only the command line has.
struct IoscOptions : PipelineOptions {
  std::string progress = "auto";  // --progress: a progress line for the search (on a terminal)
  std::string log_level = "warn";
};

// Parses argv. Returns -1 to continue, or an exit code (0 after --help/--version, 2 on a usage
// error, with the message already printed).
int ParseIoscOptions(int argc, char** argv, IoscOptions* options);

}  // namespace ios
