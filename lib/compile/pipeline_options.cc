#include "compile/pipeline_options.h"

#include <cstdarg>
#include <string>
#include <utility>
#include <vector>

#include "util/device_name.h"
#include "util/string_printf.h"

namespace ios {
namespace {

// The spelling of `value` in `names` (each table names every value).
template <typename T>
std::string NameIn(const std::vector<std::pair<std::string, T>>& names, T value) {
  for (const auto& [name, known] : names)
    if (known == value) return name;
  return "?";
}

}  // namespace

const std::vector<std::pair<std::string, ScheduleKind>>& ScheduleNames() {
  static const std::vector<std::pair<std::string, ScheduleKind>> names = {
      {"ios", ScheduleKind::kIos},
      {"ios-parallel", ScheduleKind::kIosParallel},
      {"ios-merge", ScheduleKind::kIosMerge},
      {"greedy", ScheduleKind::kGreedy},
      {"sequential", ScheduleKind::kSequential}};
  return names;
}

const std::vector<std::pair<std::string, Endings>>& EndingsNames() {
  static const std::vector<std::pair<std::string, Endings>> names = {
      {"paper", Endings::kPaper}, {"reference", Endings::kReference}};
  return names;
}

const std::vector<std::pair<std::string, TensorLayouts>>& LayoutNames() {
  static const std::vector<std::pair<std::string, TensorLayouts>> names = {
      {"auto", TensorLayouts::kAuto},
      {"channels-last", TensorLayouts::kChannelsLast},
      {"row-major", TensorLayouts::kRowMajor}};
  return names;
}

const std::vector<std::pair<std::string, ConvAlgorithms>>& ConvAlgorithmNames() {
  static const std::vector<std::pair<std::string, ConvAlgorithms>> names = {
      {"measure", ConvAlgorithms::kMeasure}, {"heuristic", ConvAlgorithms::kHeuristic}};
  return names;
}

const std::vector<std::pair<std::string, bool>>& OnOffNames() {
  static const std::vector<std::pair<std::string, bool>> names = {{"on", true}, {"off", false}};
  return names;
}

std::string ScheduleName(ScheduleKind schedule) { return NameIn(ScheduleNames(), schedule); }
std::string EndingsName(Endings endings) { return NameIn(EndingsNames(), endings); }
std::string LayoutName(TensorLayouts layout) { return NameIn(LayoutNames(), layout); }
std::string ConvAlgorithmsName(ConvAlgorithms algorithms) {
  return NameIn(ConvAlgorithmNames(), algorithms);
}
std::string OnOff(bool on) { return NameIn(OnOffNames(), on); }

StatusOr<ScheduleKind> ParseScheduleName(const std::string& name) {
  for (const auto& [known, schedule] : ScheduleNames())
    if (name == known) return schedule;
  return InvalidInput(
      "schedule must be 'ios', 'ios-parallel', 'ios-merge', 'greedy' or 'sequential', got '" +
      name + "'");
}

bool IsIosSearch(ScheduleKind schedule) {
  return schedule == ScheduleKind::kIos || schedule == ScheduleKind::kIosParallel ||
         schedule == ScheduleKind::kIosMerge;
}

bool IsCudaDevice(const std::string& device) { return CudaOrdinalOf(device) >= 0; }

void Report(const PipelineOptions& options, const char* format, ...) {
  if (!options.report) return;
  va_list args;
  va_start(args, format);
  const std::string line = StringVPrintf(format, args);
  va_end(args);
  options.report(line);
}

}  // namespace ios
