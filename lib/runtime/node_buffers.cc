#include "runtime/node_buffers.h"

namespace ios {

StatusOr<std::vector<NodeBuffers>> ResolveNodeBuffers(const Graph& graph,
                                                      const std::vector<void*>& value_ptr) {
  std::vector<NodeBuffers> buffers(graph.nodes.size());
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.dead) continue;
    auto check = [&](ValueId value, const char* verb) -> Status {
      if (value == kNoValue || value_ptr[value] != nullptr || ValueBytes(graph.values[value]) == 0)
        return Status::Ok();
      return Internal(graph.Describe(static_cast<NodeId>(n)) + " " + verb + " '" +
                      graph.values[value].name + "', which has no memory in the plan");
    };
    for (ValueId in : node.inputs) IOS_RETURN_IF_ERROR(check(in, "reads"));
    for (ValueId out : node.outputs) IOS_RETURN_IF_ERROR(check(out, "writes"));
    buffers[n] = NodeBuffersOf(node, value_ptr);
  }
  return buffers;
}

}  // namespace ios
