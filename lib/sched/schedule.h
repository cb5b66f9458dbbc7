// A schedule: per block, a sequence of stages; a stage runs its groups concurrently (one stream
// each) or as one merged op; a group runs its ops in order on one stream.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "sched/blocks.h"
#include "util/status.h"

namespace ios {

enum class StageStrategy { kConcurrent, kMerge };

struct ScheduleGroup {
  std::vector<NodeId> nodes;  // in execution order
};

struct ScheduleStage {
  StageStrategy strategy = StageStrategy::kConcurrent;
  std::vector<ScheduleGroup> groups;
};

struct ScheduleBlock {
  std::vector<ScheduleStage> stages;
};

struct Schedule {
  std::string kind;  // "sequential", "greedy", "ios", ...
  std::vector<ScheduleBlock> blocks;
};

// One unit per stage, in topological order.
Schedule SequentialSchedule(const BlockStructure& blocks);
// Per block, each stage takes every ready unit (one group each) up to `max_streams` (0 = no
// limit), in topological order.
Schedule GreedySchedule(const BlockStructure& blocks, int max_streams);

// Checks that every live node appears exactly once and that every node runs after the nodes it
// reads from: in an earlier stage, or earlier in the same group.
Status ValidateSchedule(const Graph& graph, const Schedule& schedule);

}  // namespace ios
