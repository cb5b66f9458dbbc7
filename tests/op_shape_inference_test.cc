// Shape inference and cost of the registered ops. Each case builds a one-node graph and runs
// InferNode, the same path the passes use. Expected shapes were checked against onnxruntime
// 1.31 (actual output shapes) and onnx.shape_inference; where the two disagree (ceil_mode),
// onnxruntime is the reference and the test says so.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/fused_activation.h"
#include "ir/graph.h"
#include "op_shape_test_util.h"
#include "ops/op_registry.h"

namespace ios {
namespace {

using namespace shape_testing;  // NOLINT: the helpers of op_shape_test_util.h

// ---- Conv ------------------------------------------------------------------------------------

TEST(ConvShapeTest, StridedPaddedWithBias) {
  auto one = InferOneNode("Conv", 13, {F({1, 3, 224, 224}), Weight({64, 3, 7, 7}), Weight({64})},
                          Attrs({{"strides", Ints{2, 2}}, {"pads", Ints{3, 3, 3, 3}}}));
  EXPECT_OUT_DIMS(one, 0, {1, 64, 112, 112});
  EXPECT_EQ(one.Out().dtype, DType::kFloat32);
}

TEST(ConvShapeTest, GroupsAndDepthwise) {
  auto grouped = InferOneNode("Conv", 13, {F({1, 8, 10, 10}), Weight({16, 4, 3, 3})},
                              Attrs({{"group", Int(2)}, {"pads", Ints{1, 1, 1, 1}}}));
  EXPECT_OUT_DIMS(grouped, 0, {1, 16, 10, 10});
  auto depthwise = InferOneNode(
      "Conv", 13, {F({1, 32, 56, 56}), Weight({32, 1, 3, 3})},
      Attrs({{"group", Int(32)}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}));
  EXPECT_OUT_DIMS(depthwise, 0, {1, 32, 28, 28});
}

TEST(ConvShapeTest, Dilation) {
  // Effective kernel 5x7: (20 - 5) + 1 = 16, (20 - 7) + 1 = 14.
  auto one = InferOneNode("Conv", 13, {F({1, 4, 20, 20}), Weight({8, 4, 3, 3})},
                          Attrs({{"dilations", Ints{2, 3}}}));
  EXPECT_OUT_DIMS(one, 0, {1, 8, 16, 14});
}

TEST(ConvShapeTest, AutoPadSameUpperAndLower) {
  // SAME: ceil(in / stride).
  auto upper = InferOneNode("Conv", 13, {F({1, 3, 7, 8}), Weight({4, 3, 3, 3})},
                            Attrs({{"strides", Ints{2, 2}}, {"auto_pad", Str("SAME_UPPER")}}));
  EXPECT_OUT_DIMS(upper, 0, {1, 4, 4, 4});
  auto lower = InferOneNode("Conv", 13, {F({1, 3, 7, 8}), Weight({4, 3, 4, 4})},
                            Attrs({{"strides", Ints{2, 3}}, {"auto_pad", Str("SAME_LOWER")}}));
  EXPECT_OUT_DIMS(lower, 0, {1, 4, 4, 3});
  auto valid = InferOneNode("Conv", 13, {F({1, 3, 10, 11}), Weight({4, 3, 3, 3})},
                            Attrs({{"strides", Ints{2, 2}}, {"auto_pad", Str("VALID")}}));
  EXPECT_OUT_DIMS(valid, 0, {1, 4, 4, 5});
}

TEST(ConvShapeTest, AsymmetricPadsAndStrides) {
  // H: (10 + 0 + 2 - 3) / 2 + 1 = 5; W: (10 + 1 + 3 - 3) / 3 + 1 = 4.
  auto one = InferOneNode("Conv", 13, {F({1, 3, 10, 10}), Weight({4, 3, 3, 3})},
                          Attrs({{"strides", Ints{2, 3}}, {"pads", Ints{0, 1, 2, 3}}}));
  EXPECT_OUT_DIMS(one, 0, {1, 4, 5, 4});
}

TEST(ConvShapeTest, OneDimensional) {
  auto one = InferOneNode("Conv", 13, {F({2, 4, 50}), Weight({6, 4, 5})},
                          Attrs({{"strides", Ints{3}}, {"pads", Ints{2, 2}}}));
  EXPECT_OUT_DIMS(one, 0, {2, 6, 17});
}

TEST(ConvShapeTest, FusedActivationAttributesAreIgnored) {
  AttributeMap attrs = Attrs({{"pads", Ints{1, 1, 1, 1}}});
  SetFusedActivation(attrs, Activation{ActivationKind::kClip, 0.f, 6.f});
  auto one = InferOneNode("Conv", 13, {F({1, 3, 8, 8}), Weight({4, 3, 3, 3})}, attrs);
  EXPECT_OUT_DIMS(one, 0, {1, 4, 8, 8});
}

TEST(ConvShapeTest, Errors) {
  ExpectError(InferOneNode("Conv", 13, {F({1, 3, 8, 8}), Weight({4, 5, 3, 3})}),
              StatusCode::kInvalidInput, "3 channels");
  ExpectError(
      InferOneNode("Conv", 13, {F({1, 6, 8, 8}), Weight({4, 2, 3, 3})}, Attrs({{"group", Int(4)}})),
      StatusCode::kInvalidInput, "group 4");
  ExpectError(InferOneNode("Conv", 13, {F({1, 3, 8, 8}), Weight({4, 3, 3, 3})},
                           Attrs({{"strides", Ints{-1, 1}}})),
              StatusCode::kInvalidInput, "strides");
  ExpectError(InferOneNode("Conv", 13, {F({1, 3, 8, 8}), Weight({4, 3, 3})}),
              StatusCode::kInvalidInput, "rank");
  ExpectError(InferOneNode("Conv", 13, {F({1, 3, 4, 4}), Weight({4, 3, 5, 5})}),
              StatusCode::kInvalidInput, "kernel extent 5");
  ExpectError(InferOneNode("Conv", 13, {F({1, 3, 8, 8}), Weight({4, 3, 3, 3}), Weight({3})}),
              StatusCode::kInvalidInput, "bias");
  ExpectError(InferOneNode("Conv", 13, {F({1, 3, 8, 8}), Weight({4, 3, 3, 3})},
                           Attrs({{"kernel_shape", Ints{5, 5}}})),
              StatusCode::kInvalidInput, "kernel_shape");
}

TEST(ConvShapeTest, ErrorNamesFileNodeAndOpset) {
  auto one = InferOneNode("Conv", 11, {F({1, 3, 8, 8}), Weight({4, 5, 3, 3})});
  ASSERT_FALSE(one.status.ok());
  EXPECT_NE(one.status.message().find("test.onnx"), std::string::npos);
  EXPECT_NE(one.status.message().find("'n'"), std::string::npos);
  EXPECT_NE(one.status.message().find("opset 11"), std::string::npos);
}

TEST(ConvTransposeShapeTest, StridesPadsOutputPadding) {
  // H: 2·(5-1) + 1 + 3 - 1 - 1 = 10; W: 2·(6-1) + 0 + 3 - 0 - 2 = 11.
  auto one = InferOneNode(
      "ConvTranspose", 13, {F({1, 4, 5, 6}), Weight({4, 3, 3, 3})},
      Attrs({{"strides", Ints{2, 2}}, {"pads", Ints{1, 0, 1, 2}}, {"output_padding", Ints{1, 0}}}));
  EXPECT_OUT_DIMS(one, 0, {1, 3, 10, 11});
}

TEST(ConvTransposeShapeTest, GroupOutputShapeAndSame) {
  auto grouped =
      InferOneNode("ConvTranspose", 13, {F({1, 4, 5, 5}), Weight({4, 2, 3, 3}), Weight({4})},
                   Attrs({{"group", Int(2)}}));
  EXPECT_OUT_DIMS(grouped, 0, {1, 4, 7, 7});
  auto shaped = InferOneNode("ConvTranspose", 13, {F({1, 4, 5, 5}), Weight({4, 3, 3, 3})},
                             Attrs({{"strides", Ints{2, 2}}, {"output_shape", Ints{10, 11}}}));
  EXPECT_OUT_DIMS(shaped, 0, {1, 3, 10, 11});
  auto same = InferOneNode("ConvTranspose", 13, {F({1, 4, 5, 5}), Weight({4, 3, 3, 3})},
                           Attrs({{"strides", Ints{2, 2}}, {"auto_pad", Str("SAME_UPPER")}}));
  EXPECT_OUT_DIMS(same, 0, {1, 3, 10, 10});
}

TEST(ConvTransposeShapeTest, Errors) {
  ExpectError(InferOneNode("ConvTranspose", 13, {F({1, 3, 5, 5}), Weight({4, 3, 3, 3})}),
              StatusCode::kInvalidInput, "3 channels");
  // onnxruntime: output_padding must be less than max(stride, dilation).
  ExpectError(InferOneNode("ConvTranspose", 13, {F({1, 4, 5, 5}), Weight({4, 3, 3, 3})},
                           Attrs({{"strides", Ints{2, 2}}, {"output_padding", Ints{2, 2}}})),
              StatusCode::kInvalidInput, "output_padding");
}

// ---- BatchNormalization ----------------------------------------------------------------------

TEST(BatchNormShapeTest, GivenOrBatchStatistics) {
  auto params = [] {
    return std::vector<In>{F({2, 3, 4, 4}), Weight({3}), Weight({3}), Weight({3}), Weight({3})};
  };
  EXPECT_OUT_DIMS(InferOneNode("BatchNormalization", 15, params()), 0, {2, 3, 4, 4});
  // training_mode=1 (opset 14+): Y, then the running mean and variance, one per channel.
  const OneNode training =
      InferOneNode("BatchNormalization", 15, params(), Attrs({{"training_mode", Int(1)}}), 3);
  EXPECT_OUT_DIMS(training, 0, {2, 3, 4, 4});
  EXPECT_EQ(training.Out(1).dims, (Dims{3}));
  EXPECT_EQ(training.Out(2).dims, (Dims{3}));
  ExpectError(InferOneNode("BatchNormalization", 15, params(), Attrs({{"training_mode", Int(2)}})),
              StatusCode::kInvalidInput, "training_mode=2");
  ExpectError(
      InferOneNode("BatchNormalization", 15, params(), Attrs({{"training_mode", Int(1)}}), 5),
      StatusCode::kInvalidInput, "at most 3");
  ExpectError(InferOneNode("BatchNormalization", 9, params(), {}, 3), StatusCode::kUnsupported,
              "inference only");
  ExpectError(InferOneNode("BatchNormalization", 7, params(), Attrs({{"spatial", Int(0)}})),
              StatusCode::kUnsupported, "spatial=0");
  EXPECT_OUT_DIMS(InferOneNode("BatchNormalization", 7, params(), Attrs({{"spatial", Int(1)}})), 0,
                  {2, 3, 4, 4});
  ExpectError(InferOneNode("BatchNormalization", 15,
                           {F({2, 3, 4, 4}), Weight({4}), Weight({3}), Weight({3}), Weight({3})}),
              StatusCode::kInvalidInput, "scale");
}

TEST(ModShapeTest, BroadcastsAndChecksFmod) {
  EXPECT_OUT_DIMS(InferOneNode("Mod", 13, {Typed(DType::kInt64, {2}), Typed(DType::kInt64, {})}), 0,
                  {2});
  EXPECT_OUT_DIMS(InferOneNode("Mod", 13, {F({2, 1, 3}), F({4, 1})}, Attrs({{"fmod", Int(1)}})), 0,
                  {2, 4, 3});
  ExpectError(InferOneNode("Mod", 13, {F({2}), F({2})}, Attrs({{"fmod", Int(3)}})),
              StatusCode::kInvalidInput, "fmod=3");
  ExpectError(InferOneNode("Mod", 13, {F({2}), Typed(DType::kInt64, {2})}),
              StatusCode::kInvalidInput, "");
}

TEST(ScatterNDShapeTest, UpdatesMatchIndicesAndData) {
  // indices [2, 1] address rows of data [4, 5]: updates are [2, 5].
  EXPECT_OUT_DIMS(
      InferOneNode("ScatterND", 16, {F({4, 5}), Typed(DType::kInt64, {2, 1}), F({2, 5})},
                   Attrs({{"reduction", Str("add")}})),
      0, {4, 5});
  // Element indices (last dim = rank): updates are indices' leading dims.
  EXPECT_OUT_DIMS(InferOneNode("ScatterND", 18, {F({4, 5}), Typed(DType::kInt64, {3, 2}), F({3})},
                               Attrs({{"reduction", Str("max")}})),
                  0, {4, 5});
  ExpectError(InferOneNode("ScatterND", 16, {F({4, 5}), Typed(DType::kInt64, {2, 1}), F({2, 4})}),
              StatusCode::kInvalidInput, "updates have shape [2,4]");
  ExpectError(InferOneNode("ScatterND", 16, {F({4, 5}), Typed(DType::kInt64, {2, 3}), F({2})}),
              StatusCode::kInvalidInput, "last dimension is 3");
  ExpectError(InferOneNode("ScatterND", 16, {F({4, 5}), Typed(DType::kFloat32, {2, 1}), F({2, 5})}),
              StatusCode::kInvalidInput, "indices have type");
  ExpectError(InferOneNode("ScatterND", 16, {F({4, 5}), Typed(DType::kInt64, {2, 1}), F({2, 5})},
                           Attrs({{"reduction", Str("max")}})),
              StatusCode::kInvalidInput, "from opset 18");
  ExpectError(InferOneNode("ScatterND", 18, {F({4, 5}), Typed(DType::kInt64, {2, 1}), F({2, 5})},
                           Attrs({{"reduction", Str("mean")}})),
              StatusCode::kInvalidInput, "reduction 'mean'");
}

TEST(LayerNormShapeTest, AxisScaleBiasAndStatistics) {
  // Y has X's shape; Mean and InvStdDev keep the dims before the axis and 1s after.
  auto three =
      InferOneNode("LayerNormalization", 17, {F({2, 5, 7}), Weight({7}), Weight({7})}, {}, 3);
  EXPECT_OUT_DIMS(three, 0, {2, 5, 7});
  EXPECT_OUT_DIMS(three, 1, {2, 5, 1});
  EXPECT_OUT_DIMS(three, 2, {2, 5, 1});
  EXPECT_EQ(three.Out(2).dtype, DType::kFloat32);
  auto axis1 = InferOneNode("LayerNormalization", 17, {F({2, 5, 7}), Weight({5, 1})},
                            Attrs({{"axis", Int(1)}}), 3, {1});
  EXPECT_OUT_DIMS(axis1, 2, {2, 1, 1});
  EXPECT_OUT_DIMS(InferOneNode("LayerNormalization", 17, {F({2, 5, 7}), Weight({5, 7})},
                               Attrs({{"axis", Int(-2)}, {"epsilon", Float(1e-6f)}})),
                  0, {2, 5, 7});
  // A B omitted, a scalar scale.
  EXPECT_OUT_DIMS(InferOneNode("LayerNormalization", 17, {F({3, 4}), Weight({}), Omitted()}), 0,
                  {3, 4});
  ExpectError(InferOneNode("LayerNormalization", 17, {F({2, 5, 7}), Weight({5})}),
              StatusCode::kInvalidInput, "does not broadcast to the normalised dims [7]");
  ExpectError(InferOneNode("LayerNormalization", 17, {F({2, 5, 7}), Weight({7})},
                           Attrs({{"axis", Int(3)}})),
              StatusCode::kInvalidInput, "axis");
  ExpectError(InferOneNode("LayerNormalization", 17, {F({2, 7}), Weight({7})},
                           Attrs({{"stash_type", Int(11)}})),
              StatusCode::kUnsupported, "stash_type=11");
  ExpectError(InferOneNode("LayerNormalization", 16, {F({2, 7}), Weight({7})}),
              StatusCode::kInvalidInput, "from opset 17");
  ExpectError(InferOneNode("LayerNormalization", 17, {F({2, 7}), Typed(DType::kFloat64, {7})}),
              StatusCode::kInvalidInput, "type");
  ExpectError(InferOneNode("LayerNormalization", 17, {Typed(DType::kInt64, {2, 7}), Weight({7})}),
              StatusCode::kInvalidInput, "float type");
}

// ---- Pools -----------------------------------------------------------------------------------

TEST(PoolShapeTest, CeilModeMatchesOnnxRuntime) {
  // in 5, k 3, s 3, pads 1/1: ceil((5+2-3)/3)+1 = 3, but the third window would start at
  // 6 >= 5 + 1 (in the right padding), so onnxruntime gives 2. onnx.shape_inference says 3.
  auto dropped = InferOneNode("MaxPool", 13, {F({1, 2, 5, 5})},
                              Attrs({{"kernel_shape", Ints{3, 3}},
                                     {"strides", Ints{3, 3}},
                                     {"pads", Ints{1, 1, 1, 1}},
                                     {"ceil_mode", Int(1)}}));
  EXPECT_OUT_DIMS(dropped, 0, {1, 2, 2, 2});
  // in 6x7, k 3, s 2, pads 1: floor gives 3x4, ceil gives 4x4.
  auto floor = InferOneNode(
      "MaxPool", 13, {F({1, 2, 6, 7})},
      Attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}));
  EXPECT_OUT_DIMS(floor, 0, {1, 2, 3, 4});
  auto ceil = InferOneNode("MaxPool", 13, {F({1, 2, 6, 7})},
                           Attrs({{"kernel_shape", Ints{3, 3}},
                                  {"strides", Ints{2, 2}},
                                  {"pads", Ints{1, 1, 1, 1}},
                                  {"ceil_mode", Int(1)}}));
  EXPECT_OUT_DIMS(ceil, 0, {1, 2, 4, 4});
  auto dilated = InferOneNode("MaxPool", 13, {F({1, 1, 9, 10})},
                              Attrs({{"kernel_shape", Ints{3, 3}},
                                     {"strides", Ints{2, 2}},
                                     {"dilations", Ints{2, 2}},
                                     {"ceil_mode", Int(1)}}));
  EXPECT_OUT_DIMS(dilated, 0, {1, 1, 3, 4});
}

TEST(PoolShapeTest, AveragePoolCountIncludePadAndCeil) {
  auto one = InferOneNode("AveragePool", 13, {F({1, 1, 7, 8})},
                          Attrs({{"kernel_shape", Ints{3, 3}},
                                 {"strides", Ints{2, 2}},
                                 {"pads", Ints{1, 1, 1, 1}},
                                 {"count_include_pad", Int(1)},
                                 {"ceil_mode", Int(1)}}));
  EXPECT_OUT_DIMS(one, 0, {1, 1, 4, 5});
  // in 7, k 2, s 3, pads 1: onnxruntime 3 (onnx.shape_inference says 4).
  auto dropped = InferOneNode("AveragePool", 13, {F({1, 1, 7, 7})},
                              Attrs({{"kernel_shape", Ints{2, 2}},
                                     {"strides", Ints{3, 3}},
                                     {"pads", Ints{1, 1, 1, 1}},
                                     {"ceil_mode", Int(1)}}));
  EXPECT_OUT_DIMS(dropped, 0, {1, 1, 3, 3});
  ExpectError(InferOneNode("AveragePool", 13, {F({1, 1, 7, 7})},
                           Attrs({{"kernel_shape", Ints{2, 2}}, {"count_include_pad", Int(2)}})),
              StatusCode::kInvalidInput, "count_include_pad");
}

TEST(PoolShapeTest, SameUpperGlobalAndErrors) {
  auto same = InferOneNode("MaxPool", 13, {F({1, 1, 7, 7})},
                           Attrs({{"kernel_shape", Ints{3, 3}},
                                  {"strides", Ints{2, 2}},
                                  {"auto_pad", Str("SAME_UPPER")}}));
  EXPECT_OUT_DIMS(same, 0, {1, 1, 4, 4});
  EXPECT_OUT_DIMS(InferOneNode("GlobalAveragePool", 13, {F({2, 8, 7, 5})}), 0, {2, 8, 1, 1});
  EXPECT_OUT_DIMS(InferOneNode("GlobalMaxPool", 13, {F({2, 8, 7})}), 0, {2, 8, 1});
  ExpectError(
      InferOneNode("MaxPool", 13, {F({1, 1, 7, 7})}, Attrs({{"kernel_shape", Ints{3, 3}}}), 2),
      StatusCode::kUnsupported, "Indices");
  // An omitted Indices output is fine.
  EXPECT_OUT_DIMS(
      InferOneNode("MaxPool", 13, {F({1, 1, 7, 7})}, Attrs({{"kernel_shape", Ints{3, 3}}}), 2, {1}),
      0, {1, 1, 5, 5});
  ExpectError(InferOneNode("MaxPool", 13, {F({1, 1, 7, 7})},
                           Attrs({{"kernel_shape", Ints{2, 2}}, {"pads", Ints{2, 2, 2, 2}}})),
              StatusCode::kInvalidInput, "smaller than kernel_shape");
  ExpectError(InferOneNode("MaxPool", 13, {F({1, 1, 7, 7})}), StatusCode::kInvalidInput,
              "kernel_shape");
}

// ---- Activations and elementwise -------------------------------------------------------------

TEST(ActivationShapeTest, ClipOpsetVariants) {
  EXPECT_OUT_DIMS(
      InferOneNode("Clip", 6, {F({2, 3})}, Attrs({{"min", Float(0)}, {"max", Float(6)}})), 0,
      {2, 3});
  EXPECT_OUT_DIMS(InferOneNode("Clip", 11, {F({2, 3}), ConstScalar(0), ConstScalar(6)}), 0, {2, 3});
  EXPECT_OUT_DIMS(InferOneNode("Clip", 11, {F({2, 3}), Omitted(), ConstScalar(6)}), 0, {2, 3});
  ExpectError(InferOneNode("Clip", 11, {F({2, 3}), ConstScalar(0), F({})}),
              StatusCode::kUnsupported, "input 'max' must be a constant");
  ExpectError(InferOneNode("Clip", 6, {F({2, 3}), ConstScalar(0)}), StatusCode::kInvalidInput,
              "opset 11");
  ExpectError(InferOneNode("Clip", 11, {F({2, 3})}, Attrs({{"min", Float(0)}})),
              StatusCode::kInvalidInput, "opset 11");
}

TEST(ActivationShapeTest, UnaryOpsKeepType) {
  for (const char* op : {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Elu",
                         "Neg", "Abs", "Sqrt", "Exp", "Log", "Floor", "Ceil", "Reciprocal"}) {
    auto one = InferOneNode(op, 13, {F({2, 3, 5})});
    EXPECT_OUT_DIMS(one, 0, {2, 3, 5});
    EXPECT_EQ(one.Out().dtype, DType::kFloat32) << op;
  }
  auto negated = InferOneNode("Not", 13, {Bool({4})});
  EXPECT_OUT_DIMS(negated, 0, {4});
  EXPECT_EQ(negated.Out().dtype, DType::kBool);
  ExpectError(InferOneNode("Not", 13, {F({4})}), StatusCode::kInvalidInput, "bool");
  ExpectError(InferOneNode("LeakyRelu", 13, {F({4})}, Attrs({{"alpha", Int(1)}})),
              StatusCode::kInvalidInput, "alpha");
}

TEST(ActivationShapeTest, ErfAndGelu) {
  EXPECT_OUT_DIMS(InferOneNode("Erf", 9, {F({2, 3})}), 0, {2, 3});
  EXPECT_OUT_DIMS(InferOneNode("Gelu", 20, {F({2, 3})}), 0, {2, 3});
  EXPECT_OUT_DIMS(InferOneNode("Gelu", 20, {F({4})}, Attrs({{"approximate", Str("tanh")}})), 0,
                  {4});
  ExpectError(InferOneNode("Gelu", 20, {F({4})}, Attrs({{"approximate", Str("fast")}})),
              StatusCode::kInvalidInput, "'approximate' is 'fast'");
  ExpectError(InferOneNode("Gelu", 17, {F({4})}), StatusCode::kInvalidInput, "from opset 20");
  ExpectError(InferOneNode("Erf", 8, {F({4})}), StatusCode::kInvalidInput, "from opset 9");
  ExpectError(InferOneNode("Gelu", 20, {Typed(DType::kInt64, {4})}), StatusCode::kInvalidInput,
              "float type");
}

TEST(ElementwiseShapeTest, Broadcasting) {
  EXPECT_OUT_DIMS(InferOneNode("Add", 13, {F({2, 1, 4}), F({3, 1})}), 0, {2, 3, 4});
  EXPECT_OUT_DIMS(InferOneNode("Mul", 13, {F({}), F({5})}), 0, {5});
  EXPECT_OUT_DIMS(InferOneNode("Sum", 13, {F({3, 1}), F({1, 4}), F({2, 1, 1})}), 0, {2, 3, 4});
  EXPECT_OUT_DIMS(InferOneNode("Max", 13, {F({3, 4})}), 0, {3, 4});
  EXPECT_OUT_DIMS(InferOneNode("Pow", 13, {F({2, 3}), Typed(DType::kInt64, {})}), 0, {2, 3});
  ExpectError(InferOneNode("Add", 13, {F({5, 4}), F({3})}), StatusCode::kInvalidInput, "4 vs 3");
  ExpectError(InferOneNode("Sub", 13, {F({5, 4}), Typed(DType::kInt64, {4})}),
              StatusCode::kInvalidInput, "type");
}

TEST(ElementwiseShapeTest, ComparisonsAndWhere) {
  auto equal = InferOneNode("Equal", 13, {F({4, 1}), F({1, 5})});
  EXPECT_OUT_DIMS(equal, 0, {4, 5});
  EXPECT_EQ(equal.Out().dtype, DType::kBool);
  EXPECT_EQ(InferOneNode("Less", 13, {F({2, 3}), F({})}).Out().dtype, DType::kBool);
  EXPECT_EQ(InferOneNode("Greater", 13, {F({2, 3}), F({3})}).Out().dtype, DType::kBool);
  auto where = InferOneNode("Where", 13, {Bool({3, 1}), F({1, 4}), F({})});
  EXPECT_OUT_DIMS(where, 0, {3, 4});
  EXPECT_EQ(where.Out().dtype, DType::kFloat32);
  ExpectError(InferOneNode("Where", 13, {F({3, 1}), F({1, 4}), F({})}), StatusCode::kInvalidInput,
              "bool");
}

// ---- Tensor ops ------------------------------------------------------------------------------

TEST(SplitShapeTest, OpsetVariants) {
  auto v11 = InferOneNode("Split", 11, {F({2, 10, 3})},
                          Attrs({{"axis", Int(1)}, {"split", Ints{2, 3, 5}}}), 3);
  EXPECT_OUT_DIMS(v11, 2, {2, 5, 3});
  EXPECT_EQ(v11.Out(0).dims, (Dims{2, 2, 3}));
  auto v13 =
      InferOneNode("Split", 13, {F({2, 10, 3}), Const({2, 3, 5})}, Attrs({{"axis", Int(-2)}}), 3);
  EXPECT_OUT_DIMS(v13, 1, {2, 3, 3});
  auto even = InferOneNode("Split", 13, {F({2, 12, 3})}, Attrs({{"axis", Int(1)}}), 3);
  EXPECT_OUT_DIMS(even, 2, {2, 4, 3});
  // Opset 18: chunks of ceil(10 / 3) = 4, the last one smaller.
  auto v18 = InferOneNode("Split", 18, {F({10, 2})}, Attrs({{"num_outputs", Int(3)}}), 3);
  EXPECT_OUT_DIMS(v18, 0, {4, 2});
  EXPECT_EQ(v18.Out(1).dims, (Dims{4, 2}));
  EXPECT_EQ(v18.Out(2).dims, (Dims{2, 2}));
  ExpectError(InferOneNode("Split", 13, {F({2, 10, 3})}, Attrs({{"axis", Int(1)}}), 3),
              StatusCode::kInvalidInput, "not divisible");
  ExpectError(InferOneNode("Split", 13, {F({10})}, Attrs({{"split", Ints{5, 5}}}), 2),
              StatusCode::kInvalidInput, "not an attribute");
  ExpectError(InferOneNode("Split", 13, {F({10}), Const({3, 3})}, {}, 2), StatusCode::kInvalidInput,
              "summing");
  ExpectError(InferOneNode("Split", 18, {F({9})}, {}, 3), StatusCode::kInvalidInput, "num_outputs");
  ExpectError(InferOneNode("Split", 18, {F({6})}, Attrs({{"num_outputs", Int(4)}}), 4),
              StatusCode::kInvalidInput, "last chunk");
  ExpectError(InferOneNode("Split", 13, {F({10}), Typed(DType::kInt64, {2})}, {}, 2),
              StatusCode::kUnsupported, "input 'split' must be a constant");
}

TEST(SliceShapeTest, Opset9Attributes) {
  auto one =
      InferOneNode("Slice", 9, {F({20, 10, 5})},
                   Attrs({{"starts", Ints{0, 1}}, {"ends", Ints{3, 1000}}, {"axes", Ints{0, 1}}}));
  EXPECT_OUT_DIMS(one, 0, {3, 9, 5});
  auto negative = InferOneNode("Slice", 9, {F({20, 10, 5})},
                               Attrs({{"starts", Ints{-5, 2}}, {"ends", Ints{-1, -2}}}));
  EXPECT_OUT_DIMS(negative, 0, {4, 6, 5});
}

TEST(SliceShapeTest, Opset13InputsAndNegativeSteps) {
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  auto reversed = InferOneNode(
      "Slice", 13, {F({20, 10, 5}), Const({-1}), Const({kMin}), Const({1}), Const({-1})});
  EXPECT_OUT_DIMS(reversed, 0, {20, 10, 5});
  // 8, 5, 2.
  auto by3 =
      InferOneNode("Slice", 13, {F({20, 10, 5}), Const({8}), Const({1}), Const({1}), Const({-3})});
  EXPECT_OUT_DIMS(by3, 0, {20, 3, 5});
  // Start 100 clamps to 4, end -100 to -1: 4, 2, 0.
  auto clamped = InferOneNode(
      "Slice", 13, {F({20, 10, 5}), Const({100}), Const({-100}), Const({2}), Const({-2})});
  EXPECT_OUT_DIMS(clamped, 0, {20, 10, 3});
  auto stepped = InferOneNode(
      "Slice", 13,
      {F({20, 10, 5}), Const({1, 0}), Const({-1, 100}), Const({1, -1}), Const({2, 3})});
  EXPECT_OUT_DIMS(stepped, 0, {20, 4, 2});
  auto empty = InferOneNode("Slice", 13, {F({20, 10, 5}), Const({5}), Const({3}), Const({0})});
  EXPECT_OUT_DIMS(empty, 0, {0, 10, 5});
  ExpectError(InferOneNode("Slice", 13, {F({20}), Const({0}), Const({5}), Omitted(), Const({0})}),
              StatusCode::kInvalidInput, "contain 0");
  ExpectError(InferOneNode("Slice", 13, {F({20}), Typed(DType::kInt64, {1}), Const({5})}),
              StatusCode::kUnsupported, "input 'starts' must be a constant");
}

TEST(ReshapeShapeTest, ZeroAndMinusOne) {
  EXPECT_OUT_DIMS(InferOneNode("Reshape", 13, {F({2, 3, 4}), Const({0, -1})}), 0, {2, 12});
  EXPECT_OUT_DIMS(InferOneNode("Reshape", 13, {F({2, 3, 4}), Const({-1, 0})}), 0, {8, 3});
  EXPECT_OUT_DIMS(
      InferOneNode("Reshape", 14, {F({0, 3}), Const({3, 0})}, Attrs({{"allowzero", Int(1)}})), 0,
      {3, 0});
  EXPECT_OUT_DIMS(InferOneNode("Reshape", 14, {F({2, 0, 3}), Const({0, -1})}), 0, {2, 0});
  EXPECT_OUT_DIMS(InferOneNode("Reshape", 1, {F({2, 3, 4})}, Attrs({{"shape", Ints{6, 4}}})), 0,
                  {6, 4});
  ExpectError(InferOneNode("Reshape", 13, {F({2, 3, 4}), Typed(DType::kInt64, {2})}),
              StatusCode::kUnsupported, "input 'shape' must be a constant");
  ExpectError(InferOneNode("Reshape", 13, {F({2, 3, 4}), Const({-1, -1})}),
              StatusCode::kInvalidInput, "more than one -1");
  ExpectError(InferOneNode("Reshape", 13, {F({2, 3, 4}), Const({5, 5})}), StatusCode::kInvalidInput,
              "24 elements");
  ExpectError(InferOneNode("Reshape", 13, {F({2, 3, 4}), Const({-1, 5})}),
              StatusCode::kInvalidInput, "-1 cannot be inferred");
}

TEST(SqueezeShapeTest, OpsetVariants) {
  EXPECT_OUT_DIMS(InferOneNode("Squeeze", 11, {F({1, 3, 1, 4})}, Attrs({{"axes", Ints{0, -2}}})), 0,
                  {3, 4});
  EXPECT_OUT_DIMS(InferOneNode("Squeeze", 11, {F({1, 3, 1, 4})}), 0, {3, 4});
  EXPECT_OUT_DIMS(InferOneNode("Squeeze", 13, {F({1, 3, 1, 4}), Const({2})}), 0, {1, 3, 4});
  EXPECT_OUT_DIMS(InferOneNode("Squeeze", 13, {F({1, 3, 1, 4})}), 0, {3, 4});
  ExpectError(InferOneNode("Squeeze", 13, {F({1, 3, 1, 4}), Const({1})}), StatusCode::kInvalidInput,
              "not 1");
  ExpectError(InferOneNode("Squeeze", 11, {F({1, 3}), Const({0})}), StatusCode::kInvalidInput,
              "opset 11");
  ExpectError(InferOneNode("Squeeze", 13, {F({1, 3}), Typed(DType::kInt64, {1})}),
              StatusCode::kUnsupported, "input 'axes' must be a constant");
}

TEST(UnsqueezeShapeTest, OpsetVariants) {
  EXPECT_OUT_DIMS(InferOneNode("Unsqueeze", 11, {F({3, 4})}, Attrs({{"axes", Ints{0, 3}}})), 0,
                  {1, 3, 4, 1});
  EXPECT_OUT_DIMS(InferOneNode("Unsqueeze", 13, {F({3, 4}), Const({-1, 1})}), 0, {3, 1, 4, 1});
  ExpectError(InferOneNode("Unsqueeze", 13, {F({3, 4}), Const({1, 1})}), StatusCode::kInvalidInput,
              "twice");
}

TEST(PadShapeTest, OpsetVariants) {
  EXPECT_OUT_DIMS(InferOneNode("Pad", 2, {F({2, 3})},
                               Attrs({{"pads", Ints{1, 0, 2, 3}}, {"value", Float(1.5f)}})),
                  0, {5, 6});
  EXPECT_OUT_DIMS(InferOneNode("Pad", 11, {F({1, 3, 4, 5}), Const({0, 0, 1, 2, 0, 0, 3, 4})},
                               Attrs({{"mode", Str("reflect")}})),
                  0, {1, 3, 8, 11});
  EXPECT_OUT_DIMS(
      InferOneNode("Pad", 11, {F({1, 3, 4, 5}), Const({0, 0, -1, 2, 0, 0, 0, -3}), ConstScalar(0)},
                   Attrs({{"mode", Str("edge")}})),
      0, {1, 3, 3, 4});
  // Axes [-1, 0]: axis 2 gets 1 + 3, axis 0 gets 2 + 4.
  EXPECT_OUT_DIMS(
      InferOneNode("Pad", 18, {F({2, 3, 4}), Const({1, 2, 3, 4}), Omitted(), Const({-1, 0})}), 0,
      {8, 3, 8});
  ExpectError(InferOneNode("Pad", 11, {F({2, 3}), Typed(DType::kInt64, {4})}),
              StatusCode::kUnsupported, "input 'pads' must be a constant");
  ExpectError(
      InferOneNode("Pad", 11, {F({1, 3}), Const({0, 3, 0, 3})}, Attrs({{"mode", Str("reflect")}})),
      StatusCode::kInvalidInput, "reflect");
  ExpectError(InferOneNode("Pad", 11, {F({2, 3}), Const({1, 1})}), StatusCode::kInvalidInput,
              "expected 4");
  ExpectError(InferOneNode("Pad", 11, {F({2, 3}), Const({0, 0, 1, 1}), Omitted(), Const({0})}),
              StatusCode::kInvalidInput, "opset 18");
}

TEST(TensorOpsShapeTest, ConcatFlattenTranspose) {
  EXPECT_OUT_DIMS(InferOneNode("Concat", 13, {F({2, 3, 4}), F({2, 5, 4}), F({2, 1, 4})},
                               Attrs({{"axis", Int(-2)}})),
                  0, {2, 9, 4});
  ExpectError(InferOneNode("Concat", 13, {F({2, 3, 4}), F({3, 5, 4})}, Attrs({{"axis", Int(1)}})),
              StatusCode::kInvalidInput, "[3,5,4]");
  EXPECT_OUT_DIMS(InferOneNode("Flatten", 13, {F({2, 3, 4, 5})}, Attrs({{"axis", Int(2)}})), 0,
                  {6, 20});
  EXPECT_OUT_DIMS(InferOneNode("Flatten", 13, {F({2, 3, 4, 5})}, Attrs({{"axis", Int(0)}})), 0,
                  {1, 120});
  EXPECT_OUT_DIMS(InferOneNode("Flatten", 13, {F({2, 3, 4, 5})}, Attrs({{"axis", Int(-1)}})), 0,
                  {24, 5});
  EXPECT_OUT_DIMS(InferOneNode("Flatten", 13, {F({2, 3, 4, 5})}, Attrs({{"axis", Int(4)}})), 0,
                  {120, 1});
  EXPECT_OUT_DIMS(
      InferOneNode("Transpose", 13, {F({2, 3, 4, 5})}, Attrs({{"perm", Ints{0, 2, 3, 1}}})), 0,
      {2, 4, 5, 3});
  EXPECT_OUT_DIMS(InferOneNode("Transpose", 13, {F({2, 3, 4})}), 0, {4, 3, 2});
  ExpectError(InferOneNode("Transpose", 13, {F({2, 3, 4})}, Attrs({{"perm", Ints{0, 0, 1}}})),
              StatusCode::kInvalidInput, "permutation");
}

TEST(TensorOpsShapeTest, ShapeGatherCast) {
  auto shape =
      InferOneNode("Shape", 15, {F({2, 3, 4, 5})}, Attrs({{"start", Int(1)}, {"end", Int(-1)}}));
  EXPECT_OUT_DIMS(shape, 0, {2});
  EXPECT_EQ(shape.Out().dtype, DType::kInt64);
  EXPECT_OUT_DIMS(
      InferOneNode("Shape", 15, {F({2, 3, 4, 5})}, Attrs({{"start", Int(-10)}, {"end", Int(10)}})),
      0, {4});
  EXPECT_OUT_DIMS(InferOneNode("Shape", 13, {F({2, 3, 4, 5})}), 0, {4});
  Tensor indices = Tensor::FromInt64({-1, 0, 2, -6, 1, 1}, {2, 3});
  auto gather = InferOneNode("Gather", 13, {F({5, 6, 7}), In{DType::kInt64, {2, 3}, indices}},
                             Attrs({{"axis", Int(1)}}));
  EXPECT_OUT_DIMS(gather, 0, {5, 2, 3, 7});
  EXPECT_OUT_DIMS(InferOneNode("Gather", 13, {F({5, 6, 7}), ConstScalarInt(3)}), 0, {6, 7});
  ExpectError(InferOneNode("Gather", 13, {F({5, 6, 7}), Const({6})}, Attrs({{"axis", Int(1)}})),
              StatusCode::kInvalidInput, "index 6");
  auto cast = InferOneNode("Cast", 13, {F({2, 3})}, Attrs({{"to", Int(7)}}));
  EXPECT_OUT_DIMS(cast, 0, {2, 3});
  EXPECT_EQ(cast.Out().dtype, DType::kInt64);
}

TEST(TensorOpsShapeTest, ConstantOfShapeRangeExpandTile) {
  auto zeros = InferOneNode("ConstantOfShape", 13, {Const({2, 3})});
  EXPECT_OUT_DIMS(zeros, 0, {2, 3});
  EXPECT_EQ(zeros.Out().dtype, DType::kFloat32);
  auto ones = InferOneNode("ConstantOfShape", 13, {Const({4})},
                           Attrs({{"value", Tensor::FromInt64({1}, {1})}}));
  EXPECT_OUT_DIMS(ones, 0, {4});
  EXPECT_EQ(ones.Out().dtype, DType::kInt64);
  ExpectError(InferOneNode("ConstantOfShape", 13, {Typed(DType::kInt64, {2})}),
              StatusCode::kUnsupported, "must be a constant");
  // ceil((2.05 - 1) / 0.25) = 5.
  EXPECT_OUT_DIMS(
      InferOneNode("Range", 13, {ConstScalar(1.f), ConstScalar(2.05f), ConstScalar(0.25f)}), 0,
      {5});
  EXPECT_OUT_DIMS(
      InferOneNode("Range", 13, {ConstScalarInt(10), ConstScalarInt(1), ConstScalarInt(-3)}), 0,
      {3});
  EXPECT_OUT_DIMS(
      InferOneNode("Range", 13, {ConstScalarInt(10), ConstScalarInt(1), ConstScalarInt(3)}), 0,
      {0});
  ExpectError(
      InferOneNode("Range", 13, {ConstScalarInt(0), Typed(DType::kInt64, {}), ConstScalarInt(1)}),
      StatusCode::kUnsupported, "input 'limit' must be a constant");
  EXPECT_OUT_DIMS(InferOneNode("Expand", 13, {F({3, 1}), Const({2, 1, 6})}), 0, {2, 3, 6});
  ExpectError(InferOneNode("Expand", 13, {F({3, 1}), Typed(DType::kInt64, {3})}),
              StatusCode::kUnsupported, "input 'shape' must be a constant");
  EXPECT_OUT_DIMS(InferOneNode("Tile", 13, {F({2, 3}), Const({2, 1})}), 0, {4, 3});
  ExpectError(InferOneNode("Tile", 13, {F({2, 3}), Typed(DType::kInt64, {2})}),
              StatusCode::kUnsupported, "input 'repeats' must be a constant");
}

// ---- Gemm / MatMul ---------------------------------------------------------------------------

TEST(MatmulShapeTest, GemmTransposeFlagsAndBias) {
  // A [4,3]ᵀ = [3,4], B [5,4]ᵀ = [4,5].
  EXPECT_OUT_DIMS(InferOneNode("Gemm", 13, {F({4, 3}), F({5, 4}), F({5})},
                               Attrs({{"transA", Int(1)}, {"transB", Int(1)}})),
                  0, {3, 5});
  EXPECT_OUT_DIMS(InferOneNode("Gemm", 13, {F({3, 4}), F({4, 5}), F({3, 1})}), 0, {3, 5});
  EXPECT_OUT_DIMS(InferOneNode("Gemm", 13, {F({3, 4}), F({4, 5})}), 0, {3, 5});
  ExpectError(InferOneNode("Gemm", 13, {F({3, 4}), F({4, 5}), F({4})}), StatusCode::kInvalidInput,
              "does not broadcast");
  ExpectError(InferOneNode("Gemm", 13, {F({3, 4}), F({5, 4})}), StatusCode::kInvalidInput,
              "inner dimensions 4 and 5");
}

TEST(MatmulShapeTest, MatMulBatchedAndVectors) {
  EXPECT_OUT_DIMS(InferOneNode("MatMul", 13, {F({2, 1, 3, 4}), F({5, 4, 6})}), 0, {2, 5, 3, 6});
  EXPECT_OUT_DIMS(InferOneNode("MatMul", 13, {F({4}), F({4, 6})}), 0, {6});
  EXPECT_OUT_DIMS(InferOneNode("MatMul", 13, {F({2, 3, 4}), F({4})}), 0, {2, 3});
  EXPECT_OUT_DIMS(InferOneNode("MatMul", 13, {F({4}), F({4})}), 0, {});
  EXPECT_OUT_DIMS(InferOneNode("MatMul", 13, {F({4}), F({7, 4, 6})}), 0, {7, 6});
  ExpectError(InferOneNode("MatMul", 13, {F({2, 3}), F({4, 5})}), StatusCode::kInvalidInput,
              "inner dimensions 3 and 4");
  ExpectError(InferOneNode("MatMul", 13, {F({2, 2, 3}), F({3, 3, 5})}), StatusCode::kInvalidInput,
              "broadcast");
}

// ---- Misc ------------------------------------------------------------------------------------

TEST(MiscShapeTest, SoftmaxOpsetVariants) {
  EXPECT_OUT_DIMS(InferOneNode("Softmax", 11, {F({2, 3, 4})}), 0, {2, 3, 4});
  EXPECT_OUT_DIMS(InferOneNode("Softmax", 13, {F({2, 3, 4})}, Attrs({{"axis", Int(-3)}})), 0,
                  {2, 3, 4});
  // The opset 11 default axis 1 does not exist on a 1-D input; the opset 13 default -1 does.
  ExpectError(InferOneNode("Softmax", 11, {F({4})}), StatusCode::kInvalidInput, "axis 1");
  EXPECT_OUT_DIMS(InferOneNode("Softmax", 13, {F({4})}), 0, {4});
  ExpectError(InferOneNode("Softmax", 13, {F({2, 3, 4})}, Attrs({{"axis", Int(3)}})),
              StatusCode::kInvalidInput, "axis 3");
}

TEST(MiscShapeTest, DropoutOpsetVariants) {
  auto v7 = InferOneNode("Dropout", 7, {F({2, 3})}, Attrs({{"ratio", Float(0.3f)}}), 2);
  EXPECT_OUT_DIMS(v7, 1, {2, 3});
  EXPECT_EQ(v7.Out(1).dtype, DType::kFloat32);  // the opset 7 mask has the input's type
  auto v12 = InferOneNode("Dropout", 12, {F({2, 3}), ConstScalar(0.3f), ConstBool(false)}, {}, 2);
  EXPECT_OUT_DIMS(v12, 0, {2, 3});
  EXPECT_EQ(v12.Out(1).dtype, DType::kBool);
  EXPECT_OUT_DIMS(InferOneNode("Dropout", 12, {F({2, 3})}), 0, {2, 3});
  ExpectError(InferOneNode("Dropout", 12, {F({2, 3}), ConstScalar(0.3f), ConstBool(true)}, {}, 2),
              StatusCode::kUnsupported, "training_mode");
  ExpectError(InferOneNode("Dropout", 12, {F({2, 3}), ConstScalar(0.3f), Typed(DType::kBool, {})}),
              StatusCode::kUnsupported, "training_mode");
  ExpectError(InferOneNode("Dropout", 7, {F({2, 3}), ConstScalar(0.3f)}), StatusCode::kInvalidInput,
              "opset 12");
}

TEST(MiscShapeTest, ConstantIdentityReduceMean) {
  auto tensor =
      InferOneNode("Constant", 13, {}, Attrs({{"value", Tensor::FromFloat({1, 2, 3, 4}, {2, 2})}}));
  EXPECT_OUT_DIMS(tensor, 0, {2, 2});
  auto ints = InferOneNode("Constant", 13, {}, Attrs({{"value_ints", Ints{1, 2, 3}}}));
  EXPECT_OUT_DIMS(ints, 0, {3});
  EXPECT_EQ(ints.Out().dtype, DType::kInt64);
  auto scalar = InferOneNode("Constant", 13, {}, Attrs({{"value_float", Float(2.f)}}));
  EXPECT_OUT_DIMS(scalar, 0, {});
  EXPECT_EQ(scalar.Out().dtype, DType::kFloat32);
  ExpectError(InferOneNode("Constant", 13, {}), StatusCode::kInvalidInput, "exactly one");
  EXPECT_OUT_DIMS(InferOneNode("Identity", 13, {F({2, 3})}), 0, {2, 3});
  EXPECT_OUT_DIMS(InferOneNode("ReduceMean", 13, {F({2, 3, 4})}, Attrs({{"axes", Ints{1, -1}}})), 0,
                  {2, 1, 1});
  EXPECT_OUT_DIMS(InferOneNode("ReduceMean", 13, {F({2, 3, 4})},
                               Attrs({{"axes", Ints{1}}, {"keepdims", Int(0)}})),
                  0, {2, 4});
  EXPECT_OUT_DIMS(InferOneNode("ReduceMean", 13, {F({2, 3, 4})}), 0, {1, 1, 1});
  EXPECT_OUT_DIMS(
      InferOneNode("ReduceMean", 18, {F({2, 3, 4}), Const({-1})}, Attrs({{"keepdims", Int(0)}})), 0,
      {2, 3});
  EXPECT_OUT_DIMS(
      InferOneNode("ReduceMean", 18, {F({2, 3, 4})}, Attrs({{"noop_with_empty_axes", Int(1)}})), 0,
      {2, 3, 4});
}

TEST(OpRegistryShapeTest, UnknownOpAndInputCounts) {
  ExpectError(InferOneNode("NotAnOp", 13, {F({2})}), StatusCode::kUnsupported, "unsupported op");
  ExpectError(InferOneNode("Relu", 13, {F({2}), F({2})}), StatusCode::kInvalidInput, "2 inputs");
  ExpectError(InferOneNode("Add", 13, {Omitted(), F({2})}), StatusCode::kInvalidInput,
              "required input 0");
}

// ---- Resize and Upsample ---------------------------------------------------------------------

// A constant 1-D float32 tensor (Resize's scales).
In ConstFloats(const std::vector<float>& values) {
  const Dims dims = {static_cast<int64_t>(values.size())};
  Tensor t(DType::kFloat32, dims);
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return In{DType::kFloat32, dims, std::move(t)};
}

TEST(ResizeShapeTest, ScalesAndSizesAcrossOpsets) {
  // The output dims were checked against onnxruntime 1.32.
  EXPECT_OUT_DIMS(
      InferOneNode("Resize", 13, {F({1, 3, 10, 12}), Omitted(), ConstFloats({1, 1, 2, 2})}), 0,
      {1, 3, 20, 24});
  EXPECT_OUT_DIMS(
      InferOneNode("Resize", 19, {F({1, 3, 7, 9}), Omitted(), ConstFloats({1, 1, 1.7f, 2.3f})}), 0,
      {1, 3, 11, 20});
  // 10 * 0.7f is 7 in float (onnxruntime); onnx 1.23's shape inference says 6 (double).
  EXPECT_OUT_DIMS(
      InferOneNode("Resize", 19, {F({1, 3, 10, 10}), Omitted(), ConstFloats({1, 1, 0.7f, 1.5f})}),
      0, {1, 3, 7, 15});
  EXPECT_OUT_DIMS(
      InferOneNode("Resize", 13, {F({1, 3, 10, 12}), Omitted(), Omitted(), Const({1, 3, 25, 7})}),
      0, {1, 3, 25, 7});
  // Opset 11 with an empty scales (the spec's way of giving sizes instead), opset 10 with
  // scales as input 1, Upsample 9 (input) and 7 (attribute).
  EXPECT_OUT_DIMS(
      InferOneNode("Resize", 11,
                   {F({1, 2, 4, 4}), ConstFloats({}), ConstFloats({}), Const({1, 2, 3, 9})}),
      0, {1, 2, 3, 9});
  EXPECT_OUT_DIMS(InferOneNode("Resize", 10, {F({1, 2, 4, 5}), ConstFloats({1, 1, 2, 0.5f})}), 0,
                  {1, 2, 8, 2});
  EXPECT_OUT_DIMS(InferOneNode("Upsample", 9, {F({1, 2, 4, 5}), ConstFloats({1, 1, 2, 3})},
                               Attrs({{"mode", Str("linear")}})),
                  0, {1, 2, 8, 15});
  EXPECT_OUT_DIMS(
      InferOneNode("Upsample", 7, {F({2, 3})}, Attrs({{"scales", std::vector<float>{2, 1.5f}}})), 0,
      {4, 4});
  // Every mode is inferred alike; the type follows X (nearest copies any element type).
  auto cubic = InferOneNode("Resize", 19, {F({1, 1, 4, 4}), Omitted(), ConstFloats({1, 1, 2, 2})},
                            Attrs({{"mode", Str("cubic")}, {"exclude_outside", Int(1)}}));
  EXPECT_OUT_DIMS(cubic, 0, {1, 1, 8, 8});
  auto ints =
      InferOneNode("Resize", 13, {Typed(DType::kInt64, {2, 3}), Omitted(), ConstFloats({2, 2})});
  EXPECT_OUT_DIMS(ints, 0, {4, 6});
  EXPECT_EQ(ints.Out().dtype, DType::kInt64);
}

TEST(ResizeShapeTest, AxesAndKeepAspectRatio) {
  // opset 18: scales/sizes for the listed axes only, in their order, negative axes allowed.
  EXPECT_OUT_DIMS(InferOneNode("Resize", 18, {F({1, 2, 4, 4}), Omitted(), ConstFloats({3, 0.5f})},
                               Attrs({{"axes", Ints{3, 1}}})),
                  0, {1, 1, 4, 12});
  EXPECT_OUT_DIMS(
      InferOneNode("Resize", 19, {F({2, 3, 5, 7}), Omitted(), Omitted(), Const({3, 20})},
                   Attrs({{"axes", Ints{-1, 2}}})),
      0, {2, 3, 20, 3});
  // One scale for both axes: min(8/5, 8/7) or max, times the length, rounded half up.
  EXPECT_OUT_DIMS(
      InferOneNode("Resize", 18, {F({2, 3, 5, 7}), Omitted(), Omitted(), Const({8, 8})},
                   Attrs({{"axes", Ints{2, 3}}, {"keep_aspect_ratio_policy", Str("not_larger")}})),
      0, {2, 3, 6, 8});
  EXPECT_OUT_DIMS(
      InferOneNode("Resize", 18, {F({2, 3, 5, 7}), Omitted(), Omitted(), Const({8, 8})},
                   Attrs({{"axes", Ints{2, 3}}, {"keep_aspect_ratio_policy", Str("not_smaller")}})),
      0, {2, 3, 8, 11});
}

TEST(ResizeShapeTest, RefusalsNameTheProblem) {
  const In x = F({1, 3, 8, 8});
  const In scales = ConstFloats({1, 1, 2, 2});
  // Scales or sizes computed at run time: the output shape would be unknown.
  ExpectError(InferOneNode("Resize", 13, {x, Omitted(), F({4})}), StatusCode::kUnsupported,
              "input 'scales' is computed at run time");
  ExpectError(InferOneNode("Resize", 13, {x, Omitted(), Omitted(), Typed(DType::kInt64, {4})}),
              StatusCode::kUnsupported, "input 'sizes' is computed at run time");
  ExpectError(InferOneNode("Upsample", 9, {x, F({4})}), StatusCode::kUnsupported,
              "input 'scales' is computed at run time");
  ExpectError(InferOneNode("Resize", 13, {x, Omitted(), scales},
                           Attrs({{"coordinate_transformation_mode", Str("tf_crop_and_resize")}})),
              StatusCode::kUnsupported, "tf_crop_and_resize");
  ExpectError(InferOneNode("Resize", 18, {x, Omitted(), scales},
                           Attrs({{"mode", Str("linear")}, {"antialias", Int(1)}})),
              StatusCode::kUnsupported, "antialias=1");
  ExpectError(InferOneNode("Resize", 13, {Typed(DType::kInt64, {1, 3, 8, 8}), Omitted(), scales},
                           Attrs({{"mode", Str("linear")}})),
              StatusCode::kUnsupported, "int64");
  // Malformed nodes.
  ExpectError(InferOneNode("Resize", 13, {x, Omitted(), scales, Const({1, 3, 16, 16})}),
              StatusCode::kInvalidInput, "both scales and sizes");
  ExpectError(InferOneNode("Resize", 13, {x}), StatusCode::kInvalidInput,
              "neither scales nor sizes");
  ExpectError(InferOneNode("Resize", 13, {x, Omitted(), ConstFloats({2, 2})}),
              StatusCode::kInvalidInput, "scales has 2 values; expected 4");
  ExpectError(InferOneNode("Resize", 13, {x, Omitted(), ConstFloats({1, 1, 0, 2})}),
              StatusCode::kInvalidInput, "is not > 0");
  ExpectError(InferOneNode("Resize", 13, {x, Omitted(), ConstFloats({1, 1, 0.1f, 2})}),
              StatusCode::kInvalidInput, "would resize to 0");
  ExpectError(InferOneNode("Resize", 13, {x, Omitted(), scales}, Attrs({{"mode", Str("area")}})),
              StatusCode::kInvalidInput, "mode 'area'");
  ExpectError(
      InferOneNode("Resize", 13, {x, Omitted(), scales}, Attrs({{"nearest_mode", Str("nearest")}})),
      StatusCode::kInvalidInput, "nearest_mode 'nearest'");
  ExpectError(
      InferOneNode("Resize", 18, {x, Omitted(), scales},
                   Attrs({{"coordinate_transformation_mode", Str("half_pixel_symmetric")}})),
      StatusCode::kInvalidInput, "from opset 19");
  ExpectError(InferOneNode("Resize", 13, {x, Omitted(), scales},
                           Attrs({{"mode", Str("linear")}, {"exclude_outside", Int(1)}})),
              StatusCode::kInvalidInput, "exclude_outside");
  ExpectError(InferOneNode("Resize", 18, {x, Omitted(), scales},
                           Attrs({{"keep_aspect_ratio_policy", Str("not_larger")}})),
              StatusCode::kInvalidInput, "keep_aspect_ratio_policy applies to sizes");
  ExpectError(InferOneNode("Resize", 18, {x, Omitted(), ConstFloats({2, 2})},
                           Attrs({{"axes", Ints{2, -2}}})),
              StatusCode::kInvalidInput, "twice");
  ExpectError(InferOneNode("Upsample", 9, {x, ConstFloats({1, 1, 0.5f, 2})}),
              StatusCode::kInvalidInput, "below 1");
  ExpectError(InferOneNode("Upsample", 10, {x, scales}), StatusCode::kInvalidInput,
              "deprecated from opset 10");
  ExpectError(InferOneNode("Upsample", 7, {x}), StatusCode::kInvalidInput, "'scales' is required");
  // The error names the node and op (InferNode adds that context).
  const OneNode named = InferOneNode("Resize", 13, {x, Omitted(), F({4})});
  EXPECT_NE(named.status.message().find("node 'n' (Resize, opset 13)"), std::string::npos)
      << named.status.message();
}

// ---- Cost ------------------------------------------------------------------------------------

TEST(OpCostTest, ConvMatchesHandFormula) {
  // X [1,3,224,224], W [64,3,7,7], B [64], stride 2, pads 3 -> Y [1,64,112,112].
  auto one = InferOneNode("Conv", 13, {F({1, 3, 224, 224}), Weight({64, 3, 7, 7}), Weight({64})},
                          Attrs({{"strides", Ints{2, 2}}, {"pads", Ints{3, 3, 3, 3}}}));
  ASSERT_TRUE(one.status.ok()) << one.status.message();
  const double outputs = 1.0 * 64 * 112 * 112;
  const double flops = 2 * outputs * (3 * 7 * 7) + outputs;  // MACs·2 + bias
  const double bytes = 4.0 * (3 * 224 * 224 + 64 * 3 * 7 * 7 + 64 + 64 * 112 * 112);
  EXPECT_DOUBLE_EQ(one.Cost().flops, flops);
  EXPECT_DOUBLE_EQ(one.Cost().bytes_moved, bytes);
}

TEST(OpCostTest, GroupedConvWithFusedActivation) {
  // Cin 8, group 2 -> 4 input channels per group; Y [2,16,10,10]; no bias; fused Relu adds one
  // op per output element.
  AttributeMap attrs = Attrs({{"group", Int(2)}, {"pads", Ints{1, 1, 1, 1}}});
  SetFusedActivation(attrs, Activation{ActivationKind::kRelu});
  auto one = InferOneNode("Conv", 13, {F({2, 8, 10, 10}), Weight({16, 4, 3, 3})}, attrs);
  ASSERT_TRUE(one.status.ok()) << one.status.message();
  const double outputs = 2.0 * 16 * 10 * 10;
  EXPECT_DOUBLE_EQ(one.Cost().flops, 2 * outputs * (4 * 3 * 3) + outputs);
}

TEST(OpCostTest, MatmulPoolAndElementwise) {
  auto gemm = InferOneNode("Gemm", 13, {F({3, 4}), F({4, 5})});
  EXPECT_DOUBLE_EQ(gemm.Cost().flops, 2.0 * 3 * 5 * 4);
  EXPECT_DOUBLE_EQ(gemm.Cost().bytes_moved, 4.0 * (12 + 20 + 15));
  auto matmul = InferOneNode("MatMul", 13, {F({2, 1, 3, 4}), F({5, 4, 6})});
  EXPECT_DOUBLE_EQ(matmul.Cost().flops, 2.0 * (2 * 5) * 3 * 6 * 4);
  auto pool = InferOneNode(
      "MaxPool", 13, {F({1, 2, 6, 7})},
      Attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}));
  EXPECT_DOUBLE_EQ(pool.Cost().flops, (1.0 * 2 * 3 * 4) * 9);
  auto add = InferOneNode("Add", 13, {F({2, 1, 4}), F({3, 1})});
  EXPECT_DOUBLE_EQ(add.Cost().flops, 24);
  EXPECT_DOUBLE_EQ(add.Cost().bytes_moved, 4.0 * (8 + 3 + 24));
}

TEST(OpCostTest, GeluErfAndLayerNorm) {
  auto gelu = InferOneNode("Gelu", 20, {F({2, 3, 4})});
  EXPECT_DOUBLE_EQ(gelu.Cost().flops, 8.0 * 24);
  EXPECT_DOUBLE_EQ(gelu.Cost().bytes_moved, 4.0 * (24 + 24));
  EXPECT_DOUBLE_EQ(InferOneNode("Erf", 13, {F({5})}).Cost().flops, 5);
  // X [4, 16], Scale and B [16], Y: 7 ops per element; bytes of every tensor read or written.
  auto norm = InferOneNode("LayerNormalization", 17, {F({4, 16}), Weight({16}), Weight({16})});
  EXPECT_DOUBLE_EQ(norm.Cost().flops, 7.0 * 64);
  EXPECT_DOUBLE_EQ(norm.Cost().bytes_moved, 4.0 * (64 + 16 + 16 + 64));
}

TEST(OpCostTest, Resize) {
  // Nearest copies; linear reads 2 taps per resized axis, cubic 4: 2 flops per tap.
  auto scales = [] { return ConstFloats({1, 1, 2, 2}); };
  auto nearest = InferOneNode("Resize", 13, {F({1, 2, 3, 4}), Omitted(), scales()});
  EXPECT_DOUBLE_EQ(nearest.Cost().flops, 0);
  EXPECT_DOUBLE_EQ(nearest.Cost().bytes_moved, 4.0 * (24 + 4 + 96));
  auto linear = InferOneNode("Resize", 13, {F({1, 2, 3, 4}), Omitted(), scales()},
                             Attrs({{"mode", Str("linear")}}));
  EXPECT_DOUBLE_EQ(linear.Cost().flops, 2.0 * 4 * 96);
  auto cubic = InferOneNode("Resize", 13, {F({1, 2, 3, 4}), Omitted(), ConstFloats({1, 1, 1, 2})},
                            Attrs({{"mode", Str("cubic")}}));
  EXPECT_DOUBLE_EQ(cubic.Cost().flops, 2.0 * 4 * 48);
}

}  // namespace
}  // namespace ios
