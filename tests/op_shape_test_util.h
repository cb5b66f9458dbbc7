// The one-node shape-inference harness of the op schema tests: inputs (runtime tensors,
// constants or omitted), attributes, InferNode on a one-node graph, and checks of the output
// dims and of errors.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ops/op_registry.h"

namespace ios::shape_testing {

using Ints = std::vector<int64_t>;

// One node input: a runtime tensor, a constant, or omitted.
struct In {
  DType dtype = DType::kFloat32;
  Dims dims;
  std::optional<Tensor> constant;
  bool omitted = false;
};

inline In F(Dims dims) { return In{DType::kFloat32, std::move(dims)}; }
inline In Bool(Dims dims) { return In{DType::kBool, std::move(dims)}; }
inline In Typed(DType dtype, Dims dims) { return In{dtype, std::move(dims)}; }
inline In Omitted() { return In{DType::kUndefined, {}, std::nullopt, true}; }
// A constant 1-D int64 tensor (shapes, axes, pads, ...).
inline In Const(const Ints& values) {
  const Dims dims = {static_cast<int64_t>(values.size())};
  return In{DType::kInt64, dims, Tensor::FromInt64(values, dims)};
}
inline In ConstScalar(float value) {
  return In{DType::kFloat32, {}, Tensor::FromFloat({value}, {})};
}
inline In ConstScalarInt(int64_t value) {
  return In{DType::kInt64, {}, Tensor::FromInt64({value}, {})};
}
inline In ConstBool(bool value) {
  Tensor t(DType::kBool, {});
  t.data<uint8_t>()[0] = value ? 1 : 0;
  return In{DType::kBool, {}, t};
}
// A float weight of the given shape (contents do not matter for shapes).
inline In Weight(Dims dims) {
  Tensor t(DType::kFloat32, dims);
  return In{DType::kFloat32, std::move(dims), std::move(t)};
}

inline AttributeMap Attrs(std::initializer_list<std::pair<const char*, AttributeValue>> entries) {
  AttributeMap attrs;
  for (const auto& entry : entries) attrs.Set(entry.first, entry.second);
  return attrs;
}
inline AttributeValue Int(int64_t v) { return v; }
inline AttributeValue Float(float v) { return v; }
inline AttributeValue Str(const char* v) { return std::string(v); }

// A one-node graph; `outputs` values are created, `omitted_outputs` are kNoValue.
struct OneNode {
  Graph graph;
  NodeId node = kNoNode;
  Status status;

  std::vector<TensorType> Outputs() const {
    std::vector<TensorType> types;
    for (ValueId v : graph.nodes[node].outputs) {
      if (v == kNoValue) {
        types.push_back(TensorType{});
      } else {
        types.push_back(TensorType{graph.values[v].dtype, graph.values[v].dims});
      }
    }
    return types;
  }
  TensorType Out(size_t i = 0) const { return Outputs()[i]; }
  OpCost Cost() const { return NodeCost(graph, node); }
};

inline OneNode InferOneNode(const std::string& op, int64_t opset, std::vector<In> inputs,
                            AttributeMap attrs = {}, int num_outputs = 1,
                            std::vector<int> omitted_outputs = {}) {
  OneNode one;
  Graph& g = one.graph;
  g.source_path = "test.onnx";
  Node node;
  node.name = "n";
  node.op_type = op;
  node.opset = opset;
  node.attrs = std::move(attrs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].omitted) {
      node.inputs.push_back(kNoValue);
      continue;
    }
    Value v;
    v.name = "in" + std::to_string(i);
    v.dtype = inputs[i].dtype;
    v.dims = inputs[i].dims;
    v.has_shape = true;
    v.constant = inputs[i].constant;
    node.inputs.push_back(g.AddValue(v));
  }
  for (int i = 0; i < num_outputs; ++i) {
    bool omit = false;
    for (int o : omitted_outputs) omit = omit || o == i;
    node.outputs.push_back(omit ? kNoValue : g.AddValue(Value{"out" + std::to_string(i)}));
  }
  one.node = g.AddNode(node);
  one.status = InferNode(g, one.node);
  return one;
}

// Asserts that inference succeeded and output `i` has the given dims. `one` is evaluated once.
#define EXPECT_OUT_DIMS(one, i, ...)                                  \
  do {                                                                \
    const OneNode& one_node_ = (one);                                 \
    ASSERT_TRUE(one_node_.status.ok()) << one_node_.status.message(); \
    EXPECT_EQ(one_node_.Out(i).dims, (Dims __VA_ARGS__));             \
  } while (0)

inline void ExpectError(const OneNode& one, StatusCode code, const std::string& fragment) {
  ASSERT_FALSE(one.status.ok()) << "expected an error containing '" << fragment << "'";
  EXPECT_EQ(one.status.code(), code) << one.status.message();
  EXPECT_NE(one.status.message().find(fragment), std::string::npos) << one.status.message();
}

}  // namespace ios::shape_testing
