// One-node test cases as data, for the table that every backend runs against the reference
// kernel (op_case_table.cc): each case names its op, describes the node (opset, attributes,
// inputs: random ones with their shape, dtype and range, or fixed values, runtime or constant)
// and gives its tolerance. BuildCase turns a case into any one-node builder (one_node_graph.h):
// the CPU harness's OneNodeCase or the CUDA one's OneNodeGraph.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../random_tensor.h"
#include "ir/fused_activation.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "tolerance.h"

namespace ios::op_cases {

using testing::DotTolerance;
using testing::kConvMath;
using testing::kElementwise;
using testing::kExact;
using testing::kFloatMath;
using testing::kFloatSums;
using testing::kInterpolation;
using testing::Tolerance;

// How a random input's elements are drawn: uniform in [lo, hi) for floats, uniform integers in
// [lo, hi] for integer dtypes (and for floats when `integral`, so that values tie), 0/1 for bool.
// With `specials`, every fifth float is NaN, an infinity, a signed zero or a half instead.
struct Draw {
  DType dtype = DType::kFloat32;
  double lo = -1.0;
  double hi = 1.0;
  bool integral = false;
  bool specials = false;

  Draw Specials() const {
    Draw draw = *this;
    draw.specials = true;
    return draw;
  }
};

inline Draw Range(double lo, double hi) { return Draw{DType::kFloat32, lo, hi, false}; }
// Float32 integers in [lo, hi]: maxima, minima and comparisons see ties.
inline Draw Whole(int64_t lo, int64_t hi) {
  return Draw{DType::kFloat32, static_cast<double>(lo), static_cast<double>(hi), true};
}
inline Draw IntRange(int64_t lo, int64_t hi, DType dtype = DType::kInt64) {
  return Draw{dtype, static_cast<double>(lo), static_cast<double>(hi), true};
}
inline Draw Bools() { return Draw{DType::kBool, 0.0, 1.0, true}; }

inline void PlaceSpecials(Tensor& t) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            0.f,
                            -0.f,
                            0.5f,
                            -1.5f};
  const int64_t count = static_cast<int64_t>(sizeof(specials) / sizeof(specials[0]));
  for (int64_t i = 0; i < t.num_elements(); i += 5) t.data<float>()[i] = specials[i / 5 % count];
}

inline Tensor RandomOf(std::mt19937& rng, const Draw& draw, const Dims& dims) {
  if (draw.dtype == DType::kFloat32 && !draw.integral) {
    Tensor t =
        testing::RandomFloats(rng, dims, static_cast<float>(draw.lo), static_cast<float>(draw.hi));
    if (draw.specials) PlaceSpecials(t);
    return t;
  }
  return testing::RandomIntegers(rng, draw.dtype, dims, static_cast<int64_t>(draw.lo),
                                 static_cast<int64_t>(draw.hi));
}

// Fixed values: a 1-D int64 tensor (shapes, axes, pads, indices), a float scalar.
inline Tensor I64(const std::vector<int64_t>& values) {
  return Tensor::FromInt64(values, {static_cast<int64_t>(values.size())});
}
inline Tensor F32(const std::vector<float>& values) {
  return Tensor::FromFloat(values, {static_cast<int64_t>(values.size())});
}
inline Tensor Scalar(float value) { return Tensor::FromFloat({value}, {}); }

// The node of a case. Inputs come in order: In (random, computed at run time), Weight (random,
// constant), Value (fixed, run time), Const (fixed, constant), Omitted.
class NodeSpec {
 public:
  struct InputSpec {
    bool present = true;
    bool constant = false;
    bool fixed = false;
    Dims dims;
    Draw draw;
    Tensor value;  // when fixed
  };

  NodeSpec& In(Dims dims, Draw draw = {}) { return Random(std::move(dims), draw, false); }
  NodeSpec& Weight(Dims dims, Draw draw = {}) { return Random(std::move(dims), draw, true); }
  NodeSpec& Value(Tensor value) { return Fixed(std::move(value), false); }
  NodeSpec& Const(Tensor value) { return Fixed(std::move(value), true); }
  NodeSpec& Omitted() {
    InputSpec input;
    input.present = false;
    inputs_.push_back(std::move(input));
    return *this;
  }
  NodeSpec& Attr(const std::string& name, AttributeValue value) {
    attrs_.Set(name, std::move(value));
    return *this;
  }
  // An activation fused into the node, as the fusion pass records it (ir/fused_activation.h).
  NodeSpec& Fused(ActivationKind kind, float alpha = 0.f, float beta = 0.f) {
    SetFusedActivation(attrs_, Activation{kind, alpha, beta});
    return *this;
  }
  NodeSpec& Opset(int64_t opset) {
    opset_ = opset;
    return *this;
  }
  NodeSpec& Outputs(int count) {
    outputs_ = count;
    return *this;
  }
  // Names the case in its test's name (letters, digits and spaces).
  NodeSpec& Label(std::string label) {
    label_ = std::move(label);
    return *this;
  }

  // The CUDA backend refuses this form of the op by design (its test expects the refusal).
  NodeSpec& NotOnCuda(std::string reason) {
    not_on_cuda_ = std::move(reason);
    return *this;
  }

  const std::vector<InputSpec>& inputs() const { return inputs_; }
  const AttributeMap& attrs() const { return attrs_; }
  int64_t opset() const { return opset_; }
  int outputs() const { return outputs_; }
  const std::string& label() const { return label_; }
  const std::string& not_on_cuda() const { return not_on_cuda_; }

 private:
  NodeSpec& Random(Dims dims, Draw draw, bool constant) {
    InputSpec input;
    input.constant = constant;
    input.dims = std::move(dims);
    input.draw = draw;
    inputs_.push_back(std::move(input));
    return *this;
  }
  NodeSpec& Fixed(Tensor value, bool constant) {
    InputSpec input;
    input.constant = constant;
    input.fixed = true;
    input.value = std::move(value);
    inputs_.push_back(std::move(input));
    return *this;
  }

  std::vector<InputSpec> inputs_;
  AttributeMap attrs_;
  int64_t opset_ = 13;
  int outputs_ = 1;
  std::string label_;
  std::string not_on_cuda_;  // empty: the CUDA backend runs it
};

// The shapes of most cases: a node of random inputs.
inline NodeSpec Unary(Dims dims, Draw draw = {}) { return NodeSpec().In(std::move(dims), draw); }
inline NodeSpec Binary(Dims a, Dims b, Draw draw_a = {}, Draw draw_b = {}) {
  return NodeSpec().In(std::move(a), draw_a).In(std::move(b), draw_b);
}
inline NodeSpec Variadic(const std::vector<Dims>& inputs, Draw draw = {}) {
  NodeSpec node;
  for (const Dims& dims : inputs) node.In(dims, draw);
  return node;
}

struct OpCase {
  std::string op;
  NodeSpec node;
  Tolerance tolerance;
};

// The table: every op in the registry has at least one case (op_registry_walk_test.cc).
const std::vector<OpCase>& OpCases();

// "<op>_<index among the op's cases>[_<label>]", a valid gtest name.
std::string CaseName(size_t index);

// The case's random inputs come from a generator seeded by its name, so that adding a case
// changes no other case's values.
inline uint32_t CaseSeed(const std::string& name) {
  uint32_t hash = 2166136261u;  // FNV-1a
  for (char c : name) hash = (hash ^ static_cast<uint8_t>(c)) * 16777619u;
  return hash;
}

// Case `index` of the table as a one-node graph of `Builder` (a OneNodeBuilder).
template <typename Builder>
Builder BuildCase(size_t index) {
  const OpCase& c = OpCases().at(index);
  Builder builder(c.op, c.node.opset());
  std::mt19937 rng(CaseSeed(CaseName(index)));
  for (const NodeSpec::InputSpec& input : c.node.inputs()) {
    if (!input.present) {
      builder.Omitted();
    } else {
      builder.Input(input.fixed ? input.value : RandomOf(rng, input.draw, input.dims),
                    input.constant);
    }
  }
  for (const auto& [name, value] : c.node.attrs().all()) builder.Attr(name, value);
  builder.Outputs(c.node.outputs());
  return builder;
}

}  // namespace ios::op_cases
