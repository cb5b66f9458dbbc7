// What one traced run of a command list did, command by command and stream by stream, with
// times: the raw material of iosrun --trace (a Chrome trace) and --profile (per-op and
// per-stage tables). Backend-neutral: the CPU executor fills it from its worker threads; a GPU
// backend fills it from events recorded around each op.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/command_list.h"

namespace ios {

// One command of one stream: [begin_ns, end_ns) on the trace's clock. For kWaitEvent, the time
// spent waiting; for kRecordEvent, the moment of the record (begin == end).
struct TraceSpan {
  CommandKind kind = CommandKind::kRunOp;
  NodeId op = kNoNode;  // kRunOp
  int32_t event = -1;   // kRecordEvent / kWaitEvent
  int32_t threads = 1;  // kRunOp: intra-op threads it was given
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

struct RunTrace {
  int64_t begin_ns = 0;  // when the run was started and when it returned
  int64_t end_ns = 0;
  std::vector<std::vector<TraceSpan>> streams;  // per stream, in command order
};

// Nanoseconds on the steady clock that every trace uses.
int64_t TraceClockNs();

}  // namespace ios
