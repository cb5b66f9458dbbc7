#include "passes/fuse_layer_norm.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "passes/pattern_match.h"

namespace ios {
namespace {

struct LayerNormMatch {
  ValueId x = kNoValue;
  int64_t axis = 0;
  float epsilon = 0.f;
  ValueId scale = kNoValue;  // kNoValue: no Mul by a scale was absorbed
  ValueId bias = kNoValue;
  ValueId output = kNoValue;
  std::vector<NodeId> nodes;
  NodeId last = kNoNode;
};

// The first reduced axis when a ReduceMean with keepdims=1 reduces exactly the trailing axes
// [a, rank) of its input (axes from the attribute before opset 18, from a constant input since).
std::optional<int64_t> TrailingReduceAxis(const Graph& graph, const Node& node) {
  if (node.inputs.empty() || node.outputs.size() != 1) return std::nullopt;
  StatusOr<int64_t> keepdims = node.attrs.GetInt("keepdims", 1);
  StatusOr<int64_t> noop = node.attrs.GetInt("noop_with_empty_axes", 0);
  if (!keepdims.ok() || keepdims.value() != 1 || !noop.ok()) return std::nullopt;
  std::vector<int64_t> axes;
  if (node.opset < 18) {
    StatusOr<std::vector<int64_t>> attr = node.attrs.GetInts("axes", {});
    if (!attr.ok()) return std::nullopt;
    axes = attr.value();
  } else if (node.inputs.size() > 1 && node.inputs[1] != kNoValue) {
    const Value& value = graph.values[node.inputs[1]];
    if (!value.constant) return std::nullopt;
    axes = value.constant->ToInt64Vector();
  }
  const int64_t rank = static_cast<int64_t>(graph.values[node.inputs[0]].dims.size());
  if (axes.empty()) {
    if (noop.value() != 0) return std::nullopt;  // the identity
    return rank > 0 ? std::optional<int64_t>(0) : std::nullopt;
  }
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  const int64_t first = rank - static_cast<int64_t>(axes.size());
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != first + static_cast<int64_t>(i)) return std::nullopt;
  return first;
}

// Pow(d, 2) or Mul(d, d).
bool IsSquareOf(const Graph& graph, const Node& node, ValueId d) {
  if (node.inputs.size() != 2 || node.inputs[0] != d) return false;
  if (node.op_type == "Mul") return node.inputs[1] == d;
  return node.op_type == "Pow" && IsScalarNear(graph, node.inputs[1], 2.0);
}

// `param` as the Scale or B of the fused node: a float32 value that broadcasts to the normalised
// dims `row`. Leading 1s beyond the row's rank are dropped, which needs a constant (a reshaped
// copy). nullopt when it does not fit.
std::optional<ValueId> RowParameter(Graph& graph, ValueId param, const Dims& row,
                                    const std::string& name) {
  const Value& value = graph.values[param];
  if (value.dtype != DType::kFloat32) return std::nullopt;
  Dims dims = value.dims;
  while (dims.size() > row.size() && dims.front() == 1) dims.erase(dims.begin());
  if (dims.size() > row.size()) return std::nullopt;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t r = row[row.size() - dims.size() + i];
    if (dims[i] != r && dims[i] != 1) return std::nullopt;
  }
  if (dims == value.dims) return param;
  if (!value.constant) return std::nullopt;
  Tensor reshaped = *value.constant;
  reshaped.Reshape(dims);
  return graph.AddConstant(name, std::move(reshaped));
}

// The core, from the first ReduceMean through the Div.
bool MatchNormalisation(const Graph& graph, NodeId mean_node, LayerNormMatch* match) {
  const Node& reduce = graph.nodes[mean_node];
  const std::optional<int64_t> axis = TrailingReduceAxis(graph, reduce);
  if (!axis) return false;
  const ValueId x = reduce.inputs[0];
  const ValueId mean = reduce.outputs[0];
  const std::optional<NodeId> sub = SoleReaderOfType(graph, mean, "Sub");
  if (!sub) return false;
  const Node& sub_node = graph.nodes[*sub];
  if (sub_node.inputs.size() != 2 || sub_node.inputs[0] != x || sub_node.inputs[1] != mean)
    return false;
  // d feeds the square and the Div, nothing else.
  const ValueId d = sub_node.outputs[0];
  const Value& d_value = graph.values[d];
  if (d_value.is_graph_output || d_value.consumers.size() != 2) return false;
  NodeId square = kNoNode;
  NodeId div = kNoNode;
  for (NodeId reader : d_value.consumers) {
    const Node& node = graph.nodes[reader];
    if (node.op_type == "Div" && node.inputs.size() == 2 && node.inputs[0] == d) {
      div = reader;
    } else if (IsSquareOf(graph, node, d)) {
      square = reader;
    }
  }
  if (square == kNoNode || div == kNoNode) return false;
  const std::optional<NodeId> variance =
      SoleReaderOfType(graph, graph.nodes[square].outputs[0], "ReduceMean");
  if (!variance || TrailingReduceAxis(graph, graph.nodes[*variance]) != axis) return false;
  const ValueId var = graph.nodes[*variance].outputs[0];
  const std::optional<NodeId> add = SoleReaderOfType(graph, var, "Add");
  if (!add) return false;
  const std::optional<ValueId> eps = OtherInput(graph.nodes[*add], var);
  const std::optional<float> epsilon = eps ? FloatScalar(graph, *eps) : std::nullopt;
  if (!epsilon || *epsilon < 0.f) return false;
  const std::optional<NodeId> sqrt = SoleReaderOfType(graph, graph.nodes[*add].outputs[0], "Sqrt");
  if (!sqrt) return false;
  const ValueId std_dev = graph.nodes[*sqrt].outputs[0];
  if (!OnlyReadBy(graph, std_dev, div) || graph.nodes[div].inputs[1] != std_dev) return false;
  match->x = x;
  match->axis = *axis;
  match->epsilon = *epsilon;
  match->nodes = {mean_node, *sub, square, *variance, *add, *sqrt, div};
  match->last = div;
  match->output = graph.nodes[div].outputs[0];
  return true;
}

// Absorbs a following Mul by a scale, then a following Add of a bias, when they fit the row.
void MatchAffine(Graph& graph, LayerNormMatch* match) {
  const Dims x_dims = graph.values[match->x].dims;  // a copy: RowParameter may add values
  const Dims row(x_dims.begin() + match->axis, x_dims.end());
  for (const char* op : {"Mul", "Add"}) {
    const std::optional<NodeId> next = SoleReaderOfType(graph, match->output, op);
    if (!next) continue;
    const std::optional<ValueId> other = OtherInput(graph.nodes[*next], match->output);
    if (!other) return;
    const std::string name = graph.nodes[*next].name + (op[0] == 'M' ? "/scale" : "/bias");
    const std::optional<ValueId> param = RowParameter(graph, *other, row, name);
    if (!param) return;
    (op[0] == 'M' ? match->scale : match->bias) = *param;
    match->nodes.push_back(*next);
    match->last = *next;
    match->output = graph.nodes[*next].outputs[0];
  }
}

// Turns the match's last node into the LayerNormalization node and removes the others.
void Replace(Graph& graph, const LayerNormMatch& match) {
  const Dims x_dims = graph.values[match.x].dims;
  ValueId scale = match.scale;
  if (scale == kNoValue) {
    const Dims row(x_dims.begin() + match.axis, x_dims.end());
    scale = graph.AddConstant(graph.nodes[match.last].name + "/ones",
                              Tensor::FromFloat(std::vector<float>(NumElements(row), 1.f), row));
  }
  for (NodeId id : match.nodes)
    if (id != match.last) graph.nodes[id].dead = true;
  Node& node = graph.nodes[match.last];
  node.op_type = "LayerNormalization";
  node.opset = 17;  // LayerNormalization's first opset (the exporter handles older models)
  node.inputs = {match.x, scale};
  if (match.bias != kNoValue) node.inputs.push_back(match.bias);
  node.outputs = {match.output};
  node.attrs = AttributeMap();
  node.attrs.Set("axis", match.axis);
  node.attrs.Set("epsilon", match.epsilon);
}

}  // namespace

int FuseLayerNorm(Graph& graph) {
  graph.RebuildUses();
  int fused = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].dead || graph.nodes[n].op_type != "ReduceMean") continue;
    LayerNormMatch match;
    if (!MatchNormalisation(graph, static_cast<NodeId>(n), &match)) continue;
    if (graph.values[match.x].dtype != DType::kFloat32) continue;
    MatchAffine(graph, &match);
    if (graph.values[match.output].dims != graph.values[match.x].dims) continue;
    const std::set<NodeId> distinct(match.nodes.begin(), match.nodes.end());
    if (distinct.size() != match.nodes.size()) continue;
    Replace(graph, match);
    ++fused;
    graph.RebuildUses();
  }
  graph.Compact();
  return fused;
}

}  // namespace ios
