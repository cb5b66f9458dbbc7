// The Erf, Gelu and LayerNormalization math that the CUDA kernels run (and the CPU kernels for
// Erf and LayerNormalization's InvStdDev): kernels/math/gelu_math.h, elementwise_math.h and
// reduction_math.h, executed on the host in float as the kernels do and compared with the
// reference kernels (double) on random shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernel_math_test_util.h"
#include "kernels/math/elementwise_math.h"
#include "kernels/math/gelu_math.h"
#include "kernels/math/reduction_math.h"
#include "ops/layer_norm_params.h"

namespace ios {
namespace {

using namespace testing;  // NOLINT: the helpers of kernel_math_test_util.h

Tensor MapUnary(UnaryOpKind op, const Tensor& x) {
  Tensor y(DType::kFloat32, x.dims());
  for (int64_t i = 0; i < x.num_elements(); ++i)
    y.data<float>()[i] = ApplyUnary(op, x.data<float>()[i]);
  return y;
}

TEST(KernelMathGeluTest, ErfAndBothGeluFormsMatchTheReference) {
  std::mt19937 rng(61);
  const Tensor x = RandomFloats(rng, {4, 9, 13}, -6.f, 6.f);
  ExpectTensorsNear(Reference(MakeNode("Erf", 13), {&x})[0], MapUnary(UnaryOpKind::kErf, x), 1e-7,
                    1e-6);
  // Where 1 + erf(x / sqrt(2)) cancels (x < -3), float keeps ~1e-7 of absolute accuracy.
  ExpectTensorsNear(Reference(MakeNode("Gelu", 20), {&x})[0], MapUnary(UnaryOpKind::kGelu, x), 1e-6,
                    1e-6);
  AttributeMap tanh_form;
  tanh_form.Set("approximate", std::string("tanh"));
  ExpectTensorsNear(Reference(MakeNode("Gelu", 20, tanh_form), {&x})[0],
                    MapUnary(UnaryOpKind::kGeluTanh, x), 1e-6, 1e-6);
}

TEST(KernelMathGeluTest, KnownValues) {
  // ONNX's documented outputs for x = -1, 0, 1.
  EXPECT_NEAR(GeluErfValue(-1.f), -0.15865526f, 1e-7);
  EXPECT_EQ(GeluErfValue(0.f), 0.f);
  EXPECT_NEAR(GeluErfValue(1.f), 0.84134474f, 1e-7);
  EXPECT_NEAR(GeluTanhValue(-1.f), -0.158808f, 1e-6);
  EXPECT_NEAR(GeluTanhValue(1.f), 0.841192f, 1e-6);
  EXPECT_NEAR(GeluValue(GeluApproximation::kTanh, 1.f), GeluTanhValue(1.f), 0.f);
  // Far out: the identity for large x, 0 for very negative x.
  EXPECT_EQ(GeluErfValue(20.f), 20.f);
  EXPECT_EQ(GeluTanhValue(-20.f), 0.f);
}

// LayerNormalization row by row as the CUDA kernel does it: a float sum for the mean, a float
// sum of squared deviations for the variance, LayerNormInvStdDev and LayerNormValue, with Scale
// and B read through the parsed OperandMaps.
std::vector<Tensor> LayerNormThroughMath(const LayerNormParams& p, const Tensor& x,
                                         const Tensor& scale, const Tensor* bias) {
  Tensor y(DType::kFloat32, x.dims());
  Tensor mean_out(DType::kFloat32, p.stats_dims);
  Tensor inv_out(DType::kFloat32, p.stats_dims);
  const int64_t n = p.shape.row_size;
  for (int64_t r = 0; r < p.shape.rows; ++r) {
    const float* xs = x.data<float>() + r * n;
    float sum = 0.f;
    for (int64_t j = 0; j < n; ++j) sum += xs[j];
    const float mean = sum / static_cast<float>(n);
    float squares = 0.f;
    for (int64_t j = 0; j < n; ++j) squares += (xs[j] - mean) * (xs[j] - mean);
    const float inv = LayerNormInvStdDev(squares / static_cast<float>(n), p.epsilon);
    for (int64_t j = 0; j < n; ++j) {
      const float b = bias ? bias->data<float>()[OperandOffset(p.bias_map, j)] : 0.f;
      y.data<float>()[r * n + j] =
          LayerNormValue(xs[j], mean, inv, scale.data<float>()[OperandOffset(p.scale_map, j)], b);
    }
    mean_out.data<float>()[r] = mean;
    inv_out.data<float>()[r] = inv;
  }
  return {y, mean_out, inv_out};
}

TEST(KernelMathLayerNormTest, MatchesTheReferenceWithBroadcastParameters) {
  std::mt19937 rng(62);
  for (int trial = 0; trial < 40; ++trial) {
    const Dims dims = RandomDims(rng, 1, 4, 9);
    const int64_t rank = static_cast<int64_t>(dims.size());
    const int64_t axis = RandomInt(rng, -rank, rank - 1);
    const int64_t first = axis < 0 ? axis + rank : axis;
    // Scale: the row's shape, or a broadcast one (some trailing dims, some dims 1).
    Dims scale_dims(dims.begin() + first, dims.end());
    if (trial % 3 == 1) scale_dims.erase(scale_dims.begin());
    if (trial % 3 == 2)
      for (int64_t& d : scale_dims) d = RandomInt(rng, 0, 1) ? d : 1;
    const bool with_bias = trial % 2 == 0;
    SCOPED_TRACE(DimsToString(dims) + " axis " + std::to_string(axis) + " scale " +
                 DimsToString(scale_dims) + (with_bias ? " bias" : ""));
    const Tensor x = RandomFloats(rng, dims, -3.f, 5.f);
    const Tensor scale = RandomFloats(rng, scale_dims, 0.5f, 2.f);
    const Tensor bias = RandomFloats(rng, {scale_dims.empty() ? 1 : scale_dims.back()});
    AttributeMap attrs;
    attrs.Set("axis", axis);
    attrs.Set("epsilon", 1e-3f);
    const Node node = MakeNode("LayerNormalization", 17, attrs);
    const std::vector<Tensor> want = Reference(node, {&x, &scale, with_bias ? &bias : nullptr}, 3);
    StatusOr<LayerNormParams> params =
        ParseLayerNorm(node, dims, scale_dims, with_bias ? &bias.dims() : nullptr);
    ASSERT_TRUE(params.ok()) << params.status().message();
    const std::vector<Tensor> got =
        LayerNormThroughMath(*params, x, scale, with_bias ? &bias : nullptr);
    for (size_t o = 0; o < 3; ++o) {
      SCOPED_TRACE("output " + std::to_string(o));
      ExpectTensorsNear(want[o], got[o], 1e-5, 1e-5);
    }
  }
}

TEST(KernelMathLayerNormTest, ParseRefusesWhatDoesNotFit) {
  const Node node = MakeNode("LayerNormalization", 17);
  // Scale must broadcast to the normalised dims (the last one here).
  EXPECT_EQ(ParseLayerNorm(node, {2, 3, 4}, {3, 4}, nullptr).status().code(),
            StatusCode::kInvalidInput);
  const Dims wrong_bias = {5};
  EXPECT_EQ(ParseLayerNorm(node, {2, 3, 4}, {4}, &wrong_bias).status().code(),
            StatusCode::kInvalidInput);
  AttributeMap bad_axis;
  bad_axis.Set("axis", int64_t{3});
  EXPECT_EQ(ParseLayerNorm(MakeNode("LayerNormalization", 17, bad_axis), {2, 3, 4}, {4}, nullptr)
                .status()
                .code(),
            StatusCode::kInvalidInput);
  AttributeMap stash;
  stash.Set("stash_type", int64_t{11});
  StatusOr<LayerNormParams> refused =
      ParseLayerNorm(MakeNode("LayerNormalization", 17, stash), {2, 4}, {4}, nullptr);
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().message().find("stash_type"), std::string::npos);
  // The statistics keep X's rank, with 1s over the normalised dims.
  AttributeMap axis1;
  axis1.Set("axis", int64_t{1});
  StatusOr<LayerNormParams> params =
      ParseLayerNorm(MakeNode("LayerNormalization", 17, axis1), {2, 3, 4}, {3, 1}, nullptr);
  ASSERT_TRUE(params.ok()) << params.status().message();
  EXPECT_EQ(params->stats_dims, (Dims{2, 1, 1}));
  EXPECT_EQ(params->shape.rows, 2);
  EXPECT_EQ(params->shape.row_size, 12);
  EXPECT_EQ(params->scale_map.pattern, OperandPattern::kChannel);
}

}  // namespace
}  // namespace ios
