// The schedule lowered once into a backend-neutral command list per stream. The CPU backend
// executes it with worker threads; the CUDA backend will replay the same object onto CUDA
// streams and events, inside a CUDA Graph capture.
//
// Shape of the list (valid for CUDA Graph capture): stream 0 is the origin. A stage with one
// group runs on the origin. A stage with k > 1 groups forks: the origin records an event, and
// each of streams 1..k-1 waits on it before its first op of the stage; group 0 runs on the
// origin, group i on stream i. The stage joins: each of streams 1..k-1 records an event after
// its last op, and the origin waits on all of them before the next stage. So every non-origin
// stream starts with a wait on the origin, and the origin ends after waiting on every stream.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

enum class CommandKind { kRunOp, kRecordEvent, kWaitEvent };

struct Command {
  CommandKind kind = CommandKind::kRunOp;
  NodeId op = kNoNode;  // kRunOp
  int32_t event = -1;   // kRecordEvent / kWaitEvent
  int32_t threads = 1;  // kRunOp: intra-op threads this op may use (CPU backend)
};

struct CommandList {
  int32_t num_events = 0;                     // each event is recorded exactly once
  std::vector<std::vector<Command>> streams;  // streams[0] is the origin
};

// `max_streams` caps the streams (groups beyond it share streams round-robin); `total_threads`
// is split evenly among the groups of each stage.
StatusOr<CommandList> LowerToCommands(const Graph& graph, const Schedule& schedule,
                                      int max_streams, int total_threads);

// Fork/join shape for capture: every non-empty non-origin stream begins with a wait on an event
// the origin records, and the origin waits (after its last op) on an event recorded at the end
// of every non-origin stream; every waited event is recorded exactly once.
Status CheckForkJoin(const CommandList& commands);

std::string DescribeCommands(const Graph& graph, const CommandList& commands);

}  // namespace ios
