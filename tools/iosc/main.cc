// iosc: the ios compiler. Exceptions and exit codes live here, at the CLI boundary only.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "iosc/iosc_options.h"
#include "iosc/iosc_runner.h"

namespace {

// Stages must be profiled under the conditions iosrun runs them in: iosrun runs plans with
// concurrent stages under a short libgomp spin (see tools/iosrun/iosrun_runner.cc), and that
// setting changes single-op timings by up to 3x. libgomp reads it only when it loads, so iosc
// re-executes itself with it before profiling on the CPU; a user's own setting is left alone.
void UseIosrunSpinPolicyForCpuProfiling(const ios::IoscOptions& options, char** argv) {
  if (options.device != "cpu" || options.schedule.rfind("ios", 0) != 0) return;
  if (options.output_path.empty() && options.stats_json_path.empty()) return;  // no search
  if (std::getenv("GOMP_SPINCOUNT") || std::getenv("OMP_WAIT_POLICY")) return;
  setenv("GOMP_SPINCOUNT", "2000", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: profile with the default policy
}

}  // namespace

int main(int argc, char** argv) {
  ios::IoscOptions options;
  int exit_code = ios::ParseIoscOptions(argc, argv, &options);
  if (exit_code >= 0) return exit_code;
  UseIosrunSpinPolicyForCpuProfiling(options, argv);
  spdlog::set_level(spdlog::level::from_str(options.log_level));
  spdlog::set_pattern("[iosc] [%l] %v");
  ios::Status status = ios::RunIosc(options);
  if (status.ok()) return 0;
  std::fprintf(stderr, "iosc: error: %s\n", status.message().c_str());
  return status.code() == ios::StatusCode::kInternal ? 1 : 2;
}
