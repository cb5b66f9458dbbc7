#include "sched/schedule.h"

#include <algorithm>
#include <map>

namespace ios {

Schedule SequentialSchedule(const BlockStructure& blocks) {
  Schedule schedule;
  schedule.kind = "sequential";
  for (const Block& block : blocks.blocks) {
    ScheduleBlock out;
    for (UnitId u : block.units) {
      ScheduleStage stage;
      stage.groups.push_back({blocks.unit_graph.units[u].nodes});
      out.stages.push_back(std::move(stage));
    }
    schedule.blocks.push_back(std::move(out));
  }
  return schedule;
}

Schedule GreedySchedule(const BlockStructure& blocks, int max_streams) {
  Schedule schedule;
  schedule.kind = "greedy";
  const auto& units = blocks.unit_graph.units;
  std::vector<bool> done(units.size(), false);
  for (const Block& block : blocks.blocks) {
    ScheduleBlock out;
    std::vector<UnitId> remaining = block.units;
    while (!remaining.empty()) {
      ScheduleStage stage;
      std::vector<UnitId> chosen;
      for (UnitId u : remaining) {
        if (max_streams > 0 && static_cast<int>(chosen.size()) >= max_streams) break;
        bool ready = std::all_of(units[u].predecessors.begin(), units[u].predecessors.end(),
                                 [&](UnitId p) { return done[p]; });
        if (ready) chosen.push_back(u);
      }
      for (UnitId u : chosen) {
        stage.groups.push_back({units[u].nodes});
        remaining.erase(std::find(remaining.begin(), remaining.end(), u));
      }
      for (UnitId u : chosen) done[u] = true;  // after the stage: no reads within a stage
      out.stages.push_back(std::move(stage));
    }
    schedule.blocks.push_back(std::move(out));
  }
  return schedule;
}

Status ValidateSchedule(const Graph& graph, const Schedule& schedule) {
  // position[node] = (global stage index, group index, index in group)
  struct Position {
    int stage = -1, group = -1, index = -1;
  };
  std::vector<Position> position(graph.nodes.size());
  int stage_index = 0;
  for (const ScheduleBlock& block : schedule.blocks) {
    for (const ScheduleStage& stage : block.stages) {
      for (size_t g = 0; g < stage.groups.size(); ++g) {
        const auto& nodes = stage.groups[g].nodes;
        for (size_t i = 0; i < nodes.size(); ++i) {
          NodeId n = nodes[i];
          if (n < 0 || n >= static_cast<NodeId>(graph.nodes.size()) || graph.nodes[n].dead)
            return Internal("schedule names node " + std::to_string(n) + ", which is not live");
          if (position[n].stage >= 0)
            return Internal("schedule runs " + graph.Describe(n) + " twice");
          position[n] = {stage_index, static_cast<int>(g), static_cast<int>(i)};
        }
      }
      ++stage_index;
    }
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].dead) continue;
    const Position& me = position[n];
    if (me.stage < 0) return Internal("schedule never runs " + graph.Describe(static_cast<NodeId>(n)));
    for (ValueId in : graph.nodes[n].inputs) {
      if (in == kNoValue || graph.values[in].producer == kNoNode) continue;
      const Position& producer = position[graph.values[in].producer];
      bool before = producer.stage < me.stage ||
                    (producer.stage == me.stage && producer.group == me.group &&
                     producer.index < me.index);
      if (!before) {
        return Internal("schedule runs " + graph.Describe(static_cast<NodeId>(n)) +
                        " before or beside its producer " +
                        graph.Describe(graph.values[in].producer));
      }
    }
  }
  return Status::Ok();
}

}  // namespace ios
