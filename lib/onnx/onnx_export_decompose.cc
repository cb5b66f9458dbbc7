#include "onnx/onnx_export_decompose.h"

#include <cmath>
#include <string>
#include <vector>

#include "onnx/attribute_proto.h"
#include "onnx/tensor_proto.h"

namespace ios {
namespace {

// Appends nodes for one decomposed node: intermediate values and constants are named after it.
class Writer {
 public:
  Writer(const Node& node, onnx::GraphProto* out) : node_(node), out_(out) {}

  // A float32 scalar initializer.
  std::string Scalar(const std::string& suffix, float value) {
    const std::string name = node_.name + "/" + suffix;
    *out_->add_initializer() = TensorToProto(Tensor::FromFloat({value}, {}), name);
    return name;
  }

  // Adds `op_type`(inputs) writing `output` (a fresh intermediate name when empty).
  std::string Op(const std::string& op_type, const std::vector<std::string>& inputs,
                 std::string output = "", const std::vector<int64_t>& axes = {}) {
    const std::string name = node_.name + "/" + std::to_string(count_++) + "_" + op_type;
    if (output.empty()) output = name;
    onnx::NodeProto* proto = out_->add_node();
    proto->set_name(name);
    proto->set_op_type(op_type);
    for (const std::string& input : inputs) proto->add_input(input);
    proto->add_output(output);
    if (!axes.empty()) {
      *proto->add_attribute() = AttributeToProto("axes", AttributeValue(axes));
      *proto->add_attribute() = AttributeToProto("keepdims", AttributeValue(int64_t{1}));
    }
    return output;
  }

 private:
  const Node& node_;
  onnx::GraphProto* out_;
  int count_ = 0;
};

std::string ValueName(const Graph& graph, ValueId id) { return graph.values[id].name; }

// x * 0.5 * (1 + Erf(x / sqrt(2))), or with approximate="tanh"
// x * 0.5 * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x * x * x))).
Status WriteGelu(const Graph& graph, const Node& node, Writer& w) {
  IOS_ASSIGN_OR_RETURN(std::string approximate, node.attrs.GetString("approximate", "none"));
  const std::string x = ValueName(graph, node.inputs[0]);
  std::string inner;
  if (approximate == "tanh") {
    const std::string cube = w.Op("Mul", {w.Op("Mul", {x, x}), x});
    const std::string sum = w.Op("Add", {x, w.Op("Mul", {cube, w.Scalar("cubic", 0.044715f)})});
    const float k = static_cast<float>(std::sqrt(2.0 / std::acos(-1.0)));
    inner = w.Op("Tanh", {w.Op("Mul", {sum, w.Scalar("sqrt_2_over_pi", k)})});
  } else {
    inner = w.Op("Erf", {w.Op("Div", {x, w.Scalar("sqrt2", std::sqrt(2.f))})});
  }
  const std::string factor = w.Op("Add", {inner, w.Scalar("one", 1.f)});
  const std::string half_x = w.Op("Mul", {x, w.Scalar("half", 0.5f)});
  w.Op("Mul", {half_x, factor}, ValueName(graph, node.outputs[0]));
  return Status::Ok();
}

// ReduceMean / Sub / Mul / ReduceMean / Add / Sqrt / Div, then Mul by Scale and Add of B.
// Only for opsets before 18 (ReduceMean's axes are an attribute there).
Status WriteLayerNorm(const Graph& graph, const Node& node, int64_t opset, Writer& w) {
  for (size_t i = 1; i < node.outputs.size(); ++i)
    if (node.outputs[i] != kNoValue)
      return Unsupported("LayerNormalization with Mean/InvStdDev outputs at opset " +
                         std::to_string(opset));
  if (opset >= 18) return Internal("LayerNormalization is native from opset 17");
  const Dims& dims = graph.values[node.inputs[0]].dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  IOS_ASSIGN_OR_RETURN(int64_t axis, node.attrs.GetInt("axis", -1));
  IOS_ASSIGN_OR_RETURN(float epsilon, node.attrs.GetFloat("epsilon", 1e-5f));
  if (axis < 0) axis += rank;
  std::vector<int64_t> axes;
  for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
  const std::string x = ValueName(graph, node.inputs[0]);
  const std::string d = w.Op("Sub", {x, w.Op("ReduceMean", {x}, "", axes)});
  const std::string variance = w.Op("ReduceMean", {w.Op("Mul", {d, d})}, "", axes);
  const std::string std_dev = w.Op("Sqrt", {w.Op("Add", {variance, w.Scalar("epsilon", epsilon)})});
  const bool has_bias = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
  const std::string y = ValueName(graph, node.outputs[0]);
  const std::string scaled =
      w.Op("Mul", {w.Op("Div", {d, std_dev}), ValueName(graph, node.inputs[1])}, has_bias ? "" : y);
  if (has_bias) w.Op("Add", {scaled, ValueName(graph, node.inputs[2])}, y);
  return Status::Ok();
}

}  // namespace

Status ExportDecomposed(const Graph& graph, const Node& node, int64_t opset,
                        onnx::GraphProto* out) {
  Writer writer(node, out);
  if (node.op_type == "Gelu") return WriteGelu(graph, node, writer);
  if (node.op_type == "LayerNormalization") return WriteLayerNorm(graph, node, opset, writer);
  return Unsupported("node '" + node.name + "' (" + node.op_type + ", opset " +
                     std::to_string(node.opset) + ") cannot be written into an opset " +
                     std::to_string(opset) + " model");
}

}  // namespace ios
