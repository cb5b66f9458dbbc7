#include "compile/pipeline_options.h"

#include <cstdarg>
#include <cstdio>
#include <vector>

#include "util/device_name.h"

namespace ios {

bool IsCudaDevice(const std::string& device) { return CudaOrdinalOf(device) >= 0; }

void Report(const PipelineOptions& options, const char* format, ...) {
  if (!options.report) return;
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int size = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string line;
  if (size > 0) {
    std::vector<char> text(static_cast<size_t>(size) + 1);
    std::vsnprintf(text.data(), text.size(), format, again);
    line.assign(text.data(), static_cast<size_t>(size));
  }
  va_end(again);
  options.report(line);
}

}  // namespace ios
