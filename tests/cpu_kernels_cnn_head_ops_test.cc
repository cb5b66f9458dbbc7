// The CPU kernels of the ops that recent CNN exports brought (one test per op family) against
// the reference kernels (cpu_kernel_case.h: random data from fixed seeds, threads 1 and 2, the
// fast kernel checked to be the one that ran).
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cpu_kernel_case.h"
#include "random_tensor.h"

namespace ios {
namespace {

using namespace cpu_testing;  // NOLINT: the harness of cpu_kernel_case.h
using testing::RandomFloats;

TEST(CpuCnnHeadOpsTest, Activations) {
  std::mt19937 rng(2101);
  const Dims dims = {2, 5, 33, 17};
  struct Spec {
    const char* op;
    int64_t opset;
    std::vector<std::pair<std::string, float>> attrs;
  };
  const std::vector<Spec> specs = {
      {"Softplus", 22, {}},
      {"Mish", 18, {}},
      {"Selu", 6, {}},
      {"Selu", 22, {{"alpha", 2.f}, {"gamma", 0.5f}}},
      {"Celu", 12, {}},
      {"Celu", 12, {{"alpha", 0.5f}}},
      {"Softsign", 22, {}},
      {"ThresholdedRelu", 10, {}},
      {"ThresholdedRelu", 22, {{"alpha", -0.5f}}},
  };
  for (const Spec& spec : specs) {
    // Wide enough for Softplus and Mish to reach both of their asymptotes.
    OneNodeCase c(spec.op, spec.opset);
    c.Input(RandomFloats(rng, dims, -30.f, 30.f));
    for (const auto& [name, value] : spec.attrs) c.Attr(name, value);
    c.Check(kElementwise);
  }
}

TEST(CpuCnnHeadOpsTest, ConvFusesSoftplusAndMishButRefusesTheOthers) {
  std::mt19937 rng(2102);
  for (ActivationKind kind : {ActivationKind::kSoftplus, ActivationKind::kMish}) {
    SCOPED_TRACE(ActivationOpType(kind));
    OneNodeCase c("Conv", 13);
    c.Input(RandomFloats(rng, {1, 8, 12, 12}))
        .Constant(RandomFloats(rng, {16, 8, 3, 3}))
        .Constant(RandomFloats(rng, {16}))
        .Attr("pads", Dims{1, 1, 1, 1})
        .Fused(kind);
    // oneDNN's soft_relu and mish polynomials against double libm, after a K = 72 dot product.
    c.Check(Tolerance{1e-4, 1e-4});
  }
  for (ActivationKind kind : {ActivationKind::kSelu, ActivationKind::kCelu,
                              ActivationKind::kSoftsign, ActivationKind::kThresholdedRelu}) {
    SCOPED_TRACE(ActivationOpType(kind));
    EXPECT_FALSE(ConvFusesActivation(kind));
    Graph graph;
    graph.source_path = "cpu_test";
    Node node;
    node.name = "conv";
    node.op_type = "Conv";
    node.opset = 13;
    SetFusedActivation(node.attrs, Activation{kind, 1.f, 1.f});
    CpuKernelContext context;
    context.node = &node;
    context.input_types = {TensorType{DType::kFloat32, {1, 2, 4, 4}},
                           TensorType{DType::kFloat32, {2, 2, 1, 1}}};
    context.output_types = {TensorType{DType::kFloat32, {1, 2, 4, 4}}};
    context.constants = {nullptr, nullptr};
    auto kernel = CreateCpuKernel(context);
    ASSERT_FALSE(kernel.ok());
    EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(kernel.status().message().find("not one a conv can carry"), std::string::npos)
        << kernel.status().message();
  }
}

TEST(CpuCnnHeadOpsTest, PRelu) {
  std::mt19937 rng(2103);
  const Dims x = {2, 6, 5, 7};
  for (const Dims& slope :
       {Dims{6, 1, 1}, Dims{1, 6, 1, 1}, Dims{1}, Dims{}, Dims{7}, Dims{5, 7}, x}) {
    for (bool constant : {true, false}) {
      OneNodeCase c("PRelu", 16);
      c.Input(RandomFloats(rng, x, -2.f, 2.f)).Input(RandomFloats(rng, slope), constant);
      c.Check(kExact);
    }
  }
  OneNodeCase large("PRelu", 9);
  large.Input(RandomFloats(rng, {1, 64, 56, 56})).Constant(RandomFloats(rng, {64, 1, 1}));
  large.Check(kExact);
  OneNodeCase ints("PRelu", 16);  // other dtypes run the reference
  ints.Input(Tensor::FromInt64({-1, 2, -3}, {3})).Input(Tensor::FromInt64({2}, {1}));
  ints.Check(kExact, /*expect_fast=*/false);
}

// Sums of many terms, in double on both sides but in another order.
constexpr Tolerance kReduction{1e-6, 1e-6};

Tensor Axes(std::vector<int64_t> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return Tensor::FromInt64(values, {n});
}

// Floats drawn from a few integers, so that maxima and minima tie.
Tensor TiedFloats(std::mt19937& rng, const Dims& dims) {
  Tensor t(DType::kFloat32, dims);
  for (int64_t i = 0; i < t.num_elements(); ++i)
    t.data<float>()[i] = static_cast<float>(RandomInt(rng, -3, 3));
  return t;
}

TEST(CpuCnnHeadOpsTest, LogSoftmax) {
  std::mt19937 rng(2104);
  struct Spec {
    int64_t opset;
    Dims dims;
    std::optional<int64_t> axis;
  };
  const std::vector<Spec> specs = {
      {13, {4, 1000}, std::nullopt},
      {13, {2, 3, 5, 7}, 1},
      {13, {2, 3, 5, 7}, 0},
      {11, {2, 3, 5, 7}, 2},
      {11, {2, 3, 5, 7}, std::nullopt},
      {1, {6, 10}, 0},
  };
  for (const Spec& spec : specs) {
    OneNodeCase c("LogSoftmax", spec.opset);
    c.Input(RandomFloats(rng, spec.dims, -8.f, 8.f));
    if (spec.axis) c.Attr("axis", *spec.axis);
    c.Check(kElementwise);
  }
}

TEST(CpuCnnHeadOpsTest, ReductionsInEveryAxesForm) {
  std::mt19937 rng(2105);
  const Dims dims = {2, 6, 5, 7};
  const std::vector<std::vector<int64_t>> axes_lists = {{1},    {2, 3},       {-1},
                                                        {0, 2}, {0, 1, 2, 3}, {}};
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                         "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp"}) {
    const std::string name = op;
    const int64_t input_since = name == "ReduceSum" ? 13 : 18;
    // Products of up to 420 factors stay in range when the factors stay near 1.
    const float lo = name == "ReduceProd" ? 0.9f : -4.f;
    const float hi = name == "ReduceProd" ? 1.1f : 4.f;
    for (const std::vector<int64_t>& axes : axes_lists) {
      for (int64_t keepdims : {0, 1}) {
        OneNodeCase attr(op, input_since - 1);
        attr.Input(RandomFloats(rng, dims, lo, hi)).Attr("keepdims", keepdims);
        if (!axes.empty()) attr.Attr("axes", Dims(axes));
        attr.Check(kReduction);
        OneNodeCase input(op, input_since);
        input.Input(RandomFloats(rng, dims, lo, hi)).Attr("keepdims", keepdims);
        if (!axes.empty()) input.Constant(Axes(axes));
        input.Check(kReduction);
      }
    }
    OneNodeCase noop(op, input_since);
    noop.Input(RandomFloats(rng, dims)).Constant(Axes({})).Attr("noop_with_empty_axes", int64_t{1});
    noop.Check(kExact);
  }
  {  // A head: global max over a large map, split over the threads by output.
    OneNodeCase head("ReduceMax", 13);
    head.Input(RandomFloats(rng, {2, 256, 28, 28})).Attr("axes", Dims{2, 3});
    head.Check(kExact);
  }
  {  // A reduction over nothing (an empty dim): ONNX's identities.
    for (const char* op :
         {"ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceLogSumExp", "ReduceMean"}) {
      OneNodeCase empty(op, 18);
      empty.Input(RandomFloats(rng, {2, 0, 3})).Constant(Axes({1}));
      empty.Check(kExact);
    }
  }
  OneNodeCase ints("ReduceSum", 11);  // other dtypes run the reference
  ints.Input(Tensor::FromInt64({1, 2, 3, 4, 5, 6}, {2, 3})).Attr("axes", Dims{1});
  ints.Check(kExact, /*expect_fast=*/false);
}

TEST(CpuCnnHeadOpsTest, ArgMaxAndArgMin) {
  std::mt19937 rng(2106);
  const Dims dims = {2, 10, 6, 5};
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (int64_t axis : {0, 1, -1, 2}) {
      for (int64_t keepdims : {0, 1}) {
        for (int64_t last : {0, 1}) {
          OneNodeCase c(op, 13);
          c.Input(TiedFloats(rng, dims))
              .Attr("axis", axis)
              .Attr("keepdims", keepdims)
              .Attr("select_last_index", last);
          c.Check(kExact);
        }
      }
    }
    OneNodeCase classifier(op, 11);
    classifier.Input(RandomFloats(rng, {4, 1000})).Attr("axis", int64_t{1});
    classifier.Check(kExact);
  }
  OneNodeCase ints("ArgMax", 13);  // other dtypes run the reference
  ints.Input(Tensor::FromInt64({1, 7, 3, 4, 5, 6}, {2, 3})).Attr("axis", int64_t{1});
  ints.Check(kExact, /*expect_fast=*/false);
}

TEST(CpuCnnHeadOpsTest, DepthToSpaceAndSpaceToDepth) {
  std::mt19937 rng(2107);
  for (int64_t block : {2, 3}) {
    for (const char* mode : {"DCR", "CRD"}) {
      OneNodeCase to_space("DepthToSpace", 13);
      to_space.Input(RandomFloats(rng, {2, 4 * block * block, 5, 3}))
          .Attr("blocksize", block)
          .Attr("mode", std::string(mode));
      to_space.Check(kExact);
      OneNodeCase to_depth("SpaceToDepth", 28);
      to_depth.Input(RandomFloats(rng, {2, 3, 4 * block, 2 * block}))
          .Attr("blocksize", block)
          .Attr("mode", std::string(mode));
      to_depth.Check(kExact);
    }
  }
  OneNodeCase old_form("SpaceToDepth", 13);
  old_form.Input(RandomFloats(rng, {1, 5, 8, 8})).Attr("blocksize", int64_t{4});
  old_form.Check(kExact);
  OneNodeCase ints("DepthToSpace", 11);  // any element type: a gather of bytes
  ints.Input(Tensor::FromInt64({1, 2, 3, 4, 5, 6, 7, 8}, {1, 8, 1, 1}))
      .Attr("blocksize", int64_t{2});
  ints.Check(kExact);
}

}  // namespace
}  // namespace ios
