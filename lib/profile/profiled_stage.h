// What the stage profilers (CPU: profile/cpu/cpu_profiler.h; CUDA: profile/cuda/cuda_stage_profiler.h)
// share: turning a candidate stage into the nodes it runs, the buffers those nodes need, the
// one-stage schedule that LowerToCommands turns into the runtime's command list, and, for a
// merge stage, the scratch graph that the stage runs as after ApplyMergeStages.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "sched/stage_cost_source.h"
#include "ir/graph.h"
#include "runtime/node_buffers.h"
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
  // How many buffers of the same kind (produced or input) and byte size come before it: the
  // index a profiler's buffer pool of that kind hands out the same buffer for every time.
  int pool_index = 0;
};

// Every value the stage's nodes read or write, once each, in first-use order (groups in order,
// each node's inputs then outputs).
std::vector<StageBuffer> StageBuffers(const Graph& graph, const ScheduleStage& stage);

// The buffers of a block's stages run back to back, as StageBuffers gives them for all the
// stages' nodes, but with produced buffers reused by liveness as a plan's arena reuses bytes:
// a produced value's buffer goes back to the pool once the stage of its last reader in the block
// has run, and a value produced by a later stage takes the smallest free one that holds it, or
// the largest free one, grown. A produced buffer's `bytes` is then its buffer's size (at least
// the value's), and its pool_index the buffer's index among those of that size. Values of one
// stage never share (their groups run at once). For one stage, the same as StageBuffers.
std::vector<StageBuffer> BlockBuffers(const Graph& graph, const ScheduleBlock& block);

// Fills a stage input buffer with float-shaped random data in [-1, 1): every supported
// activation is fp32, and the integer inputs of index ops are constants, never pool buffers.
void FillRandomStageInput(float* data, size_t count, std::mt19937& rng);

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

// The merged scratch stage for kMerge `stage` of `graph` from a profiler's `cache` (keyed by
// the convs, checked against their signatures), or a new one. `Merged` has the members
// signature, graph and stage plus the backend's state; `prepare(Merged&)` sets up a new one
// once it sits at its final address (kernels point into its graph) and it is cached only when
// that succeeds. `*hit` tells whether it came from the cache.
template <typename Merged, typename Prepare>
StatusOr<Merged*> FindOrBuildMergedStage(
    const Graph& graph, const ScheduleStage& stage,
    std::map<std::vector<NodeId>, std::unique_ptr<Merged>>& cache, bool* hit, Prepare&& prepare) {
  IOS_ASSIGN_OR_RETURN(MergeStageKey key, MergeStageKeyOf(graph, stage));
  auto found = cache.find(key.convs);
  *hit = found != cache.end() && found->second->signature == key.signature;
  if (*hit) return found->second.get();
  auto merged = std::make_unique<Merged>();
  merged->signature = key.signature;
  IOS_ASSIGN_OR_RETURN(MergedScratchStage scratch, BuildMergedScratchStage(graph, key.convs));
  merged->graph = std::move(scratch.graph);
  merged->stage = std::move(scratch.stage);
  IOS_RETURN_IF_ERROR(prepare(*merged));
  Merged* result = merged.get();
  cache[key.convs] = std::move(merged);
  return result;
}

}  // namespace ios
