// The measured check on a searched schedule. Stage costs measured one stage at a time miss
// what stages do to each other once they run back to back (cache contents, threads handed from
// one stage's ops to the next's). Where the cost source measures whole blocks (the CPU
// profiler), each block whose stages differ from the sequential ones is run whole both ways,
// twice, interleaved; a block that runs faster op by op keeps the sequential stages, so that the
// plan is not measured slower than the sequential one, block by block. Sources without block
// measurements (the analytic models) leave the schedule as it is.
#pragma once

#include <optional>
#include <vector>

#include "ir/graph.h"
#include "sched/ios_scheduler.h"
#include "sched/schedule.h"
#include "sched/stage_cost_source.h"
#include "util/status.h"

namespace ios {

struct BlockCheck {
  int checked = 0;           // blocks measured both ways
  // Blocks whose searched stages only reorder the sequential ones on one stream (no concurrent
  // or merge stage): they keep the sequential stages unmeasured, where the source measures
  // blocks at all. Counted in `replaced` too.
  int reordered_only = 0;
  int replaced = 0;          // of which keep the sequential stages
  double ios_ms = 0;         // the checked blocks measured whole, as the search left them
  double sequential_ms = 0;  // and with the sequential stages
  // What the blocks that keep their searched stages save, measured again after the choice;
  // not measured again (`kept_gain_remeasured` false) when the measurements that chose them,
  // which favour them, already put the whole gain under `min_gain` of the sequential latency:
  // then those figures.
  double kept_gain_ms = 0;
  bool kept_gain_remeasured = false;
  // What the blocks with a concurrent stage that could not be measured whole (a merge stage,
  // too many bytes) are predicted to save, stage by stage.
  double unchecked_gain_ms = 0;
  // Segments that could not be measured and hold a merge stage or were predicted to save under
  // `min_gain`: they keep the sequential stages. Counted in `replaced` too.
  int unmeasured_replaced = 0;
};

struct BlockTimes {
  double ios_ms = 0, sequential_ms = 0;
};

// The block as searched (`ios`) and with its sequential stages, each measured twice (rounds
// first_round and first_round + 1), interleaved, and averaged; nullopt when the source does not
// measure blocks, or not this one (Unsupported: a merge stage in a longer block, too many bytes).
StatusOr<std::optional<BlockTimes>> MeasureBothWays(const Graph& graph, const ScheduleBlock& ios,
                                                    const ScheduleBlock& sequential,
                                                    StageCostSource& source, int first_round);

// The IOS search's check of itself where the source measures blocks (the CPU profiler), as
// IosOptions::check_part. Stage costs measured one stage at a time promise concurrent stages more
// than whole runs deliver (2 cores: NasNet at batch 8 was predicted 1.14x over sequential after
// 91 s of search, and its searched blocks measured 1.003x), and the block check finds that out
// only once every part is searched. So each part the search gives a concurrent stage is measured
// whole both ways as the block check measures (MeasureBothWays, rounds 0 and 1: where the block
// check measures the same stages, it reuses the figures from the timing cache). Once
// kPartsBeforeStop such parts together save under `min_gain` of their sequential time, the
// search stops: the plan's concurrent blocks would have to save that much of the whole network.
class SearchCheck {
 public:
  static constexpr int kPartsBeforeStop = 3;

  SearchCheck(const Graph& graph, StageCostSource& source, double min_gain)
      : graph_(graph), source_(source), min_gain_(min_gain) {}

  // Measures the part both ways (a part that cannot run whole counts for nothing); returns
  // whether the search goes on.
  StatusOr<bool> Check(const PartCheck& part);

  int measured() const { return measured_; }               // parts measured whole
  double ios_ms() const { return ios_ms_; }                // summed, as searched
  double sequential_ms() const { return sequential_ms_; }  // and one unit at a time

 private:
  const Graph& graph_;
  StageCostSource& source_;
  double min_gain_;
  int measured_ = 0;
  double ios_ms_ = 0, sequential_ms_ = 0;
};

// `sequential` is SequentialSchedule of the same blocks, `sequential_stages` its predicted
// stage latencies. Replaces blocks (or segments of blocks that cannot run whole) of `result`'s
// schedule, with their stage latencies and the predicted total. A segment that cannot run
// either keeps its searched stages only where they are concurrent (no merge stage) and
// predicted to save at least `min_gain` of its sequential latency. `min_gain` is also the margin
// the caller weighs the plan's concurrent blocks by (kept_gain_ms plus unchecked_gain_ms against
// min_gain times the sequential latency): see kept_gain_ms.
StatusOr<BlockCheck> KeepSequentialWhereMeasuredFaster(const Graph& graph,
                                                       const Schedule& sequential,
                                                       const std::vector<double>& sequential_stages,
                                                       StageCostSource& source,
                                                       IosSearchResult* result,
                                                       double min_gain = 0.05);

// Replaces block b of `result`'s schedule by `other`'s where replace[b], with `other_stages`'
// stage latencies (the predicted ones of `other`, stage by stage), and adjusts the predicted
// total. Returns how many blocks were replaced.
int ReplaceBlocks(const Schedule& other, const std::vector<double>& other_stages,
                  const std::vector<bool>& replace, IosSearchResult* result);

// The DP is optimal within each block part, but greedy stages may span part boundaries, so a
// block's greedy stages can be predicted faster than the parts' optima put together. Such a block
// keeps its greedy stages: the written schedule is never predicted slower than greedy. Returns
// the number of blocks replaced. Not for --schedule ios-merge: greedy stages run groups
// concurrently, which that ablation excludes. Nor for a block whose every part had no room
// (PartSearchStats::no_room): its ceiling, from the units' own timings, says no concurrent
// stages can save the margin, whatever the noisier stage timings predict for greedy's.
int KeepGreedyWhereFaster(const Schedule& greedy, const std::vector<double>& greedy_stages,
                          IosSearchResult* result);

// What the blocks of `result` that have a concurrent stage (two groups or more, not a merge)
// are predicted to save against their sequential stages, stage cost by stage cost.
double PredictedConcurrentGainMs(const Schedule& sequential,
                                 const std::vector<double>& sequential_stages,
                                 const IosSearchResult& result);

// Replaces every block that has a concurrent stage (two groups or more, not a merge) by its
// sequential stages, as KeepSequentialWhereMeasuredFaster replaces one. Returns how many.
//
// For the CPU: a plan with concurrent stages runs under a short OpenMP spin (iosrun re-executes
// itself with GOMP_SPINCOUNT=2000, util/openmp_spin.h), so that a team's idle workers do not
// take the cores that another stream's ops need; every other op then waits a little longer for
// its workers. Measured on this 2-core machine, Inception V3's sequential plan ran 2-6% slower
// under that spin (73.0 against 77.6 ms, 74.8 against 76.5 ms), which the profiler cannot see:
// it measures under the short spin throughout. A plan whose concurrent blocks save less than
// that is faster run sequentially (the caller weighs kept_gain_ms plus unchecked_gain_ms).
int DropConcurrentBlocks(const Schedule& sequential, const std::vector<double>& sequential_stages,
                         IosSearchResult* result);

}  // namespace ios
