// Hand-checked cases for the reference Resize and Upsample kernels: each nearest rounding, each
// coordinate transformation, linear and cubic weights at the edges, the opset forms, the element
// types and the refusals. The numbers were worked out by hand (the working is in the comments)
// and agree with onnxruntime 1.32.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "kernels/reference/reference_kernels.h"

namespace ios {
namespace {

using Attrs = std::vector<std::pair<std::string, AttributeValue>>;

Node MakeResize(int64_t opset, Attrs attrs = {}, const std::string& op = "Resize") {
  Node node;
  node.name = "resize";
  node.op_type = op;
  node.opset = opset;
  for (auto& [name, value] : attrs) node.attrs.Set(name, std::move(value));
  return node;
}

Tensor Floats(const std::vector<float>& values, Dims dims) {
  return Tensor::FromFloat(values, std::move(dims));
}
Tensor Int64s(const std::vector<int64_t>& values) {
  return Tensor::FromInt64(values, {static_cast<int64_t>(values.size())});
}

StatusOr<Tensor> Evaluate(const Node& node, const std::vector<const Tensor*>& inputs) {
  std::vector<Tensor> outputs(1);
  Status status = EvaluateReference(node, inputs, &outputs);
  if (!status.ok()) return status;
  return outputs[0];
}

void ExpectValues(const StatusOr<Tensor>& got, const Dims& dims, const std::vector<float>& want,
                  float tolerance = 1e-6f) {
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->dims(), dims);
  ASSERT_EQ(got->num_elements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got->data<float>()[i], want[i], tolerance) << "element " << i;
}

// 10, 20, 30, 40 along the last axis, upsampled 2x with asymmetric coordinates:
// x = 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5 (ties every other element; the last clamps to index 3).
TEST(ReferenceResizeTest, NearestRoundingModes) {
  const Tensor x = Floats({10, 20, 30, 40}, {1, 4});
  const Tensor scales = Floats({1, 2}, {2});
  const std::vector<std::pair<const char*, std::vector<float>>> cases = {
      {"round_prefer_floor", {10, 10, 20, 20, 30, 30, 40, 40}},
      {"round_prefer_ceil", {10, 20, 20, 30, 30, 40, 40, 40}},
      {"floor", {10, 10, 20, 20, 30, 30, 40, 40}},
      {"ceil", {10, 20, 20, 30, 30, 40, 40, 40}},
  };
  for (const auto& [mode, want] : cases) {
    SCOPED_TRACE(mode);
    const Node node = MakeResize(13, {{"coordinate_transformation_mode", std::string("asymmetric")},
                                      {"nearest_mode", std::string(mode)}});
    ExpectValues(Evaluate(node, {&x, nullptr, &scales}), {1, 8}, want);
  }
  // half_pixel (the default), scale 1.5 on 4: x = (o + 0.5) / 1.5 - 0.5 = -0.167, 0.5, 1.167,
  // 1.833, 2.5, 3.167: round_prefer_floor reads 0, 0, 1, 2, 2, 3.
  const Tensor one_and_half = Floats({1, 1.5f}, {2});
  ExpectValues(Evaluate(MakeResize(13), {&x, nullptr, &one_and_half}), {1, 6},
               {10, 10, 20, 30, 30, 40});
}

TEST(ReferenceResizeTest, LinearCoordinateModes) {
  const Tensor x = Floats({1, 2, 3, 4}, {1, 4});
  const Node half_pixel = MakeResize(13, {{"mode", std::string("linear")}});
  // half_pixel, 4 -> 8: x = -0.25 (clamps to 1), 0.25, 0.75, ..., 3.25 (clamps to 4).
  const Tensor two = Floats({1, 2}, {2});
  ExpectValues(Evaluate(half_pixel, {&x, nullptr, &two}), {1, 8},
               {1, 1.25f, 1.75f, 2.25f, 2.75f, 3.25f, 3.75f, 4});
  // align_corners, sizes 4 -> 7: x = o * 3 / 6.
  const Node corners =
      MakeResize(13, {{"mode", std::string("linear")},
                      {"coordinate_transformation_mode", std::string("align_corners")}});
  const Tensor seven = Int64s({1, 7});
  ExpectValues(Evaluate(corners, {&x, nullptr, nullptr, &seven}), {1, 7},
               {1, 1.5f, 2, 2.5f, 3, 3.5f, 4});
  // align_corners, scales 0.6 -> 2 elements: x = o * 3 / (2 - 1), the integer length (onnx's
  // Python reference divides by 0.6 * 4 - 1 = 1.4 instead and gets 3.142857).
  const Tensor point_six = Floats({1, 0.6f}, {2});
  ExpectValues(Evaluate(corners, {&x, nullptr, &point_six}), {1, 2}, {1, 4});
  // pytorch_half_pixel, sizes 4 -> 1: x = 0 (half_pixel would give 1.5: 2.5).
  const Tensor one = Int64s({1, 1});
  const Node pytorch =
      MakeResize(13, {{"mode", std::string("linear")},
                      {"coordinate_transformation_mode", std::string("pytorch_half_pixel")}});
  ExpectValues(Evaluate(pytorch, {&x, nullptr, nullptr, &one}), {1, 1}, {1});
  ExpectValues(Evaluate(half_pixel, {&x, nullptr, nullptr, &one}), {1, 1}, {2.5f});
  // half_pixel_symmetric (opset 19), scale 0.6 on 7: out 4, offset 3.5 (1 - 4 / 4.2) = 1/6,
  // x = 1/6 + (o + 0.5) / 0.6 - 0.5 = 0.5, 2.1667, 3.8333, 5.5.
  const Tensor seven_values = Floats({0, 10, 20, 30, 40, 50, 60}, {7});
  const Tensor scale = Floats({0.6f}, {1});
  const Node symmetric =
      MakeResize(19, {{"mode", std::string("linear")},
                      {"coordinate_transformation_mode", std::string("half_pixel_symmetric")}});
  ExpectValues(Evaluate(symmetric, {&seven_values, nullptr, &scale}), {4},
               {5, 21.666667f, 38.333333f, 55}, 2e-5f);
  // tf_half_pixel_for_nn (opset 11), nearest, sizes 4 -> 3: x = (o + 0.5) * 4 / 3 = 0.667, 2,
  // 3.333: indices 1, 2, 3.
  const Tensor three = Int64s({1, 3});
  const Node tf =
      MakeResize(11, {{"coordinate_transformation_mode", std::string("tf_half_pixel_for_nn")}});
  const Tensor empty(DType::kFloat32, {0});
  ExpectValues(Evaluate(tf, {&x, &empty, &empty, &three}), {1, 3}, {2, 3, 4});
}

TEST(ReferenceResizeTest, BilinearOnTwoAxes) {
  // onnx's own example: [[1, 2], [3, 4]] upsampled 2x, half_pixel.
  const Tensor x = Floats({1, 2, 3, 4}, {1, 1, 2, 2});
  const Tensor scales = Floats({1, 1, 2, 2}, {4});
  ExpectValues(
      Evaluate(MakeResize(13, {{"mode", std::string("linear")}}), {&x, nullptr, &scales}),
      {1, 1, 4, 4},
      {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4});
}

TEST(ReferenceResizeTest, CubicEdgesAndExcludeOutside) {
  // x = 0..7, asymmetric 2x: the cubic kernel reproduces a line away from the edges (output o
  // is o / 2). At o = 1 (x = 0.5) the tap at -1 reads x[0] = 0 instead of -1: 0.5 + w0 with
  // w0 = -0.09375 (a = -0.75, t = 0.5). With exclude_outside it is dropped and the others
  // renormalised: (0.59375 * 1 - 0.09375 * 2) / 1.09375 = 0.3714286.
  const Tensor x = Floats({0, 1, 2, 3, 4, 5, 6, 7}, {8});
  const Tensor two = Floats({2}, {1});
  auto cubic =
      Evaluate(MakeResize(13, {{"mode", std::string("cubic")},
                               {"coordinate_transformation_mode", std::string("asymmetric")}}),
               {&x, nullptr, &two});
  ASSERT_TRUE(cubic.ok()) << cubic.status().message();
  EXPECT_NEAR(cubic->data<float>()[1], 0.40625f, 1e-6f);
  for (int o = 2; o < 12; ++o) EXPECT_NEAR(cubic->data<float>()[o], o / 2.f, 1e-6f) << o;
  auto excluded =
      Evaluate(MakeResize(13, {{"mode", std::string("cubic")},
                               {"coordinate_transformation_mode", std::string("asymmetric")},
                               {"exclude_outside", int64_t{1}}}),
               {&x, nullptr, &two});
  ASSERT_TRUE(excluded.ok()) << excluded.status().message();
  EXPECT_NEAR(excluded->data<float>()[1], 0.3714286f, 1e-6f);
  // pytorch_half_pixel to length 1 reads x[0] (x = 0); onnx's Python reference uses -0.5.
  const Tensor one = Int64s({1});
  ExpectValues(
      Evaluate(
          MakeResize(13, {{"mode", std::string("cubic")},
                          {"coordinate_transformation_mode", std::string("pytorch_half_pixel")}}),
          {&x, nullptr, nullptr, &one}),
      {1}, {0});
}

TEST(ReferenceResizeTest, OpsetFormsAxesAndPolicies) {
  const Tensor x = Floats({1, 2, 3, 4}, {1, 1, 2, 2});
  // Upsample 7: scales attribute; Upsample 9 and Resize 10: scales as input 1.
  const Node upsample7 = MakeResize(7, {{"scales", std::vector<float>{1, 1, 1, 2}}}, "Upsample");
  ExpectValues(Evaluate(upsample7, {&x}), {1, 1, 2, 4}, {1, 1, 2, 2, 3, 3, 4, 4});
  const Tensor scales = Floats({1, 1, 2, 1}, {4});
  ExpectValues(Evaluate(MakeResize(9, {}, "Upsample"), {&x, &scales}), {1, 1, 4, 2},
               {1, 2, 1, 2, 3, 4, 3, 4});
  ExpectValues(Evaluate(MakeResize(10), {&x, &scales}), {1, 1, 4, 2}, {1, 2, 1, 2, 3, 4, 3, 4});
  // opset 18 axes: scales for axis 3 only.
  const Tensor three = Floats({3}, {1});
  ExpectValues(
      Evaluate(MakeResize(18, {{"axes", std::vector<int64_t>{-1}}}), {&x, nullptr, &three}),
      {1, 1, 2, 6}, {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4});
  // not_larger: sizes [3, 5] on 2 x 2 -> one scale min(1.5, 2.5) = 1.5 -> 3 x 3.
  const Tensor sizes = Int64s({3, 5});
  auto policy = Evaluate(MakeResize(18, {{"axes", std::vector<int64_t>{2, 3}},
                                         {"keep_aspect_ratio_policy", std::string("not_larger")}}),
                         {&x, nullptr, nullptr, &sizes});
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  EXPECT_EQ(policy->dims(), (Dims{1, 1, 3, 3}));
  // Nearest copies any element type.
  const Tensor ints = Int64s({7, 8, 9});
  const Tensor two = Floats({2}, {1});
  auto copied =
      Evaluate(MakeResize(13, {{"nearest_mode", std::string("floor")}}), {&ints, nullptr, &two});
  ASSERT_TRUE(copied.ok()) << copied.status().message();
  EXPECT_EQ(copied->ToInt64Vector(), (std::vector<int64_t>{7, 7, 7, 8, 8, 9}));
}

TEST(ReferenceResizeTest, Refusals) {
  const Tensor x = Floats({1, 2, 3, 4}, {1, 1, 2, 2});
  const Tensor scales = Floats({1, 1, 2, 2}, {4});
  const Tensor sizes = Int64s({1, 1, 4, 4});
  auto code = [](const StatusOr<Tensor>& result) { return result.status().code(); };
  EXPECT_EQ(
      code(Evaluate(
          MakeResize(13, {{"coordinate_transformation_mode", std::string("tf_crop_and_resize")}}),
          {&x, nullptr, &scales})),
      StatusCode::kUnsupported);
  EXPECT_EQ(
      code(Evaluate(MakeResize(18, {{"antialias", int64_t{1}}, {"mode", std::string("linear")}}),
                    {&x, nullptr, &scales})),
      StatusCode::kUnsupported);
  EXPECT_EQ(code(Evaluate(MakeResize(13), {&x, nullptr, &scales, &sizes})),
            StatusCode::kInvalidInput);
  EXPECT_EQ(code(Evaluate(MakeResize(13), {&x})), StatusCode::kInvalidInput);
  EXPECT_EQ(code(Evaluate(MakeResize(13, {{"mode", std::string("area")}}), {&x, nullptr, &scales})),
            StatusCode::kInvalidInput);
  EXPECT_EQ(code(Evaluate(MakeResize(10, {}, "Upsample"), {&x, &scales})),
            StatusCode::kInvalidInput);
  const Tensor ints = Int64s({7, 8, 9});
  const Tensor two = Floats({2}, {1});
  EXPECT_EQ(
      code(Evaluate(MakeResize(13, {{"mode", std::string("linear")}}), {&ints, nullptr, &two})),
      StatusCode::kUnsupported);
  auto named = Evaluate(MakeResize(13, {{"mode", std::string("area")}}), {&x, nullptr, &scales});
  EXPECT_NE(named.status().message().find("Resize 'resize'"), std::string::npos)
      << named.status().message();
}

}  // namespace
}  // namespace ios
