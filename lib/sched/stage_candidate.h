// A candidate stage of the IOS search: groups of units (each group's units in execution order)
// and a strategy. The search makes them; the cost sources (cost/stage_cost.h) price them.
#pragma once

#include <vector>

#include "sched/schedule.h"
#include "sched/units.h"

namespace ios {

struct StageCandidate {
  std::vector<std::vector<UnitId>> groups;
  StageStrategy strategy = StageStrategy::kConcurrent;
};

}  // namespace ios
