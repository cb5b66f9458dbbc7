// iosc: the ios compiler. Exceptions and exit codes live here, at the CLI boundary only.
#include <cstdio>

#include <spdlog/spdlog.h>

#include "iosc/iosc_options.h"
#include "iosc/iosc_runner.h"

int main(int argc, char** argv) {
  ios::IoscOptions options;
  int exit_code = ios::ParseIoscOptions(argc, argv, &options);
  if (exit_code >= 0) return exit_code;
  spdlog::set_level(spdlog::level::from_str(options.log_level));
  spdlog::set_pattern("[iosc] [%l] %v");
  ios::Status status = ios::RunIosc(options);
  if (status.ok()) return 0;
  std::fprintf(stderr, "iosc: error: %s\n", status.message().c_str());
  return status.code() == ios::StatusCode::kInternal ? 1 : 2;
}
