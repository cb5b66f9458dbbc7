// What the stage profilers (CPU: cost/cpu_profiler.h; CUDA: runtime/cuda/cuda_stage_profiler.h)
// share: turning a candidate stage into the nodes it runs, the buffers those nodes need, the
// one-stage schedule that LowerToCommands turns into the runtime's command list, and, for a
// merge stage, the scratch graph that the stage runs as after ApplyMergeStages.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cost/stage_cost.h"
#include "ir/graph.h"
#include "sched/schedule.h"
#include "sched/units.h"
#include "util/status.h"

namespace ios {

// What a kernel cached for a node was made for: op type, name and the shapes of its inputs and
// outputs. A different node under the same id (another graph at the same address, or a graph
// changed in between) has another signature.
std::string NodeKernelSignature(const Graph& graph, NodeId node);

// The stage of nodes that a stage of units runs (each group's units' nodes, in order).
StatusOr<ScheduleStage> NodeStageOf(const UnitGraph& units, const StageCandidate& stage);

// Internal error unless every node of the stage is a live node of `graph`.
Status CheckStageNodesLive(const Graph& graph, const ScheduleStage& stage);

// A value the stage needs a buffer for. Constants are left out (the backends read them where
// they live), and so are values of zero bytes.
struct StageBuffer {
  ValueId value = kNoValue;
  size_t bytes = 0;
  bool produced = false;  // written by the stage (work buffer); otherwise a stage input
};

// Every value the stage's nodes read or write, once each, in first-use order (groups in order,
// each node's inputs then outputs).
std::vector<StageBuffer> StageBuffers(const Graph& graph, const ScheduleStage& stage);

size_t ValueBytes(const Value& value);

// One block holding only `stage`: the input LowerToCommands takes.
Schedule OneStageSchedule(const ScheduleStage& stage, const std::string& kind);

// The convs of a kMerge stage (one per group, in group order) and their signatures joined:
// the cache key of the merged scratch stage. Internal error when a group is not a single Conv.
struct MergeStageKey {
  std::vector<NodeId> convs;
  std::string signature;
};
StatusOr<MergeStageKey> MergeStageKeyOf(const Graph& graph, const ScheduleStage& stage);

// A kMerge stage rebuilt on a scratch graph of its own (the shared input, the weights and
// biases, the convs; copying the whole graph would copy every weight of the model), merged
// there by ApplyMergeStages into one group [merged conv, split].
struct MergedScratchStage {
  Graph graph;
  ScheduleStage stage;
};
StatusOr<MergedScratchStage> BuildMergedScratchStage(const Graph& graph,
                                                     const std::vector<NodeId>& convs);

}  // namespace ios
