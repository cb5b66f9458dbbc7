#include "runtime/run_trace.h"

#include <chrono>

namespace ios {

int64_t TraceClockNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace ios
