#include "passes/fold_batchnorm.h"

#include <cmath>
#include <vector>

namespace ios {
namespace {

const Tensor* ConstantInput(const Graph& graph, const Node& node, size_t index) {
  if (index >= node.inputs.size() || node.inputs[index] == kNoValue) return nullptr;
  const Value& value = graph.values[node.inputs[index]];
  return value.constant ? &*value.constant : nullptr;
}

bool IsFloatVector(const Tensor* t, int64_t size) {
  return t && t->dtype() == DType::kFloat32 && t->rank() == 1 && t->dims()[0] == size;
}

bool TryFold(Graph& graph, NodeId bn_id) {
  Node& bn = graph.nodes[bn_id];
  if (bn.op_type != "BatchNormalization" || bn.inputs.size() < 5 || bn.outputs.size() != 1)
    return false;
  // With training_mode=1 the node normalises by X's own statistics, not the constants.
  auto training_mode = bn.attrs.GetInt("training_mode", 0);
  if (!training_mode.ok() || training_mode.value() != 0) return false;
  const Value& x = graph.values[bn.inputs[0]];
  if (x.producer == kNoNode || x.consumers.size() != 1 || x.is_graph_output) return false;
  NodeId conv_id = x.producer;
  Node& conv = graph.nodes[conv_id];
  const bool transposed = conv.op_type == "ConvTranspose";
  if ((conv.op_type != "Conv" && !transposed) || conv.attrs.Has("ios.activation")) return false;
  const Tensor* w = ConstantInput(graph, conv, 1);
  if (!w || w->dtype() != DType::kFloat32 || w->rank() < 3) return false;
  // Conv's W is [Cout, Cin/group, k...]; ConvTranspose's [Cin, Cout/group, k...].
  auto group = conv.attrs.GetInt("group", 1);
  if (!group.ok() || group.value() < 1 || w->dims()[0] % group.value() != 0) return false;
  const int64_t channels = transposed ? w->dims()[1] * group.value() : w->dims()[0];
  const Tensor* bias = ConstantInput(graph, conv, 2);
  if (conv.inputs.size() > 2 && conv.inputs[2] != kNoValue && !IsFloatVector(bias, channels))
    return false;
  const Tensor* gamma = ConstantInput(graph, bn, 1);
  const Tensor* beta = ConstantInput(graph, bn, 2);
  const Tensor* mean = ConstantInput(graph, bn, 3);
  const Tensor* var = ConstantInput(graph, bn, 4);
  if (!IsFloatVector(gamma, channels) || !IsFloatVector(beta, channels) ||
      !IsFloatVector(mean, channels) || !IsFloatVector(var, channels))
    return false;
  auto epsilon = bn.attrs.GetFloat("epsilon", 1e-5f);
  if (!epsilon.ok()) return false;

  // Double precision keeps the folded weights within an ulp or two of the unfused math.
  std::vector<double> scale(channels);
  for (int64_t o = 0; o < channels; ++o)
    scale[o] = gamma->data<float>()[o] /
               std::sqrt(static_cast<double>(var->data<float>()[o]) + epsilon.value());
  Tensor new_w = *w;
  Tensor new_b(DType::kFloat32, {channels});
  // W as rows of `kernel` values (over its first two dims), each scaled by its output channel's.
  const int64_t rows = w->dims()[0] * w->dims()[1];
  const int64_t kernel = w->num_elements() / rows;
  const int64_t per_group = transposed ? w->dims()[0] / group.value() : 0;
  for (int64_t r = 0; r < rows; ++r) {
    // Row r is (Cout, Cin/group) = (o, r % ..) for Conv, (Cin, Cout/group) = (ci, j) for
    // ConvTranspose, whose output channel is j of ci's group.
    const int64_t o = transposed ? r / w->dims()[1] / per_group * w->dims()[1] + r % w->dims()[1]
                                 : r / w->dims()[1];
    float* row = new_w.data<float>() + r * kernel;
    for (int64_t k = 0; k < kernel; ++k) row[k] = static_cast<float>(row[k] * scale[o]);
  }
  for (int64_t o = 0; o < channels; ++o) {
    double b = bias ? bias->data<float>()[o] : 0.0;
    new_b.data<float>()[o] =
        static_cast<float>((b - mean->data<float>()[o]) * scale[o] + beta->data<float>()[o]);
  }
  const std::string base = conv.name.empty() ? bn.name : conv.name;
  // A new constant: folded weights never overwrite an initializer another node may share.
  ValueId w_id = graph.AddConstant(base + ".weight_bn_folded", std::move(new_w));
  ValueId b_id = graph.AddConstant(base + ".bias_bn_folded", std::move(new_b));
  Node& conv_ref = graph.nodes[conv_id];  // AddValue does not move nodes, but stay explicit
  conv_ref.inputs.resize(3, kNoValue);
  conv_ref.inputs[1] = w_id;
  conv_ref.inputs[2] = b_id;
  conv_ref.outputs[0] = graph.nodes[bn_id].outputs[0];
  graph.nodes[bn_id].dead = true;
  return true;
}

}  // namespace

StatusOr<int> FoldBatchNormIntoConv(Graph& graph) {
  graph.RebuildUses();
  int folded = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].dead) continue;
    if (TryFold(graph, static_cast<NodeId>(n))) {
      ++folded;
      graph.RebuildUses();
    }
  }
  graph.Compact();
  return folded;
}

}  // namespace ios
