// The buffers of each node in the form kernels take them, for every backend and the profilers:
// a buffer per ValueId goes in, one pair of pointer lists per node comes out.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "util/status.h"

namespace ios {

struct NodeBuffers {
  std::vector<const void*> inputs;  // null for an omitted input
  std::vector<void*> outputs;       // null for an omitted output
};

// `value_ptr` holds a buffer per ValueId: void* (CPU) or const void* (the CUDA profiler, whose
// outputs are device buffers it owns and hands out as writable).
template <typename Pointer>
NodeBuffers NodeBuffersOf(const Node& node, const std::vector<Pointer>& value_ptr) {
  NodeBuffers buffers;
  buffers.inputs.reserve(node.inputs.size());
  buffers.outputs.reserve(node.outputs.size());
  for (ValueId in : node.inputs)
    buffers.inputs.push_back(in == kNoValue ? nullptr : value_ptr[static_cast<size_t>(in)]);
  for (ValueId out : node.outputs)
    buffers.outputs.push_back(
        out == kNoValue ? nullptr : const_cast<void*>(value_ptr[static_cast<size_t>(out)]));
  return buffers;
}

// Every live node's buffers (empty for dead nodes), resolved once so that running a node does no
// lookups. An error names the node when it reads or writes a non-empty value without memory.
StatusOr<std::vector<NodeBuffers>> ResolveNodeBuffers(const Graph& graph,
                                                      const std::vector<void*>& value_ptr);

}  // namespace ios
