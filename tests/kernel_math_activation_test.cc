// The activation math the CPU and CUDA kernels run in float (kernels/math/activation_math.h)
// against the reference kernels (the same formula in double) over wide ranges, and known values
// of the activations past Elu worked out by hand, since the reference shares the formula.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ir/fused_activation.h"
#include "kernel_math_test_util.h"
#include "kernels/math/activation_math.h"

namespace ios {
namespace {

using namespace testing;  // NOLINT: the helpers of kernel_math_test_util.h

TEST(KernelMathActivationTest, FloatMathMatchesTheReference) {
  std::mt19937 rng(61);
  const struct {
    const char* op;
    int64_t opset;
    std::vector<std::pair<const char*, float>> attrs;
  } specs[] = {
      {"Softplus", 22, {}},
      {"Mish", 22, {}},
      {"Selu", 22, {}},
      {"Selu", 22, {{"alpha", 0.5f}, {"gamma", 3.f}}},
      {"Celu", 12, {}},
      {"Celu", 12, {{"alpha", 2.5f}}},
      {"Softsign", 22, {}},
      {"ThresholdedRelu", 22, {}},
      {"ThresholdedRelu", 22, {{"alpha", 0.25f}}},
  };
  for (const auto& spec : specs) {
    SCOPED_TRACE(spec.op);
    AttributeMap attrs;
    for (const auto& [name, value] : spec.attrs) attrs.Set(name, value);
    const Node node = MakeNode(spec.op, spec.opset, attrs);
    StatusOr<Activation> act = ActivationOfNode(node);
    ASSERT_TRUE(act.ok()) << act.status().message();
    // Far into both tails: Softplus and Mish must neither overflow nor lose the linear part.
    const Tensor x = RandomFloats(rng, {4000}, -90.f, 90.f);
    const Tensor want = Reference(node, {&x})[0];
    Tensor got(DType::kFloat32, x.dims());
    for (int64_t i = 0; i < x.num_elements(); ++i)
      got.data<float>()[i] = ApplyActivation(*act, x.data<float>()[i]);
    ExpectTensorsNear(want, got, 1e-7, 2e-6);
  }
}

TEST(KernelMathActivationTest, KnownValues) {
  auto at = [](ActivationKind kind, float x, float alpha = 0.f, float beta = 0.f) {
    return static_cast<double>(ApplyActivation(Activation{kind, alpha, beta}, x));
  };
  EXPECT_NEAR(at(ActivationKind::kSoftplus, 0.f), std::log(2.0), 1e-7);
  EXPECT_EQ(at(ActivationKind::kSoftplus, 100.f), 100.0);  // no exp(100) overflow
  EXPECT_GT(at(ActivationKind::kSoftplus, -100.f), 0.0);   // exp(-100): a float denormal
  EXPECT_LT(at(ActivationKind::kSoftplus, -100.f), 1e-43);
  EXPECT_NEAR(at(ActivationKind::kMish, 1.f), std::tanh(std::log1p(std::exp(1.0))), 1e-7);
  EXPECT_EQ(at(ActivationKind::kMish, 0.f), 0.0);
  EXPECT_EQ(at(ActivationKind::kMish, 50.f), 50.0);
  // SiLU: x * sigmoid(x), no overflow far into either tail.
  EXPECT_NEAR(at(ActivationKind::kSilu, 1.f), 1.0 / (1.0 + std::exp(-1.0)), 1e-7);
  EXPECT_NEAR(at(ActivationKind::kSilu, -2.f), -2.0 / (1.0 + std::exp(2.0)), 1e-7);
  EXPECT_EQ(at(ActivationKind::kSilu, 100.f), 100.0);
  EXPECT_EQ(at(ActivationKind::kSilu, -200.f), 0.0);
  // SELU's defaults: gamma * alpha * (e^-1 - 1) at -1, gamma at 1.
  const float alpha = 1.67326319217681884765625f, gamma = 1.05070102214813232421875f;
  EXPECT_NEAR(at(ActivationKind::kSelu, -1.f, alpha, gamma), -1.1113307412864784, 1e-6);
  EXPECT_NEAR(at(ActivationKind::kSelu, 1.f, alpha, gamma), 1.0507010221481323, 1e-7);
  // CELU: x above 0, alpha * (exp(x / alpha) - 1) below.
  EXPECT_NEAR(at(ActivationKind::kCelu, -1.f, 2.f), 2.0 * (std::exp(-0.5) - 1.0), 1e-7);
  EXPECT_EQ(at(ActivationKind::kCelu, 3.f, 2.f), 3.0);
  EXPECT_EQ(at(ActivationKind::kSoftsign, 1.f), 0.5);
  EXPECT_EQ(at(ActivationKind::kSoftsign, -3.f), -0.75);
  // ThresholdedRelu passes only values strictly above alpha.
  EXPECT_EQ(at(ActivationKind::kThresholdedRelu, 1.f, 1.f), 0.0);
  EXPECT_EQ(at(ActivationKind::kThresholdedRelu, 1.5f, 1.f), 1.5);
  EXPECT_EQ(at(ActivationKind::kThresholdedRelu, -0.5f, -1.f), -0.5);
}

TEST(KernelMathActivationTest, OnlyOneDnnsExactKindsFuseIntoAConv) {
  for (ActivationKind kind :
       {ActivationKind::kRelu, ActivationKind::kLeakyRelu, ActivationKind::kClip,
        ActivationKind::kSigmoid, ActivationKind::kTanh, ActivationKind::kHardSigmoid,
        ActivationKind::kHardSwish, ActivationKind::kElu, ActivationKind::kSoftplus,
        ActivationKind::kMish, ActivationKind::kSilu})
    EXPECT_TRUE(ConvFusesActivation(kind)) << ActivationOpType(kind);
  for (ActivationKind kind : {ActivationKind::kSelu, ActivationKind::kCelu,
                              ActivationKind::kSoftsign, ActivationKind::kThresholdedRelu})
    EXPECT_FALSE(ConvFusesActivation(kind)) << ActivationOpType(kind);
}

}  // namespace
}  // namespace ios
