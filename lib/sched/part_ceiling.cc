#include "sched/part_ceiling.h"

#include <algorithm>
#include <vector>

namespace ios {

StatusOr<PartCeiling> MeasurePartCeiling(const PartDag& dag, StageTable& table, int max_width) {
  const int widths = max_width > 0 ? std::min(max_width, dag.n) : dag.n;
  PartCeiling ceiling;
  std::vector<double> finish(static_cast<size_t>(dag.n), 0.0);  // local bits are topological
  for (int bit = 0; bit < dag.n; ++bit) {
    // Width 1: alone on the whole device, the unit's single-unit stage (StageCostSource).
    IOS_ASSIGN_OR_RETURN(double alone, table.UnitAlone(bit, 1));
    double fastest = alone, device_time = alone;
    for (int w = 2; w <= widths; ++w) {
      IOS_ASSIGN_OR_RETURN(double ms, table.UnitAlone(bit, w));
      fastest = std::min(fastest, ms);
      device_time = std::min(device_time, ms / w);
    }
    ceiling.sequential_ms += alone;
    ceiling.work_ms += device_time;
    double start = 0;
    for (uint64_t m = dag.pred[bit]; m; m &= m - 1) start = std::max(start, finish[LowestBit(m)]);
    finish[bit] = start + fastest;
    ceiling.path_ms = std::max(ceiling.path_ms, finish[bit]);
  }
  return ceiling;
}

}  // namespace ios
