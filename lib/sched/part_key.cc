#include "sched/part_key.h"

#include <unordered_map>

namespace ios {

std::vector<int64_t> PartKey(const Graph& graph, const UnitGraph& units, const PartDag& dag,
                             const StageKeyer& keyer) {
  std::vector<int64_t> key;
  key.push_back(dag.n);
  std::unordered_map<ValueId, int64_t> canonical;
  auto tensor = [&](ValueId value) -> int64_t {
    if (value == kNoValue) return -1;
    auto [it, inserted] = canonical.emplace(value, static_cast<int64_t>(canonical.size()));
    return it->second;
  };
  for (int i = 0; i < dag.n; ++i) {
    const Unit& unit = units.units[dag.unit_of_bit[i]];
    key.push_back(keyer.UnitKey(unit.id));
    key.push_back(static_cast<int64_t>(dag.succ[i]));
    key.push_back(static_cast<int64_t>(unit.nodes.size()));
    for (NodeId n : unit.nodes) {
      const Node& node = graph.nodes[n];
      key.push_back(static_cast<int64_t>(node.inputs.size()));
      for (ValueId in : node.inputs) key.push_back(tensor(in));
      key.push_back(static_cast<int64_t>(node.outputs.size()));
      for (ValueId out : node.outputs) key.push_back(tensor(out));
    }
  }
  return key;
}

}  // namespace ios
