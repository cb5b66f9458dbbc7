// The Resize math that the CPU and CUDA kernels run (kernels/math/resize_math.h), executed on the
// host in float, as the kernels do (per-axis taps, and the CUDA kernel's ResizeGatherElement),
// and compared with the reference kernel (double) on random shapes for every mode, coordinate
// transformation and nearest rounding; plus the output dims of ParseResize against the
// reference's, and the places where float and double arithmetic part.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernel_math_test_util.h"
#include "kernels/math/resize_math.h"
#include "kernels/reference/reference_util.h"
#include "ops/resize_params.h"

namespace ios {
namespace {

using namespace testing;  // NOLINT: the helpers of kernel_math_test_util.h

// ParseResize for `node` with `inputs` (null: omitted) as constants.
StatusOr<ResizeParams> Parse(Node node, const std::vector<const Tensor*>& inputs) {
  std::vector<TensorType> types;
  std::vector<const Tensor*> constants;
  node.inputs.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    node.inputs.push_back(inputs[i] != nullptr ? static_cast<ValueId>(i) : kNoValue);
    types.push_back(inputs[i] != nullptr ? TensorType{inputs[i]->dtype(), inputs[i]->dims()}
                                         : TensorType{});
    constants.push_back(inputs[i]);
  }
  return ParseResize(NodeInputs{node, types, constants});
}

// Y through the shared math, as the kernels compute it: per output element, the float sum over
// every combination of its axes' taps of the weight product times the input element.
Tensor ResizeThroughMath(const ResizeParams& p, const Tensor& x) {
  Tensor y(DType::kFloat32, p.out_dims);
  const size_t rank = p.axes.size();
  Dims in_strides(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) in_strides[d - 1] = in_strides[d] * p.axes[d].in;
  int64_t o = 0;
  ForEachIndex(p.out_dims, [&](const Dims& index) {
    std::vector<ResizeTaps> taps(rank);
    for (size_t d = 0; d < rank; ++d) {
      if (ResizeAxisIsIdentity(p.axes[d])) {
        taps[d].count = 1;
        taps[d].index[0] = index[d];
        taps[d].weight[0] = 1.f;
      } else {
        taps[d] = ResizeAxisTaps(p.interpolation, p.axes[d], index[d]);
      }
    }
    std::vector<int32_t> pick(rank, 0);
    float sum = 0.f;
    while (true) {
      int64_t offset = 0;
      float weight = 1.f;
      for (size_t d = 0; d < rank; ++d) {
        offset += taps[d].index[pick[d]] * in_strides[d];
        weight *= taps[d].weight[pick[d]];
      }
      sum += weight * x.data<float>()[offset];
      size_t d = rank;
      while (d > 0 && ++pick[d - 1] == taps[d - 1].count) pick[--d] = 0;
      if (d == 0) break;
    }
    y.data<float>()[o++] = sum;
  });
  return y;
}

// Y as the CUDA kernel computes it: ResizeGatherElement for every output element.
Tensor ResizeThroughGather(const ResizeParams& p, const Tensor& x) {
  Tensor y(DType::kFloat32, p.out_dims);
  ResizeGather gather;
  EXPECT_TRUE(PlanResizeGather(p.interpolation, p.axes, &gather));
  for (int64_t i = 0; i < y.num_elements(); ++i)
    y.data<float>()[i] = ResizeGatherElement(gather, x.data<float>(), i);
  return y;
}

const char* const kCoordinateModes[] = {"half_pixel",         "half_pixel_symmetric",
                                        "pytorch_half_pixel", "align_corners",
                                        "asymmetric",         "tf_half_pixel_for_nn"};
const char* const kNearestModes[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

// Scales and size ratios that float and double represent exactly, so that a coordinate which
// is a rounding tie (or an integer, for floor and ceil) in exact arithmetic is one in both, and
// nearest must agree element for element. (Where the ratio is not exact, see FloatAndDouble...)
const float kExactScales[] = {0.5f, 0.75f, 1.5f, 2.f, 2.5f, 3.f, 4.f};

struct RandomCase {
  Node node;
  Tensor x;
  Tensor scales;
  Tensor sizes;
  bool use_sizes = false;
};

RandomCase MakeRandomCase(std::mt19937& rng, const std::string& mode, const std::string& coordinate,
                          const std::string& nearest) {
  RandomCase c;
  AttributeMap attrs;
  attrs.Set("mode", mode);
  attrs.Set("coordinate_transformation_mode", coordinate);
  attrs.Set("nearest_mode", nearest);
  if (mode == "cubic" && RandomInt(rng, 0, 1) == 1) {
    attrs.Set("exclude_outside", int64_t{1});
    attrs.Set("cubic_coeff_a", -0.5f);
  }
  c.node = MakeNode("Resize", 19, attrs);
  const Dims dims = RandomDims(rng, 1, 4, 6);
  c.x = RandomFloats(rng, dims, -2.f, 2.f);
  const int64_t rank = static_cast<int64_t>(dims.size());
  c.use_sizes = RandomInt(rng, 0, 1) == 1;
  std::vector<float> scales;
  std::vector<int64_t> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    // About half the axes keep their length; the others take an exact scale, or a size that is
    // the length times one (twice the length when that is not a whole number).
    float scale = RandomInt(rng, 0, 1) == 1 ? kExactScales[RandomInt(rng, 0, 6)] : 1.f;
    if (static_cast<float>(dims[d]) * scale < 1.f) scale = 2.f;  // no empty output
    const float product = static_cast<float>(dims[d]) * scale;
    const bool whole = product == std::floor(product) && product >= 1.f;
    // half_pixel_symmetric shifts the coordinates by an inexact offset when floor() cuts the
    // output short, which can move a nearest tie either way: keep such scales for linear/cubic.
    if (!whole && mode == "nearest" && coordinate == "half_pixel_symmetric") scale = 2.f;
    scales.push_back(scale);
    sizes.push_back(whole ? static_cast<int64_t>(product) : dims[d] * 2);
  }
  c.scales = Tensor::FromFloat(scales, {rank});
  c.sizes = Tensor::FromInt64(sizes, {rank});
  return c;
}

TEST(KernelMathResizeTest, EveryModeMatchesTheReference) {
  std::mt19937 rng(71);
  int compared = 0;
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    for (const char* coordinate : kCoordinateModes) {
      for (const char* nearest : kNearestModes) {
        if (std::string(mode) != "nearest" && std::string(nearest) != "round_prefer_floor")
          continue;
        for (int trial = 0; trial < 12; ++trial) {
          RandomCase c = MakeRandomCase(rng, mode, coordinate, nearest);
          const std::vector<const Tensor*> inputs =
              c.use_sizes ? std::vector<const Tensor*>{&c.x, nullptr, nullptr, &c.sizes}
                          : std::vector<const Tensor*>{&c.x, nullptr, &c.scales};
          SCOPED_TRACE(std::string(mode) + " " + coordinate + " " + nearest + " x " +
                       DimsToString(c.x.dims()) + (c.use_sizes ? " sizes " : " scales ") +
                       DimsToString(c.use_sizes ? c.sizes.ToInt64Vector() : Dims(c.x.rank(), 0)));
          StatusOr<ResizeParams> params = Parse(c.node, inputs);
          ASSERT_TRUE(params.ok()) << params.status().message();
          const Tensor want = Reference(c.node, inputs)[0];
          ASSERT_EQ(want.dims(), params->out_dims);
          // Nearest copies exactly; linear and cubic sum float products of float weights (the
          // reference: double), a few ulps of the inputs' magnitude (<= 2).
          const double tolerance = std::string(mode) == "nearest" ? 0.0 : 4e-6;
          ExpectTensorsNear(want, ResizeThroughMath(*params, c.x), tolerance, tolerance);
          // The CUDA kernel's per-element code, run on the host.
          ExpectTensorsNear(want, ResizeThroughGather(*params, c.x), tolerance, tolerance);
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 6 * 12 * (4 + 2));
}

TEST(KernelMathResizeTest, OpsetTenAndUpsampleRoundAsOnnxruntime) {
  // Asymmetric coordinates; nearest truncates on an axis that grows, rounds up on one that
  // shrinks (x = 0, 1.667 for scale 0.6: indices 0 and 2).
  const Tensor x = Tensor::FromFloat({10, 20, 30, 40}, {1, 4});
  const Tensor down = Tensor::FromFloat({1, 0.6f}, {2});
  const Node resize10 = MakeNode("Resize", 10);
  StatusOr<ResizeParams> params = Parse(resize10, {&x, &down});
  ASSERT_TRUE(params.ok()) << params.status().message();
  EXPECT_EQ(params->interpolation.nearest, ResizeNearestMode::kSimple);
  EXPECT_EQ(params->interpolation.coordinate, ResizeCoordinateMode::kAsymmetric);
  ExpectTensorsNear(Tensor::FromFloat({10, 30}, {1, 2}), ResizeThroughMath(*params, x), 0, 0);
  ExpectTensorsNear(Reference(resize10, {&x, &down})[0], ResizeThroughMath(*params, x), 0, 0);
  // Upsample 9: x = 0, 0.667, 1.333, 2, 2.667, 3.333 truncated.
  const Tensor up = Tensor::FromFloat({1, 1.5f}, {2});
  const Node upsample = MakeNode("Upsample", 9);
  params = Parse(upsample, {&x, &up});
  ASSERT_TRUE(params.ok()) << params.status().message();
  ExpectTensorsNear(Tensor::FromFloat({10, 10, 20, 30, 30, 40}, {1, 6}),
                    ResizeThroughMath(*params, x), 0, 0);
  ExpectTensorsNear(Reference(upsample, {&x, &up})[0], ResizeThroughMath(*params, x), 0, 0);
  // Upsample 7 linear, scales as an attribute.
  AttributeMap attrs;
  attrs.Set("mode", std::string("linear"));
  attrs.Set("scales", std::vector<float>{1, 2});
  const Node upsample7 = MakeNode("Upsample", 7, attrs);
  params = Parse(upsample7, {&x});
  ASSERT_TRUE(params.ok()) << params.status().message();
  ExpectTensorsNear(Tensor::FromFloat({10, 15, 20, 25, 30, 35, 40, 40}, {1, 8}),
                    ResizeThroughMath(*params, x), 1e-6, 0);
  ExpectTensorsNear(Reference(upsample7, {&x})[0], ResizeThroughMath(*params, x), 1e-6, 0);
}

// Floor of asymmetric coordinates that are whole numbers in exact arithmetic, with sizes whose
// ratio float and double round: where the arithmetic differs, the kernels side with
// onnxruntime (which reads the same elements, checked with onnxruntime 1.32) and the reference
// with exact arithmetic (it keeps the ratio as integers).
TEST(KernelMathResizeTest, FloatAndDoubleAtExactTies) {
  AttributeMap attrs;
  attrs.Set("coordinate_transformation_mode", std::string("asymmetric"));
  attrs.Set("nearest_mode", std::string("floor"));
  const Node node = MakeNode("Resize", 13, attrs);
  std::vector<float> values;
  for (int i = 0; i < 14; ++i) values.push_back(static_cast<float>(i));
  const Tensor x = Tensor::FromFloat(values, {14});
  struct Case {
    int64_t out, o;
    float kernels, reference;  // the input element read
  };
  // 14 -> 18, output 9 lies on 9 * 14 / 18 = 7: float gives 7.0 (so do the reference and
  // onnxruntime); dividing by the double 18 / 14 would give 6.999999999999999.
  // 14 -> 16, output 8 lies on 7: float gives 6.9999995 and onnxruntime reads 6, as the
  // kernels do; the reference reads 7.
  for (const Case& c : {Case{18, 9, 7, 7}, Case{16, 8, 6, 7}}) {
    SCOPED_TRACE("14 -> " + std::to_string(c.out));
    const Tensor sizes = Tensor::FromInt64({c.out}, {1});
    StatusOr<ResizeParams> params = Parse(node, {&x, nullptr, nullptr, &sizes});
    ASSERT_TRUE(params.ok()) << params.status().message();
    EXPECT_EQ(ResizeThroughMath(*params, x).data<float>()[c.o], c.kernels);
    EXPECT_EQ(Reference(node, {&x, nullptr, nullptr, &sizes})[0].data<float>()[c.o], c.reference);
  }
  EXPECT_LT(9.0 / (18.0 / 14.0), 7.0);  // the double division that would read 6
}

TEST(KernelMathResizeTest, OutputDimsAgreeWithTheReference) {
  // floor(in * scale) with the product in float (10 * 0.7f rounds to 7), on random scales; and
  // the keep_aspect_ratio_policy rounding.
  std::mt19937 rng(72);
  std::uniform_real_distribution<float> scale(0.3f, 3.5f);
  for (int trial = 0; trial < 200; ++trial) {
    const Dims dims = RandomDims(rng, 1, 3, 40);
    std::vector<float> scales;
    for (size_t d = 0; d < dims.size(); ++d) scales.push_back(scale(rng));
    scales[0] = trial == 0 ? 0.7f : scales[0];
    Tensor x(DType::kFloat32, trial == 0 ? Dims{10} : dims);
    if (trial == 0) scales.resize(1);
    const Tensor s = Tensor::FromFloat(scales, {static_cast<int64_t>(scales.size())});
    const Node node = MakeNode("Resize", 13);
    StatusOr<ResizeParams> params = Parse(node, {&x, nullptr, &s});
    std::vector<Tensor> out(1);
    Status reference = EvaluateReference(node, {&x, nullptr, &s}, &out);
    ASSERT_EQ(params.ok(), reference.ok()) << reference.message();
    if (params.ok()) {
      EXPECT_EQ(params->out_dims, out[0].dims()) << DimsToString(x.dims());
    }
    if (trial == 0) {
      EXPECT_EQ(params->out_dims, Dims{7});
    }
  }
  for (const char* policy : {"not_larger", "not_smaller"}) {
    for (int trial = 0; trial < 100; ++trial) {
      AttributeMap attrs;
      attrs.Set("keep_aspect_ratio_policy", std::string(policy));
      attrs.Set("axes", std::vector<int64_t>{1, 2});
      const Node node = MakeNode("Resize", 19, attrs);
      Tensor x(DType::kFloat32, {1, RandomInt(rng, 1, 30), RandomInt(rng, 1, 30)});
      const Tensor sizes = Tensor::FromInt64({RandomInt(rng, 1, 60), RandomInt(rng, 1, 60)}, {2});
      StatusOr<ResizeParams> params = Parse(node, {&x, nullptr, nullptr, &sizes});
      std::vector<Tensor> out(1);
      Status reference = EvaluateReference(node, {&x, nullptr, nullptr, &sizes}, &out);
      ASSERT_EQ(params.ok(), reference.ok()) << reference.message();
      if (params.ok()) {
        EXPECT_EQ(params->out_dims, out[0].dims()) << DimsToString(x.dims());
      }
    }
  }
}

TEST(KernelMathResizeTest, GatherPlanMergesUntouchedDims) {
  // NCHW resizing H and W: N and C merge into one dim; NHWC: H and W stay apart around C.
  auto axes = [](const Dims& in, const Dims& out) {
    std::vector<ResizeAxis> result;
    for (size_t d = 0; d < in.size(); ++d)
      result.push_back(ResizeAxis{in[d], out[d], static_cast<float>(out[d]) / in[d]});
    return result;
  };
  ResizeGather g;
  ASSERT_TRUE(PlanResizeGather(ResizeInterpolation{}, axes({2, 3, 4, 5}, {2, 3, 8, 10}), &g));
  EXPECT_EQ(g.rank, 3);
  EXPECT_EQ(g.axes[0].in, 6);
  EXPECT_EQ(g.in_strides[0], 20);
  EXPECT_EQ(g.count, 480);
  ASSERT_TRUE(PlanResizeGather(ResizeInterpolation{}, axes({2, 4, 5, 3}, {2, 8, 10, 3}), &g));
  EXPECT_EQ(g.rank, 4);
  EXPECT_EQ(g.in_strides[1], 15);
  // Five resized dims do not fit; four do.
  EXPECT_FALSE(PlanResizeGather(ResizeInterpolation{}, axes({2, 2, 2, 2, 2}, {4, 4, 4, 4, 4}), &g));
  EXPECT_TRUE(PlanResizeGather(ResizeInterpolation{}, axes({2, 2, 2, 2, 2}, {2, 4, 4, 4, 4}), &g));
}

TEST(KernelMathResizeTest, CoordinatesRoundingAndWeights) {
  ResizeAxis axis;
  axis.in = 4;
  axis.out = 8;
  axis.scale = 2.f;
  EXPECT_FLOAT_EQ(ResizeSourceCoordinate(ResizeCoordinateMode::kHalfPixel, axis, 0), -0.25f);
  EXPECT_FLOAT_EQ(ResizeSourceCoordinate(ResizeCoordinateMode::kAsymmetric, axis, 3), 1.5f);
  EXPECT_FLOAT_EQ(ResizeSourceCoordinate(ResizeCoordinateMode::kAlignCorners, axis, 7), 3.f);
  EXPECT_FLOAT_EQ(ResizeSourceCoordinate(ResizeCoordinateMode::kTfHalfPixelForNn, axis, 1), 0.75f);
  ResizeAxis one = axis;
  one.out = 1;
  one.scale = 0.25f;
  EXPECT_FLOAT_EQ(ResizeSourceCoordinate(ResizeCoordinateMode::kPytorchHalfPixel, one, 0), 0.f);
  EXPECT_FLOAT_EQ(ResizeSourceCoordinate(ResizeCoordinateMode::kHalfPixel, one, 0), 1.5f);
  // Ties at 1.5 and edges: clamped into [0, 3].
  EXPECT_EQ(ResizeNearestIndex(ResizeNearestMode::kRoundPreferFloor, axis, 1.5f), 1);
  EXPECT_EQ(ResizeNearestIndex(ResizeNearestMode::kRoundPreferCeil, axis, 1.5f), 2);
  EXPECT_EQ(ResizeNearestIndex(ResizeNearestMode::kFloor, axis, 1.9f), 1);
  EXPECT_EQ(ResizeNearestIndex(ResizeNearestMode::kCeil, axis, 1.1f), 2);
  EXPECT_EQ(ResizeNearestIndex(ResizeNearestMode::kCeil, axis, 3.2f), 3);
  EXPECT_EQ(ResizeNearestIndex(ResizeNearestMode::kRoundPreferFloor, axis, -0.75f), 0);
  EXPECT_EQ(ResizeNearestIndex(ResizeNearestMode::kFloor, axis, 1e30f), 3);
  // Keys' weights sum to 1 for any a, and t = 0 picks the tap at floor(x) alone.
  for (float a : {-0.75f, -0.5f}) {
    for (float t : {0.f, 0.25f, 0.5f, 0.9f}) {
      float w[4];
      ResizeCubicWeights(t, a, w);
      EXPECT_NEAR(w[0] + w[1] + w[2] + w[3], 1.f, 1e-6f) << a << " " << t;
    }
  }
  float w[4];
  ResizeCubicWeights(0.f, -0.75f, w);
  EXPECT_FLOAT_EQ(w[1], 1.f);
  EXPECT_FLOAT_EQ(w[0] + w[2] + w[3], 0.f);
  // t = 0.5, a = -0.75: the outer taps get -0.09375, the inner 0.59375.
  ResizeCubicWeights(0.5f, -0.75f, w);
  EXPECT_FLOAT_EQ(w[0], -0.09375f);
  EXPECT_FLOAT_EQ(w[1], 0.59375f);
  // Linear taps at the right edge read the last element twice, with weights 1 and 0.
  ResizeInterpolation linear;
  linear.mode = ResizeMode::kLinear;
  const ResizeTaps edge = ResizeAxisTaps(linear, axis, 7);  // half_pixel: x = 3.25 -> 3
  EXPECT_EQ(edge.count, 2);
  EXPECT_EQ(edge.index[0], 3);
  EXPECT_EQ(edge.index[1], 3);
  EXPECT_FLOAT_EQ(edge.weight[0] + edge.weight[1], 1.f);
}

}  // namespace
}  // namespace ios
