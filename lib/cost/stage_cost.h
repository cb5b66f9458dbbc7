// The latency of one stage on one device, from one of several sources:
//   - the analytic model of a named GPU (`sim:V100`, ...), deterministic (analytic_model.h);
//   - the CPU profiler, which runs the stage on the CPU backend exactly as iosrun would
//     (runtime/cpu/cpu_profiler.h);
//   - the CUDA profiler (with the CUDA backend; same interface).
// CachedStageCost in front of any source measures each distinct stage once (stage_signature.h)
// and can persist the measurements in a timing cache keyed by device fingerprint.
#pragma once

#include <string>
#include <vector>

#include "iosplan.pb.h"
#include "ir/graph.h"
#include "sched/merge_shape.h"  // CanMergeStage
#include "sched/schedule.h"
#include "sched/stage_candidate.h"
#include "sched/units.h"
#include "util/status.h"

namespace ios {

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


}  // namespace ios
