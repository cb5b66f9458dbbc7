// The float64 evaluation of a graph (EvaluateGraphInFloat64), the oracle of iosc
// --reference-outputs: nothing is rounded to float32 on the way, Casts to float32 become Casts to
// float64, and on a conv network it agrees with the float32 evaluation to float32 rounding.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/reference/reference_graph.h"
#include "random_tensor.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::GraphBuilder;

TEST(Float64ReferenceTest, NothingIsRoundedToFloat32OnTheWay) {
  // y = Cast<float>(x + 1e-9) * 1: in float32, 1 + 1e-9 rounds to 1.
  GraphBuilder b(13);
  ValueId x = b.Input("x", {2});
  ValueId tiny = b.Constant("tiny", Tensor::FromFloat({1e-9f, 1e-9f}, {2}));
  ValueId sum = b.Op("Add", {x, tiny});
  AttributeMap to_float;
  to_float.Set("to", int64_t{1});  // ONNX FLOAT
  ValueId cast = b.Op("Cast", {sum}, to_float);
  Graph graph = b.Finish({b.Op("Mul", {cast, b.Constant("one", Tensor::FromFloat({1.f}, {1}))})});
  const Tensor input = Tensor::FromFloat({1.f, -3.f}, {2});

  auto narrow = EvaluateGraphReference(graph, {input});
  ASSERT_TRUE(narrow.ok()) << narrow.status().message();
  EXPECT_EQ((*narrow)[0].dtype(), DType::kFloat32);
  EXPECT_EQ((*narrow)[0].data<float>()[0], 1.f);

  auto wide = EvaluateGraphInFloat64(graph, {input});
  ASSERT_TRUE(wide.ok()) << wide.status().message();
  ASSERT_EQ((*wide)[0].dtype(), DType::kFloat64);
  const double expected = 1.0 + static_cast<double>(1e-9f);
  EXPECT_EQ((*wide)[0].data<double>()[0], expected);
  EXPECT_NE((*wide)[0].data<double>()[0], 1.0);
  // The caller's graph is untouched.
  EXPECT_EQ(graph.values[static_cast<size_t>(tiny)].constant->dtype(), DType::kFloat32);
}

TEST(Float64ReferenceTest, AConvNetworkAgreesWithItsFloat32EvaluationToRounding) {
  GraphBuilder b(13);
  ValueId x = b.Input("x", {1, 3, 9, 9});
  ValueId c1 = b.Conv(x, 8, 3, 1);
  ValueId r1 = b.Op("Sigmoid", {c1});
  ValueId c2 = b.Conv(r1, 8, 3, 1, 2);
  ValueId pooled = b.Op("GlobalAveragePool", {c2});
  Graph graph = b.Finish({b.Op("Relu", {pooled})});
  const Tensor input = testing::RandomTensor({1, 3, 9, 9}, 7);
  auto narrow = EvaluateGraphReference(graph, {input});
  auto wide = EvaluateGraphInFloat64(graph, {input});
  ASSERT_TRUE(narrow.ok()) << narrow.status().message();
  ASSERT_TRUE(wide.ok()) << wide.status().message();
  const Tensor& a = (*narrow)[0];
  const Tensor& w = (*wide)[0];
  ASSERT_EQ(a.dims(), w.dims());
  double max_difference = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i)
    max_difference = std::max(
        max_difference, std::fabs(static_cast<double>(a.data<float>()[i]) - w.data<double>()[i]));
  EXPECT_LT(max_difference, 1e-5);
  EXPECT_GT(max_difference, 0.0) << "float32 rounding should show somewhere";
}

TEST(Float64ReferenceTest, ResizeReadsItsWidenedScales) {
  // Resize's float32 scales constant is widened like every other one; the reference Resize reads
  // it as float64 and upsamples the float64 data (PP-OCR's detection neck was refused here).
  GraphBuilder b(10);
  ValueId x = b.Input("x", {1, 2, 3, 3});
  ValueId scales = b.Constant("scales", Tensor::FromFloat({1.f, 1.f, 2.f, 2.f}, {4}));
  AttributeMap linear;
  linear.Set("mode", std::string("linear"));
  Graph graph = b.Finish({b.Op("Resize", {x, scales}, linear)});
  const Tensor input = testing::RandomTensor({1, 2, 3, 3}, 3);
  auto narrow = EvaluateGraphReference(graph, {input});
  auto wide = EvaluateGraphInFloat64(graph, {input});
  ASSERT_TRUE(narrow.ok()) << narrow.status().message();
  ASSERT_TRUE(wide.ok()) << wide.status().message();
  const Tensor& a = (*narrow)[0];
  const Tensor& w = (*wide)[0];
  ASSERT_EQ(w.dtype(), DType::kFloat64);
  ASSERT_EQ(a.dims(), (Dims{1, 2, 6, 6}));
  ASSERT_EQ(w.dims(), a.dims());
  for (int64_t i = 0; i < a.num_elements(); ++i)
    EXPECT_NEAR(static_cast<double>(a.data<float>()[i]), w.data<double>()[i], 1e-6) << i;
}

TEST(Float64ReferenceTest, WideningLeavesOtherTypesAlone) {
  const Tensor ints = Tensor::FromInt64({1, 2, 3}, {3});
  EXPECT_EQ(WidenToFloat64(ints).dtype(), DType::kInt64);
  const Tensor floats = Tensor::FromFloat({0.1f}, {1});
  const Tensor wide = WidenToFloat64(floats);
  EXPECT_EQ(wide.dtype(), DType::kFloat64);
  EXPECT_EQ(wide.data<double>()[0], static_cast<double>(0.1f));
}

}  // namespace
}  // namespace ios
