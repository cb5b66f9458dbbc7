#include "onnx/onnx_exporter.h"

#include <onnx/onnx_pb.h>

#include <set>

#include "ir/fused_activation.h"
#include "onnx/attribute_proto.h"
#include "onnx/onnx_export_decompose.h"
#include "onnx/tensor_proto.h"
#include "util/file_util.h"

namespace ios {
namespace {

void SetValueInfo(const Value& value, onnx::ValueInfoProto* info) {
  info->set_name(value.name);
  auto* tensor_type = info->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(static_cast<int32_t>(value.dtype));
  auto* shape = tensor_type->mutable_shape();
  for (int64_t d : value.dims) shape->add_dim()->set_dim_value(d);
}

// Adds the activation node that undoes a fusion: conv writes `pre`, the activation writes `out`.
void AddActivationNode(const Node& conv, const Activation& act, const std::string& pre,
                       const std::string& out, int64_t opset, onnx::GraphProto* graph) {
  if (act.kind == ActivationKind::kSilu) {  // no ONNX op: Sigmoid and Mul, as exporters write it
    const std::string gate = conv.name + "/activation/sigmoid";
    onnx::NodeProto* sigmoid = graph->add_node();
    sigmoid->set_name(gate);
    sigmoid->set_op_type("Sigmoid");
    sigmoid->add_input(pre);
    sigmoid->add_output(gate);
    onnx::NodeProto* mul = graph->add_node();
    mul->set_name(conv.name + "/activation");
    mul->set_op_type("Mul");
    mul->add_input(pre);
    mul->add_input(gate);
    mul->add_output(out);
    return;
  }
  onnx::NodeProto* node = graph->add_node();
  node->set_name(conv.name + "/activation");
  node->set_op_type(ActivationOpType(act.kind));
  node->add_input(pre);
  node->add_output(out);
  switch (act.kind) {
    case ActivationKind::kLeakyRelu:
    case ActivationKind::kElu:
    case ActivationKind::kCelu:
    case ActivationKind::kThresholdedRelu:
      *node->add_attribute() = AttributeToProto("alpha", AttributeValue(act.alpha));
      break;
    case ActivationKind::kSelu:
      *node->add_attribute() = AttributeToProto("alpha", AttributeValue(act.alpha));
      *node->add_attribute() = AttributeToProto("gamma", AttributeValue(act.beta));
      break;
    case ActivationKind::kHardSigmoid:
      *node->add_attribute() = AttributeToProto("alpha", AttributeValue(act.alpha));
      *node->add_attribute() = AttributeToProto("beta", AttributeValue(act.beta));
      break;
    case ActivationKind::kClip:
      if (opset < 11) {
        *node->add_attribute() = AttributeToProto("min", AttributeValue(act.alpha));
        *node->add_attribute() = AttributeToProto("max", AttributeValue(act.beta));
      } else {
        const std::pair<float, const char*> bounds[] = {{act.alpha, "/clip_min"},
                                                         {act.beta, "/clip_max"}};
        for (const auto& [bound, suffix] : bounds) {
          std::string name = conv.name + suffix;
          *graph->add_initializer() = TensorToProto(Tensor::FromFloat({bound}, {}), name);
          node->add_input(name);
        }
      }
      break;
    default: break;
  }
}

// The IR version that onnx pairs with an opset (onnx/helper.py's VERSION_TABLE).
int64_t IrVersionForOpset(int64_t opset) {
  if (opset >= 21) return 10;
  if (opset >= 19) return 9;
  if (opset >= 15) return 8;
  if (opset >= 12) return 7;
  if (opset >= 10) return 5;
  if (opset >= 9) return 4;
  return 3;
}

}  // namespace

StatusOr<std::string> ExportOnnxBytes(const Graph& graph) {
  onnx::ModelProto model;
  model.set_ir_version(IrVersionForOpset(graph.opset));
  model.set_producer_name("ios");
  model.set_producer_version(IOS_VERSION);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(graph.opset);
  onnx::GraphProto* out = model.mutable_graph();
  out->set_name(graph.name.empty() ? "ios" : graph.name);

  std::set<ValueId> used;
  for (const Node& node : graph.nodes)
    if (!node.dead)
      for (ValueId id : node.inputs)
        if (id != kNoValue) used.insert(id);
  for (ValueId id : graph.outputs) used.insert(id);
  for (ValueId id : used)
    if (graph.values[id].constant)
      *out->add_initializer() = TensorToProto(*graph.values[id].constant, graph.values[id].name);
  for (ValueId id : graph.inputs) SetValueInfo(graph.values[id], out->add_input());
  for (ValueId id : graph.outputs) SetValueInfo(graph.values[id], out->add_output());

  IOS_ASSIGN_OR_RETURN(std::vector<NodeId> order, graph.TopologicalOrder());
  for (NodeId id : order) {
    const Node& node = graph.nodes[id];
    if (node.opset > graph.opset) {
      // A fused node (Gelu, LayerNormalization) newer than the model: written as its subgraph.
      IOS_RETURN_IF_ERROR(ExportDecomposed(graph, node, graph.opset, out));
      continue;
    }
    Activation act = GetFusedActivation(node.attrs);
    // A fused residual (ir/fused_activation.h) becomes the Add it was: Conv, Add, activation.
    const bool residual = HasFusedResidual(node);
    onnx::NodeProto* proto = out->add_node();
    proto->set_name(node.name);
    proto->set_op_type(node.op_type);
    for (size_t i = 0; i < node.inputs.size() && (!residual || i < 3); ++i) {
      const ValueId in = node.inputs[i];
      proto->add_input(in == kNoValue ? "" : graph.values[in].name);
    }
    while (residual && proto->input_size() > 2 && proto->input(proto->input_size() - 1).empty())
      proto->mutable_input()->RemoveLast();  // no bias
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      ValueId o = node.outputs[i];
      std::string name = o == kNoValue ? "" : graph.values[o].name;
      if (i == 0 && residual) name += "/pre_residual";
      if (i == 0 && act.kind != ActivationKind::kNone) name += "/pre_activation";
      proto->add_output(name);
    }
    for (const auto& [name, value] : node.attrs.all()) {
      if (name.rfind("ios.", 0) == 0) continue;  // ios-internal annotations
      *proto->add_attribute() = AttributeToProto(name, value);
    }
    if (residual) {
      const std::string& final_name = graph.values[node.outputs[0]].name;
      const std::string sum = act.kind != ActivationKind::kNone ? final_name + "/pre_activation"
                                                                 : final_name;
      onnx::NodeProto* add = out->add_node();
      add->set_name(node.name + "/residual");
      add->set_op_type("Add");
      add->add_input(proto->output(0));
      add->add_input(graph.values[node.inputs[3]].name);
      add->add_output(sum);
    }
    if (act.kind != ActivationKind::kNone) {
      const std::string& final_name = graph.values[node.outputs[0]].name;
      AddActivationNode(node, act, final_name + "/pre_activation", final_name, graph.opset, out);
    }
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) return Internal("cannot serialise the ONNX model");
  return bytes;
}

Status ExportOnnxFile(const Graph& graph, const std::string& path) {
  IOS_ASSIGN_OR_RETURN(std::string bytes, ExportOnnxBytes(graph));
  return WriteFileAtomically(path, bytes);
}

}  // namespace ios
