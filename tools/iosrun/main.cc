// iosrun: runs, checks and benchmarks ios plans. Exit codes: 0 ok, 1 a --check mismatch or an
// internal error, 2 bad input (plan, files, flags, device).
#include <spdlog/spdlog.h>

#include <cstdio>
#include <exception>
#include <new>

#include "iosrun/iosrun_options.h"
#include "iosrun/iosrun_runner.h"

int main(int argc, char** argv) {
  ios::IosrunOptions options;
  int exit_code = ios::ParseIosrunOptions(argc, argv, &options);
  options.argv = argv;
  if (exit_code >= 0) return exit_code;
  spdlog::set_level(spdlog::level::from_str(options.log_level));
  spdlog::set_pattern("[iosrun] [%l] %v");
  // The library returns statuses; an allocation that fails anyway (std::bad_alloc) is still a
  // message and an exit status, never an abort.
  ios::StatusOr<int> result = 0;
  try {
    result = ios::RunIosrun(options);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "iosrun: error: %s: out of memory\n", options.plan_path.c_str());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "iosrun: internal error: %s\n", error.what());
    return 1;
  }
  if (result.ok()) return result.value();
  std::fprintf(stderr, "iosrun: error: %s\n", result.status().message().c_str());
  return result.status().code() == ios::StatusCode::kInternal ? 1 : 2;
}
