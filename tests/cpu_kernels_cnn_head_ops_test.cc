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

}  // namespace
}  // namespace ios
