// iosc: the ios compiler. Exceptions and exit codes live here, at the CLI boundary only.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <exception>
#include <new>

#include "iosc/iosc_options.h"
#include "iosc/iosc_runner.h"
#include "util/openmp_spin.h"

namespace {

// Stages are profiled under the short OpenMP spin that iosrun runs concurrent plans with
// (util/openmp_spin.h); it changes single-op timings by up to 3x.
void UseIosrunSpinPolicyForCpuProfiling(const ios::IoscOptions& options, char** argv) {
  if (options.device != "cpu" || options.schedule.rfind("ios", 0) != 0) return;
  if (options.output_path.empty() && options.stats_json_path.empty()) return;  // no search
  ios::ReexecWithShortOpenMpSpin(argv);  // on failure, profile with the default policy
}

}  // namespace

int main(int argc, char** argv) {
  ios::IoscOptions options;
  int exit_code = ios::ParseIoscOptions(argc, argv, &options);
  if (exit_code >= 0) return exit_code;
  UseIosrunSpinPolicyForCpuProfiling(options, argv);
  spdlog::set_level(spdlog::level::from_str(options.log_level));
  spdlog::set_pattern("[iosc] [%l] %v");
  ios::Status status = ios::Status::Ok();
  // The library returns statuses; an allocation that fails anyway (std::bad_alloc) is still a
  // message and an exit status, never an abort.
  try {
    status = ios::RunIosc(options);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "iosc: error: %s: out of memory\n", options.model_path.c_str());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "iosc: internal error: %s\n", error.what());
    return 1;
  }
  if (status.ok()) return 0;
  std::fprintf(stderr, "iosc: error: %s\n", status.message().c_str());
  return status.code() == ios::StatusCode::kInternal ? 1 : 2;
}
