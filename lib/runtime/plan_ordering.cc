#include "runtime/plan_ordering.h"

#include <vector>

#include "plan/tensor_views.h"
#include "runtime/race_checker.h"

namespace ios {

Status CheckPlanOrdering(const Graph& graph, const CommandList& commands,
                         const MemoryPlan& memory) {
  std::vector<std::vector<ByteSpan>> spans(graph.values.size());
  for (const TensorPlacement& placement : memory.placements) {
    if (placement.value < 0 || placement.value >= static_cast<ValueId>(graph.values.size()))
      continue;
    for (const ByteRange& range : PlacedRanges(placement, graph.values[placement.value]))
      spans[placement.value].push_back({range.begin, range.end});
  }
  // A Concat's or Split's slices that are views in place (plan/tensor_views.h): the op copies
  // none of them, so it neither reads nor writes their bytes.
  const std::vector<std::vector<bool>> in_place = SlicesInPlace(graph, memory);
  auto untouched = [&](NodeId n, bool is_output, size_t index) {
    const size_t node = static_cast<size_t>(n);
    return IsSliceInPlace(graph.nodes[node], in_place[node], is_output, index);
  };
  return CheckCommandListOrderingOverSpans(graph, commands, spans, untouched);
}

}  // namespace ios
