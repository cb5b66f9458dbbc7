#include "passes/matmul_add_to_gemm.h"

#include <optional>

#include "passes/pattern_match.h"

namespace ios {
namespace {

bool IsFloatMatrix(const Value& value) {
  return value.dtype == DType::kFloat32 && value.has_shape && value.dims.size() == 2;
}

// Whether `c` is a float32 constant that broadcasts to `mn` as Gemm's C (rank <= 2, each dim 1
// or the product's).
bool IsBias(const Value& c, const Dims& mn) {
  if (!c.constant || c.dtype != DType::kFloat32 || c.dims.size() > 2) return false;
  for (size_t i = 0; i < c.dims.size(); ++i) {
    const int64_t full = mn[mn.size() - c.dims.size() + i];
    if (c.dims[i] != 1 && c.dims[i] != full) return false;
  }
  return true;
}

bool TryMatMulAddToGemm(Graph& graph, NodeId matmul_id) {
  const Node& matmul = graph.nodes[matmul_id];
  if (matmul.inputs.size() != 2 || matmul.outputs.size() != 1) return false;
  const ValueId a = matmul.inputs[0];
  const ValueId b = matmul.inputs[1];
  const ValueId product = matmul.outputs[0];
  if (!IsFloatMatrix(graph.values[a]) || !IsFloatMatrix(graph.values[b]) ||
      !IsFloatMatrix(graph.values[product]))
    return false;
  const std::optional<NodeId> add_id = SoleReaderOfType(graph, product, "Add");
  if (!add_id) return false;
  const std::optional<ValueId> c = OtherInput(graph.nodes[*add_id], product);
  const Dims& mn = graph.values[product].dims;
  if (!c || !IsBias(graph.values[*c], mn)) return false;
  Node& add = graph.nodes[*add_id];
  if (add.outputs.size() != 1 || graph.values[add.outputs[0]].dims != mn) return false;
  add.op_type = "Gemm";
  add.inputs = {a, b, *c};
  add.attrs = AttributeMap();
  graph.nodes[matmul_id].dead = true;
  return true;
}

}  // namespace

int MatMulAddToGemm(Graph& graph) {
  graph.RebuildUses();
  int made = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].dead || graph.nodes[n].op_type != "MatMul") continue;
    if (!TryMatMulAddToGemm(graph, static_cast<NodeId>(n))) continue;
    ++made;
    graph.RebuildUses();
  }
  graph.Compact();
  return made;
}

}  // namespace ios
