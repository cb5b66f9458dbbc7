// iosc's report of the nodes of a CPU plan that will run slower than the CPU's own kernels
// would (runtime/kernel_path.h: on the reference kernel, or behind a layout reorder): found once
// the layouts are assigned, by making each node's kernel as a session will, and given the
// predicted latency of their stages once the schedule is costed. A model that compiles with
// nodes on such paths may run many times slower than its ops would suggest (issue 50: one
// ConvTranspose on the reference kernel made a segmentation model 30x slower than onnxruntime).
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "search_stats.pb.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

// The nodes of `graph` (layouts assigned) that do not run on the CPU's own kernels.
StatusOr<std::vector<proto::SlowNode>> FindSlowCpuNodes(const Graph& graph);

// Sets each node's stage latency, its stage's op count and its share of `total_ms`, from
// `stage_ms` (per stage, in schedule order, as plan/plan_info.h's PredictedStageMs gives them;
// -1 or empty where the schedule carries no prediction). Nodes are found by name.
void AttachStageLatencies(const Graph& graph, const Schedule& schedule,
                          const std::vector<double>& stage_ms, double total_ms,
                          std::vector<proto::SlowNode>* nodes);

// The lines iosc prints: a summary, then one line per node (empty when there is none).
std::string FormatSlowNodes(const std::vector<proto::SlowNode>& nodes);

}  // namespace ios
