// The batch strides that strided views (plan/tensor_views.h) give to the kernels that touch them,
// for every backend: the memory plan goes in, per node the element stride between batch items
// of each input and output comes out (0: dense, the case of every tensor but strided views).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "plan/memory_plan.h"
#include "util/status.h"

namespace ios {

struct NodeBatchStrides {
  std::vector<int64_t> inputs;   // per input, in elements; 0 when dense
  std::vector<int64_t> outputs;  // per output
  bool any() const;
};

// Per ValueId: the element stride between batch items of a strided view, else 0.
std::vector<int64_t> BatchStridesOfValues(const Graph& graph, const MemoryPlan& memory);

// The strides of `node`'s inputs and outputs. An error names the node when it touches a strided
// tensor that its kernel in `kernels` does not take (TakesStridedBatchSlice), except a Concat's or
// Split's own slices that `slices_in_place` (its entry of SlicesInPlace) marks: its kernel skips
// them, and their stride is reported as 0.
StatusOr<NodeBatchStrides> BatchStridesOfNode(const Graph& graph, NodeId node,
                                              const std::vector<int64_t>& value_strides,
                                              const std::vector<bool>& slices_in_place,
                                              const KernelCapsTable& kernels);

}  // namespace ios
