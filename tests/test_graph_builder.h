// Builds small ios graphs for tests, with shapes inferred through the op registry.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/op_registry.h"

namespace ios::testing {

class GraphBuilder {
 public:
  explicit GraphBuilder(int64_t opset = 13) : opset_(opset) {
    graph_.opset = opset;
    graph_.source_path = "test.onnx";
  }

  ValueId Input(const std::string& name, Dims dims, DType dtype = DType::kFloat32) {
    Value value;
    value.name = name;
    value.dtype = dtype;
    value.dims = std::move(dims);
    value.has_shape = true;
    ValueId id = graph_.AddValue(std::move(value));
    graph_.inputs.push_back(id);
    return id;
  }

  ValueId Constant(const std::string& name, Tensor tensor) {
    return graph_.AddConstant(name, std::move(tensor));
  }

  // A float32 scalar constant.
  ValueId Scalar(const std::string& name, float value) {
    return Constant(name, Tensor::FromFloat({value}, {}));
  }

  // A float tensor with values uniform in [-1, 1) from a fixed seed.
  Tensor Random(Dims dims) {
    Tensor t(DType::kFloat32, std::move(dims));
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = dist(rng_);
    return t;
  }

  // Adds a node with one output, named after the node; returns the output value.
  ValueId Op(const std::string& op_type, std::vector<ValueId> inputs, AttributeMap attrs = {},
             std::string name = "") {
    if (name.empty()) name = op_type + std::to_string(graph_.nodes.size());
    Value out;
    out.name = name + ":0";
    ValueId out_id = graph_.AddValue(std::move(out));
    Node node;
    node.name = name;
    node.op_type = op_type;
    node.opset = opset_;
    node.inputs = std::move(inputs);
    node.outputs = {out_id};
    node.attrs = std::move(attrs);
    NodeId id = graph_.AddNode(std::move(node));
    if (infer_) {
      Status status = InferNode(graph_, id);
      EXPECT_TRUE(status.ok()) << status.message();
    }
    return out_id;
  }

  // Split (opset 13, sizes as a constant input) of `whole` along `axis`; returns its outputs.
  std::vector<ValueId> Split(ValueId whole, const std::vector<int64_t>& sizes, int64_t axis,
                             const std::string& name) {
    ValueId sizes_value =
        Constant(Unique("sizes"), Tensor::FromInt64(sizes, {static_cast<int64_t>(sizes.size())}));
    Node node;
    node.name = name;
    node.op_type = "Split";
    node.opset = 13;
    node.inputs = {whole, sizes_value};
    node.attrs.Set("axis", axis);
    for (size_t i = 0; i < sizes.size(); ++i) {
      Value out;
      out.name = name + ":" + std::to_string(i);
      node.outputs.push_back(graph_.AddValue(std::move(out)));
    }
    std::vector<ValueId> outputs = node.outputs;
    NodeId id = graph_.AddNode(std::move(node));
    if (infer_) {
      Status status = InferNode(graph_, id);
      EXPECT_TRUE(status.ok()) << status.message();
    }
    return outputs;
  }

  // Conv with random weights and bias; kernel k x k, `pad` on every side.
  ValueId Conv(ValueId x, int64_t out_channels, int64_t k, int64_t pad = 0, int64_t group = 1,
               int64_t stride = 1, const std::string& name = "") {
    int64_t in_channels = graph_.values[x].dims[1];
    ValueId w = Constant(Unique("w"), Random({out_channels, in_channels / group, k, k}));
    ValueId b = Constant(Unique("b"), Random({out_channels}));
    AttributeMap attrs;
    attrs.Set("kernel_shape", std::vector<int64_t>{k, k});
    attrs.Set("pads", std::vector<int64_t>{pad, pad, pad, pad});
    attrs.Set("strides", std::vector<int64_t>{stride, stride});
    attrs.Set("group", group);
    return Op("Conv", {x, w, b}, attrs, name);
  }

  Graph Finish(std::vector<ValueId> outputs) {
    graph_.outputs = std::move(outputs);
    graph_.RebuildUses();
    return graph_;
  }

  Graph& graph() { return graph_; }
  // Off: nodes are added without shape inference (for graphs that only fold into shape).
  void set_infer(bool infer) { infer_ = infer; }

 private:
  std::string Unique(const std::string& prefix) { return prefix + std::to_string(counter_++); }

  int64_t opset_;
  Graph graph_;
  std::mt19937 rng_{1234};
  int counter_ = 0;
  bool infer_ = true;
};

// The live nodes of `op_type` in `g`.
inline int CountOps(const Graph& g, const std::string& op_type) {
  int n = 0;
  for (const Node& node : g.nodes) n += (!node.dead && node.op_type == op_type) ? 1 : 0;
  return n;
}

}  // namespace ios::testing
