#include "passes/widen_float16.h"

#include <string>
#include <utility>

#include "ir/tensor.h"
#include "kernels/math/cast_math.h"

namespace ios {
namespace {

constexpr int64_t kOnnxFloat = 1;
constexpr int64_t kOnnxFloat16 = 10;

// Exact: every float16 value is a float.
Tensor WidenTensor(const Tensor& half) {
  Tensor wide(DType::kFloat32, half.dims());
  const auto* bits = reinterpret_cast<const uint16_t*>(half.raw());
  for (int64_t i = 0; i < half.num_elements(); ++i)
    wide.data<float>()[i] = static_cast<float>(HalfToDouble(bits[i]));
  return wide;
}

Node CastNode(std::string name, ValueId from, ValueId to, int64_t onnx_type, int64_t opset) {
  Node cast;
  cast.name = std::move(name);
  cast.op_type = "Cast";
  cast.opset = opset;
  cast.inputs = {from};
  cast.outputs = {to};
  cast.attrs.Set("to", onnx_type);
  return cast;
}

}  // namespace

StatusOr<int> WidenFloat16ToFloat32(Graph& graph) {
  graph.RebuildUses();
  bool any = false;
  for (const Value& value : graph.values) any = any || value.dtype == DType::kFloat16;
  for (const Node& node : graph.nodes) {
    if (node.dead || node.op_type != "ConstantOfShape") continue;
    const Tensor* fill = node.attrs.GetTensor("value");
    any = any || (fill != nullptr && fill->dtype() == DType::kFloat16);
  }
  if (!any) return 0;

  int widened = 0;
  const int64_t opset = graph.opset;
  // Inputs: the graph reads float16 and casts it once; its readers take the float32 copy.
  for (ValueId input : std::vector<ValueId>(graph.inputs)) {
    if (graph.values[input].dtype != DType::kFloat16) continue;
    Value wide;
    wide.name = graph.values[input].name + "/float32";
    wide.dtype = DType::kFloat32;
    const ValueId wide_id = graph.AddValue(std::move(wide));
    for (Node& node : graph.nodes) {
      if (node.dead) continue;
      for (ValueId& in : node.inputs)
        if (in == input) in = wide_id;
    }
    graph.AddNode(
        CastNode(graph.values[input].name + "/to_float32", input, wide_id, kOnnxFloat, opset));
    ++widened;
  }
  // Outputs: the producer writes a float32 value, cast to the float16 output the graph promises.
  for (ValueId& output : graph.outputs) {
    Value& half = graph.values[output];
    if (half.dtype != DType::kFloat16 || half.producer == kNoNode || half.is_graph_input) continue;
    Value wide;
    wide.name = half.name + "/float32";
    wide.dtype = DType::kFloat32;
    const ValueId wide_id = graph.AddValue(std::move(wide));
    const NodeId producer = graph.values[output].producer;
    for (ValueId& out : graph.nodes[producer].outputs)
      if (out == output) out = wide_id;
    for (Node& node : graph.nodes) {
      if (node.dead) continue;
      for (ValueId& in : node.inputs)
        if (in == output) in = wide_id;
    }
    graph.AddNode(
        CastNode(graph.values[output].name + "/to_float16", wide_id, output, kOnnxFloat16, opset));
    ++widened;
  }
  // Everything inside: constants converted, dtypes widened (inference recomputes the rest).
  graph.RebuildUses();
  for (Value& value : graph.values) {
    if (value.is_graph_input || value.is_graph_output) continue;
    if (value.constant && value.constant->dtype() == DType::kFloat16) {
      value.constant = WidenTensor(*value.constant);
      value.dtype = DType::kFloat32;
      ++widened;
    } else if (value.dtype == DType::kFloat16) {
      value.dtype = DType::kFloat32;
      ++widened;
    }
  }
  for (Node& node : graph.nodes) {
    if (node.dead) continue;
    const bool boundary_cast = node.op_type == "Cast" && node.outputs.size() == 1 &&
                               node.outputs[0] != kNoValue &&
                               graph.values[node.outputs[0]].is_graph_output;
    if (node.op_type == "Cast" && !boundary_cast) {
      IOS_ASSIGN_OR_RETURN(int64_t to, node.attrs.GetInt("to", 0));
      if (to == kOnnxFloat16) node.attrs.Set("to", kOnnxFloat);
    } else if (node.op_type == "ConstantOfShape") {
      const Tensor* fill = node.attrs.GetTensor("value");
      if (fill != nullptr && fill->dtype() == DType::kFloat16)
        node.attrs.Set("value", WidenTensor(*fill));
    }
  }
  return widened;
}

}  // namespace ios
