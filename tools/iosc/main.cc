// iosc: the ios compiler. Exceptions and exit codes live here, at the CLI boundary only.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "iosc/iosc_options.h"
#include "compile/compile_pipeline.h"
#include "util/openmp_spin.h"

namespace {

// Stages are profiled under the short OpenMP spin that iosrun runs concurrent plans with
// (util/openmp_spin.h); it changes single-op timings by up to 3x.
void UseIosrunSpinPolicyForCpuProfiling(const ios::IoscOptions& options, char** argv) {
  if (options.device != "cpu" || !ios::IsIosSearch(options.schedule)) return;
  if (options.output_path.empty() && options.stats_json_path.empty()) return;  // no search
  ios::ReexecWithShortOpenMpSpin(argv);  // on failure, profile with the default policy
}

// One line on stderr, redrawn in place: a bar of parts done, the stages measured (each one a
// profiling run on a real device), the time spent and a linear estimate of the time left.
void PrintSearchProgress(const ios::SearchProgress& p) {
  constexpr int kWidth = 28;
  const int filled = p.parts_total > 0 ? kWidth * p.parts_done / p.parts_total : kWidth;
  const double left =
      p.parts_done > 0 ? p.seconds * (p.parts_total - p.parts_done) / p.parts_done : 0;
  std::fprintf(stderr, "\r[%s%s] %d/%d parts, %lld stages measured, %.0f s, ~%.0f s left   ",
               std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str(),
               p.parts_done, p.parts_total, static_cast<long long>(p.stages_measured), p.seconds,
               left);
  if (p.parts_done == p.parts_total) std::fputc('\n', stderr);
  std::fflush(stderr);
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
    options.report = [](const std::string& line) { std::fputs(line.c_str(), stdout); };
    if (options.progress == "on" || (options.progress == "auto" && isatty(2)))
      options.on_progress = PrintSearchProgress;
    status = ios::RunPipeline(options).status();
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
