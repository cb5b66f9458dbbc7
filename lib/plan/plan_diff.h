// How two plans differ, section by section (iosplan diff A B): the options they were compiled
// with, the device fingerprint, the model (its digest, batch, opset), the graph (ops and
// tensors), the weights (each one's digest), the schedule (blocks, stages, groups, merges, which
// op runs where), the memory plan (arena, placements, views) and the predicted latency. CI uses
// it to fail when a regenerated plan changes unexpectedly.
#pragma once

#include <string>
#include <vector>

#include "iosplan.pb.h"
#include "util/status.h"

namespace ios {

struct PlanSectionDiff {
  std::string section;  // "options", "device", "model", "graph", "weights", "schedule", "memory",
                        // "predicted latency"
  bool differs = false;
  std::vector<std::string> details;  // what differs, in words (at most a few lines per section)
};

struct PlanDiff {
  std::vector<PlanSectionDiff> sections;  // every section, in the order above
  bool identical() const;
};

// Both plans as read (PlanFile::Open's message: the weights' digests, not their bytes).
PlanDiff DiffPlans(const plan::Plan& a, const plan::Plan& b);

// One line per section ("schedule: differs", then its details indented), and a last line.
std::string FormatPlanDiff(const PlanDiff& diff, const std::string& a_name,
                           const std::string& b_name);
// {"identical": bool, "a", "b", "sections": [{"section", "differs", "details": [...]}]}
StatusOr<std::string> PlanDiffJson(const PlanDiff& diff, const std::string& a_name,
                                   const std::string& b_name);

}  // namespace ios
