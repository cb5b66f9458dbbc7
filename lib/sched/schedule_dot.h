// A schedule as a Graphviz picture (iosc --schedule-dot/--schedule-svg, iosrun PLAN
// --schedule-dot/--schedule-svg), drawn as the IOS paper draws schedules: per block, its stages
// from top to bottom; in each stage, its groups side by side, each with its ops in order; a
// merged stage (one conv computing several) marked. Each stage is labelled with its predicted
// latency, and in each stage the group with the most FLOPs — the stage's critical path as the
// cost model sees it — is drawn bold; the block's critical path is those groups, stage after
// stage. Long runs of one-op stages (chains) and long groups fold into one box listing their ops,
// so that NasNet's 370-unit block stays readable; `block` draws one block alone (one block per
// page).
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

struct ScheduleDotOptions {
  std::string title;                       // the picture's heading
  std::vector<double> stage_predicted_ms;  // per stage, in schedule order; may be empty
  int block = -1;                          // draw only this block; -1 = every block
  // Longer runs of consecutive one-op stages, and longer groups, fold into one box listing
  // their ops.
  int fold_chains_longer_than = 4;
};

StatusOr<std::string> ScheduleToDot(const Graph& graph, const Schedule& schedule,
                                    const ScheduleDotOptions& options);

// What the CLIs' --schedule-dot / --schedule-svg do: the picture as DOT text into `dot_path`
// and/or rendered by Graphviz into `svg_path` (either may be empty), both written atomically.
Status WriteSchedulePicture(const Graph& graph, const Schedule& schedule,
                            const ScheduleDotOptions& options, const std::string& dot_path,
                            const std::string& svg_path);

}  // namespace ios
