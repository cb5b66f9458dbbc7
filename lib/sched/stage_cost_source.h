// Where the IOS search gets a stage's latency on one device: the interface the search (its
// consumer) owns, implemented by the analytic GPU models (cost/analytic_model.h), the CPU
// profiler (profile/cpu/cpu_profiler.h) and the CUDA profiler (runtime/cuda/
// cuda_stage_profiler.h). CachedStageCost (cost/cached_stage_cost.h) in front of any of them
// measures each distinct stage once (stage_signature.h) and can persist the measurements in a
// timing cache keyed by the device's fingerprint.
#pragma once

#include <string>

#include "ir/graph.h"
#include "sched/merge_shape.h"  // CanMergeStage
#include "sched/schedule.h"
#include "sched/stage_candidate.h"
#include "sched/units.h"
#include "util/device_fingerprint.h"
#include "util/status.h"

namespace ios {

class StageCostSource {
 public:
  virtual ~StageCostSource() = default;
  // Latency of the stage in milliseconds. For kMerge the caller has checked CanMergeStage.
  virtual StatusOr<double> StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                          const StageCandidate& stage) = 0;
  // A whole block of a schedule run as a plan runs it, its stages back to back: where stage
  // costs are measured, the check that their sum holds once the stages run together.
  // Unsupported from a source that only has stage costs (the analytic models), and for a block
  // it cannot run as it stands (one with a merge stage, which exists only after ApplyMergeStages).
  // `round` numbers a caller's repeated measurements of one block: a cache keeps each round's.
  virtual StatusOr<double> BlockLatencyMs(const Graph& graph, const ScheduleBlock& block,
                                          int round) {
    (void)graph;
    (void)block;
    (void)round;
    return Unsupported(Name() + " has stage costs, not block measurements");
  }
  // Whether BlockLatencyMs measures blocks (the CPU profiler) rather than refusing them all.
  virtual bool MeasuresBlocks() const { return false; }
  // The unit run alone with what each group of a stage of `stage_width` groups gets (on the CPU,
  // that stage's thread share; width 1: the unit's own latency). The search sums these over a
  // group and takes its largest group as a lower bound on a stage: a group runs its units back
  // to back, and sharing the device with the other groups does not make them faster. It then
  // skips measuring a stage whose bound already loses (branch and bound, ios_dp.h). Only a
  // source whose stage measurements cost far more than these (a profiler) offers them;
  // Unsupported otherwise.
  virtual StatusOr<double> UnitAloneLatencyMs(const Graph& graph, const UnitGraph& units,
                                              UnitId unit, int stage_width) {
    (void)graph;
    (void)units;
    (void)unit;
    (void)stage_width;
    return Unsupported(Name() + " gives no lower bounds on stages");
  }
  virtual bool BoundsStages() const { return false; }
  // Whether a stage of one group of several units costs the sum of its units' one-unit stages
  // (the CPU profiler, which measures only those). A cache in front then composes such stages
  // from its own one-unit figures, so that the two agree wherever each figure came from.
  virtual bool ComposesOneGroupStages() const { return false; }
  // "cpu-profiler", "sim:V100", "cuda-profiler", ... (recorded in plans and timing caches).
  virtual std::string Name() const = 0;
  virtual DeviceFingerprint Fingerprint() const = 0;
  // The kernel libraries whose speed the timings measure, with their versions ("oneDNN 3.5.3"):
  // a timing cache made with other versions is not reused. Empty where ios's own code is all
  // (the analytic models), which the ios version in the cache covers.
  virtual std::string KernelVersions() const { return ""; }
  // What the source did so far (runs, samples, kernels, buffers), for the log; empty where
  // it measures nothing.
  virtual std::string CountersText() const { return ""; }
};

// Whether `source` costs `stage` as the sum of its units' one-unit stages
// (ComposesOneGroupStages): one group of several units, not a merge.
inline bool ComposedOfUnits(const StageCostSource& source, const StageCandidate& stage) {
  return source.ComposesOneGroupStages() && stage.strategy != StageStrategy::kMerge &&
         stage.groups.size() == 1 && stage.groups[0].size() > 1;
}

}  // namespace ios
