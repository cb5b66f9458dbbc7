// The latency of one stage on one device, from one of several sources:
//   - the analytic model of a named GPU (`sim:V100`, ...), deterministic (analytic_model.h);
//   - the CPU profiler, which runs the stage on the CPU backend exactly as iosrun would
//     (cpu_profiler.h);
//   - the CUDA profiler (with the CUDA backend; same interface).
// CachedStageCost in front of any source measures each distinct stage once (stage_signature.h)
// and can persist the measurements in a timing cache keyed by device fingerprint.
#pragma once

#include <string>
#include <vector>

#include "iosplan.pb.h"
#include "ir/graph.h"
#include "sched/schedule.h"
#include "sched/units.h"
#include "util/status.h"

namespace ios {

// A candidate stage: groups of units (each group's units in execution order) and a strategy.
struct StageCandidate {
  std::vector<std::vector<UnitId>> groups;
  StageStrategy strategy = StageStrategy::kConcurrent;
};

class StageCostSource {
 public:
  virtual ~StageCostSource() = default;
  // Latency of the stage in milliseconds. For kMerge the caller has checked CanMergeStage.
  virtual StatusOr<double> StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                          const StageCandidate& stage) = 0;
  // "cpu-profiler", "sim:V100", "cuda-profiler", ... (recorded in plans and timing caches).
  virtual std::string Name() const = 0;
  virtual plan::DeviceFingerprint Fingerprint() const = 0;
};

// True when the stage can run as one merged conv (operator merge, the paper's second strategy):
// at least two groups, every group a single Conv unit without a folded input, all reading the
// same tensor with the same strides, dilations and fused activation, group = 1, and kernels whose
// zero-padded, centred union keeps every output's size.
bool CanMergeStage(const Graph& graph, const UnitGraph& units, const StageCandidate& stage);

}  // namespace ios
