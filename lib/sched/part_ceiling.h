// What any schedule of a block part could save against its sequential stages, from the unit
// timings the branch and bound already asks for (StageTable::UnitAlone).
//
// Every schedule of the part lasts at least the larger of
//   - the critical path: dependent units run one after another, each at least as long as at its
//     fastest share;
//   - the work: a stage of w groups gives each group 1/w of the device and lasts at least the
//     mean of its groups' busy times, so each unit holds at least min over w of
//     (its latency at share 1/w) / w of the whole device, summed over the units.
// The sequential stages run each unit alone on the whole device (width 1). Where the units
// already use the device as well alone as side by side (oneDNN's convs on two cores scale by
// 1.9x), the work term is close to the sequential latency and no schedule can gain: measuring
// the part's candidate stages could not pay. A merged stage is not bounded by its units (a
// merged conv is not its parts): the bound is for concurrent stages only.
#pragma once

#include "sched/ios_dp.h"
#include "util/status.h"

namespace ios {

struct PartCeiling {
  double sequential_ms = 0;  // the units alone on the whole device (width 1), summed
  double path_ms = 0;        // critical path, each unit at its fastest share
  double work_ms = 0;        // device time each unit holds at least, summed
  double BoundMs() const { return path_ms > work_ms ? path_ms : work_ms; }
  // The most any schedule of concurrent stages could save against the sequential stages.
  double GainMs() const { return sequential_ms - BoundMs(); }
};

// Shares 1/w for w in 1..max_width (0 = the part's unit count); needs a table whose source
// gives unit timings (table.bounded()). Errors are the source's.
StatusOr<PartCeiling> MeasurePartCeiling(const PartDag& dag, StageTable& table, int max_width);

}  // namespace ios
