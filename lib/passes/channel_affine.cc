#include "passes/channel_affine.h"

#include <optional>
#include <string>
#include <vector>

#include "passes/pattern_match.h"

namespace ios {
namespace {

// A float32 constant's values, one per channel of `x_dims` (dim 1), when it broadcasts to x that
// way: one value, or dims that are 1 but for dim 1 (counted from the right as numpy aligns them).
std::optional<std::vector<float>> PerChannel(const Value& param, const Dims& x_dims) {
  if (!param.constant || param.dtype != DType::kFloat32 || param.dims.size() > x_dims.size())
    return std::nullopt;
  const int64_t channels = x_dims[1];
  const std::vector<float> values(param.constant->data<float>(),
                                  param.constant->data<float>() + param.constant->num_elements());
  if (values.size() == 1) return std::vector<float>(static_cast<size_t>(channels), values[0]);
  const size_t offset = x_dims.size() - param.dims.size();
  for (size_t d = 0; d < param.dims.size(); ++d) {
    const size_t axis = d + offset;
    if (param.dims[d] != (axis == 1 ? channels : 1)) return std::nullopt;
  }
  if (static_cast<int64_t>(values.size()) != channels) return std::nullopt;
  return values;
}

// For a binary node, its non-constant operand X and the per-channel values of the other.
struct Operands {
  ValueId x = kNoValue;
  std::vector<float> param;
};
std::optional<Operands> SplitOperands(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    const ValueId x = node.inputs[i];
    const ValueId p = node.inputs[1 - i];
    if (x == kNoValue || p == kNoValue || graph.values[x].constant) continue;
    const Value& xv = graph.values[x];
    if (!xv.has_shape || xv.dtype != DType::kFloat32 || xv.dims.size() < 2) continue;
    std::optional<std::vector<float>> param = PerChannel(graph.values[p], xv.dims);
    if (param) return Operands{x, std::move(*param)};
  }
  return std::nullopt;
}

}  // namespace

int RewriteChannelAffinesAsBatchNorms(Graph& graph) {
  graph.RebuildUses();
  int rewritten = 0;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes.size()); ++id) {
    if (graph.nodes[id].dead || graph.nodes[id].op_type != "Add") continue;
    const std::optional<Operands> add = SplitOperands(graph, graph.nodes[id]);
    if (!add) continue;
    const std::optional<NodeId> mul_id = ProducerOfType(graph, add->x, "Mul");
    if (!mul_id || !OnlyReadBy(graph, add->x, id)) continue;
    const std::optional<Operands> mul = SplitOperands(graph, graph.nodes[*mul_id]);
    if (!mul) continue;
    const Value& x = graph.values[mul->x];
    const Value& y = graph.values[graph.nodes[id].outputs[0]];
    if (y.dims != x.dims || y.dtype != DType::kFloat32) continue;
    const int64_t channels = x.dims[1];
    Node& bn = graph.nodes[id];
    const std::string base = bn.name + "/affine";
    const Dims per_channel = {channels};
    const ValueId scale =
        graph.AddConstant(base + "_scale", Tensor::FromFloat(mul->param, per_channel));
    const ValueId shift =
        graph.AddConstant(base + "_shift", Tensor::FromFloat(add->param, per_channel));
    const ValueId mean = graph.AddConstant(
        base + "_mean",
        Tensor::FromFloat(std::vector<float>(static_cast<size_t>(channels), 0.f), per_channel));
    const ValueId var = graph.AddConstant(
        base + "_var",
        Tensor::FromFloat(std::vector<float>(static_cast<size_t>(channels), 1.f), per_channel));
    graph.nodes[*mul_id].dead = true;
    bn.op_type = "BatchNormalization";
    bn.inputs = {mul->x, scale, shift, mean, var};
    bn.attrs = AttributeMap();
    bn.attrs.Set("epsilon", 0.f);
    ++rewritten;
    graph.RebuildUses();
  }
  graph.Compact();
  return rewritten;
}

}  // namespace ios
