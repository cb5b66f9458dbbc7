// Builds the plan file's message from a compiled model: the graph (tensors, weights, ops), its
// schedule, its memory plan and where it came from.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "iosplan.pb.h"
#include "plan/memory_plan.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

struct PlanMetadata {
  std::string command_line;
  std::map<std::string, std::string> options;
  std::string model_sha256;
  int64_t batch = 0;
  plan::DeviceFingerprint device;
  std::vector<plan::StageLatency> stage_latencies;
  // false: the weights record their size only, and the bytes stay in the graph, for
  // WritePlanFile to write straight from there (PlanWeightTensors): a model's weights are then
  // held once, not twice, while its plan is written.
  bool weight_bytes = true;
};

// The graph must be compacted. Tensor i is value i; constants become WEIGHT tensors with their
// bytes in `weights` (unless metadata.weight_bytes is false), and Tensor attributes of nodes become WEIGHT tensors appended after the
// values, which the attribute references by index. Op i is node i.
StatusOr<plan::Plan> BuildPlan(const Graph& graph, const Schedule& schedule,
                               const MemoryPlan& memory, const PlanMetadata& metadata);

// The graph's constants in the order BuildPlan makes them the plan's weights: every constant
// value in value order, then every Tensor attribute in node order (named NODE.ATTR), each with
// the name of its plan tensor.
struct PlanWeightRef {
  std::string name;
  const Tensor* tensor = nullptr;
  ValueId value = kNoValue;  // the constant value, or kNoValue for an attribute
};
std::vector<PlanWeightRef> PlanWeightTensors(const Graph& graph);

}  // namespace ios
