#include "compile/slow_nodes.h"

#include <cstdio>
#include <map>

#include "runtime/cpu/kernels/cpu_kernel.h"
#include "runtime/kernel_path.h"

namespace ios {

StatusOr<std::vector<proto::SlowNode>> FindSlowCpuNodes(const Graph& graph) {
  IOS_ASSIGN_OR_RETURN(std::vector<KernelPath> paths, CpuKernelPaths(graph));
  std::vector<proto::SlowNode> slow;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].dead || paths[n] == KernelPath::kOwnKernel) continue;
    proto::SlowNode node;
    node.set_name(graph.nodes[n].name);
    node.set_op_type(graph.nodes[n].op_type);
    node.set_kernel(KernelPathName(paths[n]));
    node.set_stage_ms(-1);
    node.set_share(-1);
    slow.push_back(node);
  }
  return slow;
}

void AttachStageLatencies(const Graph& graph, const Schedule& schedule,
                          const std::vector<double>& stage_ms, double total_ms,
                          std::vector<proto::SlowNode>* nodes) {
  struct Place {
    size_t stage = 0;  // in schedule order
    int ops = 0;
  };
  std::map<std::string, Place> places;
  size_t flat = 0;
  for (const ScheduleBlock& block : schedule.blocks) {
    for (const ScheduleStage& stage : block.stages) {
      int ops = 0;
      for (const ScheduleGroup& group : stage.groups) ops += static_cast<int>(group.nodes.size());
      for (const ScheduleGroup& group : stage.groups)
        for (NodeId n : group.nodes) places[graph.nodes[n].name] = Place{flat, ops};
      ++flat;
    }
  }
  for (proto::SlowNode& node : *nodes) {
    auto it = places.find(node.name());
    if (it == places.end()) continue;
    node.set_stage_ops(it->second.ops);
    const size_t stage = it->second.stage;
    if (stage >= stage_ms.size() || stage_ms[stage] < 0) continue;
    node.set_stage_ms(stage_ms[stage]);
    node.set_share(total_ms > 0 ? stage_ms[stage] / total_ms : -1);
  }
}

std::string FormatSlowNodes(const std::vector<proto::SlowNode>& nodes) {
  if (nodes.empty()) return "";
  int reference = 0;
  double share = 0;
  bool costed = true;
  for (const proto::SlowNode& node : nodes) {
    reference += node.kernel() == KernelPathName(KernelPath::kReference);
    if (node.share() < 0) costed = false;
    share += node.share();
  }
  char line[512];
  std::snprintf(line, sizeof(line),
                "slow paths: %zu node(s) will not run on the CPU's own kernels (%d on the "
                "reference kernel, %zu behind a layout reorder)",
                nodes.size(), reference, nodes.size() - reference);
  std::string out = line;
  if (costed) {
    std::snprintf(line, sizeof(line), "; their stages are %.1f%% of the predicted latency",
                  100.0 * share);
    out += line;
  }
  out += ":\n";
  for (const proto::SlowNode& node : nodes) {
    std::snprintf(line, sizeof(line), "  %s '%s': %s", node.op_type().c_str(),
                  node.name().c_str(), node.kernel().c_str());
    out += line;
    if (node.stage_ms() >= 0) {
      std::snprintf(line, sizeof(line), ", its stage %.3f ms predicted (%.1f%%%s)",
                    node.stage_ms(), 100.0 * node.share(),
                    node.stage_ops() > 1 ? ", with other ops" : "");
      out += line;
    }
    out += "\n";
  }
  return out;
}

}  // namespace ios
