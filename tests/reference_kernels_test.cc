// Small hand-checkable cases for every reference kernel and each opset-dependent form. The
// expected numbers were worked out by hand or with numpy/onnxruntime (noted where it matters),
// never copied from the kernels' own output.
#include "kernels/reference/reference_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ir/fused_activation.h"

namespace ios {
namespace {

// ---- helpers -------------------------------------------------------------------------------

Node MakeNode(const std::string& op_type, int64_t opset,
              std::vector<std::pair<std::string, AttributeValue>> attrs = {}) {
  Node node;
  node.name = "n";
  node.op_type = op_type;
  node.opset = opset;
  for (auto& [name, value] : attrs) node.attrs.Set(name, std::move(value));
  return node;
}

template <typename T>
Tensor Typed(DType dtype, const std::vector<T>& values, Dims dims) {
  Tensor t(dtype, std::move(dims));
  if (static_cast<int64_t>(values.size()) != t.num_elements()) {
    ADD_FAILURE() << "test bug: " << values.size() << " values for " << DimsToString(t.dims());
    return t;
  }
  if (t.num_bytes() > 0) std::memcpy(t.raw(), values.data(), t.num_bytes());
  return t;
}
Tensor F32(const std::vector<float>& values, Dims dims) {
  return Typed(DType::kFloat32, values, std::move(dims));
}
Tensor I64(const std::vector<int64_t>& values, Dims dims) {
  return Typed(DType::kInt64, values, std::move(dims));
}
Tensor I32(const std::vector<int32_t>& values, Dims dims) {
  return Typed(DType::kInt32, values, std::move(dims));
}
Tensor Bool(const std::vector<uint8_t>& values, Dims dims) {
  return Typed(DType::kBool, values, std::move(dims));
}

Status EvalStatus(const Node& node, const std::vector<const Tensor*>& inputs,
                  size_t num_outputs = 1) {
  std::vector<Tensor> outputs(num_outputs);
  return EvaluateReference(node, inputs, &outputs);
}

std::vector<Tensor> Eval(const Node& node, const std::vector<const Tensor*>& inputs,
                         size_t num_outputs = 1) {
  std::vector<Tensor> outputs(num_outputs);
  Status status = EvaluateReference(node, inputs, &outputs);
  EXPECT_TRUE(status.ok()) << status.message();
  return outputs;
}

void ExpectFloats(const Tensor& t, const Dims& dims, const std::vector<float>& values,
                  float tolerance = 1e-5f) {
  ASSERT_EQ(t.dtype(), DType::kFloat32);
  ASSERT_EQ(t.dims(), dims);
  ASSERT_EQ(t.num_elements(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_NEAR(t.data<float>()[i], values[i], tolerance) << "element " << i;
}

// Integer and bool tensors, compared exactly.
void ExpectInts(const Tensor& t, DType dtype, const Dims& dims,
                const std::vector<int64_t>& values) {
  ASSERT_EQ(t.dtype(), dtype);
  ASSERT_EQ(t.dims(), dims);
  ASSERT_EQ(t.num_elements(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(t.IntAt(i), values[i]) << "element " << i;
}

// ---- table ---------------------------------------------------------------------------------

TEST(ReferenceKernelTableTest, HasAKernelForEveryOpIosSupports) {
  for (const char* op : {"Conv",
                         "ConvTranspose",
                         "BatchNormalization",
                         "LayerNormalization",
                         "Erf",
                         "Gelu",
                         "Relu",
                         "LeakyRelu",
                         "Clip",
                         "Sigmoid",
                         "Tanh",
                         "HardSigmoid",
                         "HardSwish",
                         "Elu",
                         "Neg",
                         "Abs",
                         "Sqrt",
                         "Exp",
                         "Log",
                         "Floor",
                         "Ceil",
                         "Reciprocal",
                         "Not",
                         "Add",
                         "Sub",
                         "Mul",
                         "Div",
                         "Pow",
                         "Min",
                         "Max",
                         "Sum",
                         "Mean",
                         "Equal",
                         "Less",
                         "Greater",
                         "Where",
                         "MaxPool",
                         "AveragePool",
                         "GlobalAveragePool",
                         "GlobalMaxPool",
                         "Concat",
                         "Split",
                         "Slice",
                         "Reshape",
                         "Flatten",
                         "Transpose",
                         "Squeeze",
                         "Unsqueeze",
                         "Pad",
                         "Shape",
                         "Gather",
                         "Cast",
                         "ConstantOfShape",
                         "Range",
                         "Expand",
                         "Tile",
                         "Resize",
                         "Upsample",
                         "Identity",
                         "Dropout",
                         "Constant",
                         "Gemm",
                         "MatMul",
                         "Softmax",
                         "ReduceMean"}) {
    EXPECT_NE(FindReferenceKernel(op), nullptr) << op;
  }
  EXPECT_EQ(FindReferenceKernel("LSTM"), nullptr);
}

TEST(ReferenceKernelTableTest, UnknownOpIsUnsupported) {
  Tensor x = F32({1}, {1});
  Status status = EvalStatus(MakeNode("NoSuchOp", 13), {&x});
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
}

TEST(ReferenceKernelTableTest, EmptyOutputVectorIsSizedForTheCaller) {
  Tensor x = F32({-1, 2}, {2});
  std::vector<Tensor> outputs;
  ASSERT_TRUE(EvaluateReference(MakeNode("Relu", 14), {&x}, &outputs).ok());
  ASSERT_EQ(outputs.size(), 1u);
  ExpectFloats(outputs[0], {2}, {0, 2});
}

TEST(ReferenceKernelTableTest, WrongAttributeTypeIsInvalidInput) {
  Tensor x = F32({1, 2}, {1, 2});
  Status status = EvalStatus(MakeNode("Concat", 13, {{"axis", 1.5f}}), {&x, &x});
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
}

// ---- Conv, ConvTranspose -------------------------------------------------------------------

TEST(ReferenceConvTest, Conv2DWithBias) {
  Tensor x = F32({0, 1, 2, 3, 4, 5, 6, 7, 8}, {1, 1, 3, 3});
  Tensor w = F32({1, 1, 1, 1}, {1, 1, 2, 2});
  Tensor b = F32({1}, {1});
  auto out = Eval(MakeNode("Conv", 11), {&x, &w, &b});
  // Window sums 0+1+3+4, 1+2+4+5, 3+4+6+7, 4+5+7+8, plus the bias.
  ExpectFloats(out[0], {1, 1, 2, 2}, {9, 13, 21, 25});
}

TEST(ReferenceConvTest, Conv2DStridesAndPads) {
  Tensor x = F32({0, 1, 2, 3, 4, 5, 6, 7, 8}, {1, 1, 3, 3});
  Tensor w = F32(std::vector<float>(9, 1.f), {1, 1, 3, 3});
  auto out =
      Eval(MakeNode("Conv", 11, {{"pads", Dims{1, 1, 1, 1}}, {"strides", Dims{2, 2}}}), {&x, &w});
  // 3x3 windows centred on the four corners.
  ExpectFloats(out[0], {1, 1, 2, 2}, {8, 12, 20, 24});
}

TEST(ReferenceConvTest, Conv1DAutoPadSameUpperAndLower) {
  Tensor x = F32({1, 2, 3, 4}, {1, 1, 4});
  Tensor w = F32({1, 10}, {1, 1, 2});
  // One pad in total: SAME_UPPER puts it at the end, SAME_LOWER at the beginning (onnxruntime
  // agrees: [21 32 43 4] and [10 21 32 43]).
  auto upper = Eval(MakeNode("Conv", 11, {{"auto_pad", std::string("SAME_UPPER")}}), {&x, &w});
  ExpectFloats(upper[0], {1, 1, 4}, {21, 32, 43, 4});
  auto lower = Eval(MakeNode("Conv", 11, {{"auto_pad", std::string("SAME_LOWER")}}), {&x, &w});
  ExpectFloats(lower[0], {1, 1, 4}, {10, 21, 32, 43});
}

TEST(ReferenceConvTest, Conv1DValidWithStride) {
  Tensor x = F32({1, 2, 3, 4, 5}, {1, 1, 5});
  Tensor w = F32({1, 1, 1}, {1, 1, 3});
  auto out = Eval(MakeNode("Conv", 11, {{"auto_pad", std::string("VALID")}, {"strides", Dims{2}}}),
                  {&x, &w});
  ExpectFloats(out[0], {1, 1, 2}, {6, 12});
}

TEST(ReferenceConvTest, Conv1DDilation) {
  Tensor x = F32({1, 2, 3, 4, 5}, {1, 1, 5});
  Tensor w = F32({1, 1}, {1, 1, 2});
  auto out = Eval(MakeNode("Conv", 11, {{"dilations", Dims{2}}}), {&x, &w});
  ExpectFloats(out[0], {1, 1, 3}, {4, 6, 8});
}

TEST(ReferenceConvTest, GroupedAndDepthwiseWithMultiplier) {
  Tensor x = F32({2, 3}, {1, 2, 1, 1});
  Tensor w = F32({10, 100}, {2, 1, 1, 1});
  auto grouped = Eval(MakeNode("Conv", 11, {{"group", int64_t{2}}}), {&x, &w});
  ExpectFloats(grouped[0], {1, 2, 1, 1}, {20, 300});
  // Four output channels, two per input channel.
  Tensor w4 = F32({1, 2, 3, 4}, {4, 1, 1, 1});
  auto multiplier = Eval(MakeNode("Conv", 11, {{"group", int64_t{2}}}), {&x, &w4});
  ExpectFloats(multiplier[0], {1, 4, 1, 1}, {2, 4, 9, 12});
}

TEST(ReferenceConvTest, FusedActivationAppliesAfterBias) {
  Tensor x = F32({-1, 3}, {1, 1, 1, 2});
  Tensor w = F32({3}, {1, 1, 1, 1});
  Tensor b = F32({-1}, {1});
  Node relu = MakeNode("Conv", 11);
  SetFusedActivation(relu.attrs, Activation{ActivationKind::kRelu, 0.f, 0.f});
  ExpectFloats(Eval(relu, {&x, &w, &b})[0], {1, 1, 1, 2}, {0, 8});  // relu(-4), relu(8)
  Node relu6 = MakeNode("Conv", 11);
  SetFusedActivation(relu6.attrs, Activation{ActivationKind::kClip, 0.f, 6.f});
  ExpectFloats(Eval(relu6, {&x, &w, &b})[0], {1, 1, 1, 2}, {0, 6});
}

TEST(ReferenceConvTest, BadShapesAndTypesAreErrors) {
  Tensor x = F32({1, 2}, {1, 2, 1, 1});
  Tensor w = F32({1, 2, 3}, {1, 3, 1, 1});  // 3 input channels, the input has 2
  EXPECT_EQ(EvalStatus(MakeNode("Conv", 11), {&x, &w}).code(), StatusCode::kInvalidInput);
  // float64 runs (the float64 oracle); mixed or integer operands do not.
  Tensor xd = Typed<double>(DType::kFloat64, {1.5}, {1, 1, 1, 1});
  Tensor wd = Typed<double>(DType::kFloat64, {2}, {1, 1, 1, 1});
  std::vector<Tensor> out(1);
  ASSERT_TRUE(EvaluateReference(MakeNode("Conv", 11), {&xd, &wd}, &out).ok());
  EXPECT_EQ(out[0].dtype(), DType::kFloat64);
  EXPECT_EQ(out[0].data<double>()[0], 3.0);
  Tensor wf = F32({2}, {1, 1, 1, 1});
  EXPECT_EQ(EvalStatus(MakeNode("Conv", 11), {&xd, &wf}).code(), StatusCode::kUnsupported);
  Tensor xi = Typed<int64_t>(DType::kInt64, {1}, {1, 1, 1, 1});
  Tensor wi = Typed<int64_t>(DType::kInt64, {1}, {1, 1, 1, 1});
  EXPECT_EQ(EvalStatus(MakeNode("Conv", 11), {&xi, &wi}).code(), StatusCode::kUnsupported);
  Tensor big_w = F32(std::vector<float>(18, 1.f), {1, 2, 3, 3});
  Tensor small_x = F32({1, 2}, {1, 2, 1, 1});  // kernel larger than the input
  EXPECT_EQ(EvalStatus(MakeNode("Conv", 11), {&small_x, &big_w}).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(EvalStatus(MakeNode("Conv", 11), {&x, nullptr}).code(), StatusCode::kInvalidInput);
}

TEST(ReferenceConvTest, ConvTranspose1DStridePadsAndOutputPadding) {
  Tensor x = F32({1, 2}, {1, 1, 2});
  Tensor w = F32({1, 1, 1}, {1, 1, 3});
  // x0 covers outputs 0..2, x1 covers 2..4 (onnxruntime: [1 1 3 2 2]).
  ExpectFloats(Eval(MakeNode("ConvTranspose", 11, {{"strides", Dims{2}}}), {&x, &w})[0], {1, 1, 5},
               {1, 1, 3, 2, 2});
  ExpectFloats(Eval(MakeNode("ConvTranspose", 11, {{"strides", Dims{2}}, {"pads", Dims{1, 1}}}),
                    {&x, &w})[0],
               {1, 1, 3}, {1, 3, 2});
  ExpectFloats(
      Eval(MakeNode("ConvTranspose", 11, {{"strides", Dims{2}}, {"output_padding", Dims{1}}}),
           {&x, &w})[0],
      {1, 1, 6}, {1, 1, 3, 2, 2, 0});
}

TEST(ReferenceConvTest, ConvTranspose2DAndGroups) {
  Tensor x = F32({1, 2, 3, 4}, {1, 1, 2, 2});
  Tensor w = F32({1, 1, 1, 1}, {1, 1, 2, 2});
  ExpectFloats(Eval(MakeNode("ConvTranspose", 11), {&x, &w})[0], {1, 1, 3, 3},
               {1, 3, 2, 4, 10, 6, 3, 7, 4});
  Tensor x2 = F32({1, 2}, {1, 2, 1, 1});
  Tensor w2 = F32({3, 4}, {2, 1, 1, 1});
  Tensor b2 = F32({1, 1}, {2});
  ExpectFloats(Eval(MakeNode("ConvTranspose", 11, {{"group", int64_t{2}}}), {&x2, &w2, &b2})[0],
               {1, 2, 1, 1}, {4, 9});
}

TEST(ReferenceConvTest, ConvTransposeOutputShapeLargerThanFullPadsAtTheEnd) {
  Tensor x = F32({1, 2}, {1, 1, 2});
  Tensor w = F32({1, 1, 1}, {1, 1, 3});
  // The full result has 5 elements; asking for 6 appends a zero (ONNX's reference agrees).
  ExpectFloats(
      Eval(MakeNode("ConvTranspose", 11, {{"strides", Dims{2}}, {"output_shape", Dims{6}}}),
           {&x, &w})[0],
      {1, 1, 6}, {1, 1, 3, 2, 2, 0});
}

// ---- BatchNormalization --------------------------------------------------------------------

TEST(ReferenceNormalizationTest, BatchNormalizationInference) {
  Tensor x = F32({1, 2, 3, 4}, {1, 2, 1, 2});
  Tensor scale = F32({1, 2}, {2});
  Tensor bias = F32({0, 1}, {2});
  Tensor mean = F32({1, 3}, {2});
  Tensor var = F32({4, 1}, {2});
  auto out = Eval(MakeNode("BatchNormalization", 15, {{"epsilon", 0.f}}),
                  {&x, &scale, &bias, &mean, &var});
  // Channel 0: (x - 1) / 2; channel 1: 2 * (x - 3) + 1.
  ExpectFloats(out[0], {1, 2, 1, 2}, {0, 0.5f, 1, 3});
}

TEST(ReferenceNormalizationTest, TrainingModeUsesTheBatchStatistics) {
  // N = 2, C = 2: channel 0 holds 1 and 3 (mean 2, variance 1), channel 1 holds 2 and 6 (mean 4,
  // variance 4).
  Tensor x = F32({1, 2, 3, 6}, {2, 2});
  Tensor scale = F32({1, 2}, {2});
  Tensor bias = F32({0, 1}, {2});
  Tensor mean = F32({0, 0}, {2});
  Tensor var = F32({1, 1}, {2});
  auto out = Eval(MakeNode("BatchNormalization", 15,
                           {{"training_mode", int64_t{1}}, {"epsilon", 0.f}, {"momentum", 0.5f}}),
                  {&x, &scale, &bias, &mean, &var}, 3);
  ExpectFloats(out[0], {2, 2}, {-1, -1, 1, 3});
  // Running statistics: given · momentum + batch · (1 − momentum).
  ExpectFloats(out[1], {2}, {1, 2});
  ExpectFloats(out[2], {2}, {1, 2.5f});
}

TEST(ReferenceNormalizationTest, TrainingModeOtherThan0Or1IsInvalid) {
  Tensor x = F32({1, 2}, {1, 2});
  Tensor p = F32({1, 1}, {2});
  Status status = EvalStatus(MakeNode("BatchNormalization", 15, {{"training_mode", int64_t{2}}}),
                             {&x, &p, &p, &p, &p});
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
}

// ---- Mod and ScatterND -----------------------------------------------------------------------

TEST(ReferenceModTest, SignFollowsTheDivisorOrTheDividend) {
  Tensor a = Typed<int64_t>(DType::kInt64, {-7, 7, -7, 7}, {4});
  Tensor b = Typed<int64_t>(DType::kInt64, {3, -3, -3, 3}, {4});
  auto floored = Eval(MakeNode("Mod", 13), {&a, &b});
  EXPECT_EQ(floored[0].ToInt64Vector(), (std::vector<int64_t>{2, -2, -1, 1}));
  auto truncated = Eval(MakeNode("Mod", 13, {{"fmod", int64_t{1}}}), {&a, &b});
  EXPECT_EQ(truncated[0].ToInt64Vector(), (std::vector<int64_t>{-1, 1, -1, 1}));
  Tensor zero = Typed<int64_t>(DType::kInt64, {0}, {1});
  EXPECT_EQ(EvalStatus(MakeNode("Mod", 13), {&a, &zero}).code(), StatusCode::kInvalidInput);
  Tensor x = F32({-4.5f, 4.5f}, {2});
  Tensor y = F32({2, 2}, {2});
  ExpectFloats(Eval(MakeNode("Mod", 13, {{"fmod", int64_t{1}}}), {&x, &y})[0], {2}, {-0.5f, 0.5f});
  ExpectFloats(Eval(MakeNode("Mod", 13), {&x, &y})[0], {2}, {1.5f, 0.5f});
}

TEST(ReferenceScatterNDTest, ReplacesOrCombinesSlices) {
  Tensor data = F32({1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor rows = Typed<int64_t>(DType::kInt64, {2, -3}, {2, 1});  // rows 2 and 0
  Tensor updates = F32({10, 20, 30, 40}, {2, 2});
  ExpectFloats(Eval(MakeNode("ScatterND", 16), {&data, &rows, &updates})[0], {3, 2},
               {30, 40, 3, 4, 10, 20});
  ExpectFloats(Eval(MakeNode("ScatterND", 16, {{"reduction", std::string("add")}}),
                    {&data, &rows, &updates})[0],
               {3, 2}, {31, 42, 3, 4, 15, 26});
  Tensor element = Typed<int64_t>(DType::kInt64, {1, 1}, {1, 2});
  Tensor value = F32({-1}, {1});
  ExpectFloats(Eval(MakeNode("ScatterND", 18, {{"reduction", std::string("min")}}),
                    {&data, &element, &value})[0],
               {3, 2}, {1, 2, 3, -1, 5, 6});
  Tensor outside = Typed<int64_t>(DType::kInt64, {3, 0}, {2, 1});
  EXPECT_EQ(EvalStatus(MakeNode("ScatterND", 16), {&data, &outside, &updates}).code(),
            StatusCode::kInvalidInput);
}

TEST(ReferenceNormalizationTest, LayerNormalizationLastAxisWithScaleAndBias) {
  // mean 2.5, variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25, 1 / sqrt(1.25) = 0.894427.
  Tensor x = F32({1, 2, 3, 4}, {1, 4});
  Tensor scale = F32({1, 2, 1, 2}, {4});
  Tensor bias = F32({0, 0, 1, 1}, {4});
  auto out = Eval(MakeNode("LayerNormalization", 17, {{"epsilon", 0.f}}), {&x, &scale, &bias}, 3);
  ExpectFloats(out[0], {1, 4}, {-1.341641f, -0.894427f, 1.447214f, 3.683282f});
  ExpectFloats(out[1], {1, 1}, {2.5f});
  ExpectFloats(out[2], {1, 1}, {0.894427f});
  // Without B; epsilon 0.75 makes the variance 2: 1 / sqrt(2) = 0.707107.
  auto no_bias =
      Eval(MakeNode("LayerNormalization", 17, {{"epsilon", 0.75f}}), {&x, &scale, nullptr});
  ExpectFloats(no_bias[0], {1, 4}, {-1.06066f, -0.707107f, 0.353553f, 2.12132f});
}

TEST(ReferenceNormalizationTest, LayerNormalizationAxesAndBroadcastScale) {
  // axis 0 of [2, 2]: one row of 4; mean 3, variance 5; a scalar scale of 2.
  Tensor x = F32({0, 2, 4, 6}, {2, 2});
  Tensor two = F32({2}, {});
  auto all = Eval(MakeNode("LayerNormalization", 17, {{"axis", int64_t{0}}, {"epsilon", 0.f}}),
                  {&x, &two}, 3);
  ExpectFloats(all[0], {2, 2}, {-2.683282f, -0.894427f, 0.894427f, 2.683282f});
  ExpectFloats(all[1], {1, 1}, {3});
  // axis 1 of [1, 2, 2] with a [2, 1] scale: the first two elements times 1, the others times 10.
  Tensor y = F32({1, 3, 5, 7}, {1, 2, 2});
  Tensor per_row = F32({1, 10}, {2, 1});
  auto broadcast = Eval(
      MakeNode("LayerNormalization", 17, {{"axis", int64_t{1}}, {"epsilon", 0.f}}), {&y, &per_row});
  ExpectFloats(broadcast[0], {1, 2, 2}, {-1.341641f, -0.447214f, 4.472136f, 13.416408f});
  // Two rows of the last axis (axis -1 by default): each normalised on its own.
  Tensor rows = F32({1, 3, 10, 30}, {2, 2});
  Tensor ones = F32({1, 1}, {2});
  ExpectFloats(Eval(MakeNode("LayerNormalization", 17, {{"epsilon", 0.f}}), {&rows, &ones})[0],
               {2, 2}, {-1, 1, -1, 1});
}

TEST(ReferenceNormalizationTest, LayerNormalizationErrors) {
  Tensor x = F32({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor wrong = F32({1, 2}, {2});
  EXPECT_EQ(EvalStatus(MakeNode("LayerNormalization", 17), {&x, &wrong}).code(),
            StatusCode::kInvalidInput);
  Tensor scale = F32({1, 1, 1}, {3});
  EXPECT_EQ(
      EvalStatus(MakeNode("LayerNormalization", 17, {{"stash_type", int64_t{11}}}), {&x, &scale})
          .code(),
      StatusCode::kUnsupported);
  EXPECT_EQ(
      EvalStatus(MakeNode("LayerNormalization", 17, {{"axis", int64_t{2}}}), {&x, &scale}).code(),
      StatusCode::kInvalidInput);
  Tensor xi = I64({1, 2, 3}, {3});
  Tensor si = I64({1, 1, 1}, {3});
  EXPECT_EQ(EvalStatus(MakeNode("LayerNormalization", 17), {&xi, &si}).code(),
            StatusCode::kUnsupported);
}

// ---- activations and unary math ------------------------------------------------------------

TEST(ReferenceActivationTest, ErfAndGelu) {
  // erf(1) = 0.8427008, erf(-0.5) = -0.5204999 (tables).
  Tensor x = F32({0, 1, -0.5f}, {3});
  ExpectFloats(Eval(MakeNode("Erf", 13), {&x})[0], {3}, {0, 0.8427008f, -0.5204999f}, 1e-6f);
  // ONNX's documented Gelu outputs for -1, 0, 1.
  Tensor g = F32({-1, 0, 1}, {3});
  ExpectFloats(Eval(MakeNode("Gelu", 20), {&g})[0], {3}, {-0.15865526f, 0, 0.84134474f}, 1e-6f);
  ExpectFloats(Eval(MakeNode("Gelu", 20, {{"approximate", std::string("tanh")}}), {&g})[0], {3},
               {-0.158808f, 0, 0.841192f}, 1e-6f);
  Tensor d = Typed<double>(DType::kFloat64, {1.0}, {1});
  auto gd = Eval(MakeNode("Gelu", 20), {&d});
  ASSERT_EQ(gd[0].dtype(), DType::kFloat64);
  EXPECT_NEAR(gd[0].data<double>()[0], 0.8413447460685429, 1e-15);
  EXPECT_EQ(EvalStatus(MakeNode("Gelu", 20, {{"approximate", std::string("exact")}}), {&g}).code(),
            StatusCode::kInvalidInput);
}

TEST(ReferenceActivationTest, ReluFloatAndInt) {
  Tensor x = F32({-1, 0, 2}, {3});
  ExpectFloats(Eval(MakeNode("Relu", 14), {&x})[0], {3}, {0, 0, 2});
  Tensor xi = I64({-3, 4}, {2});
  ExpectInts(Eval(MakeNode("Relu", 14), {&xi})[0], DType::kInt64, {2}, {0, 4});
}

TEST(ReferenceActivationTest, LeakyReluDefaultAndAlpha) {
  Tensor x = F32({-100, 5}, {2});
  ExpectFloats(Eval(MakeNode("LeakyRelu", 16), {&x})[0], {2}, {-1, 5});
  ExpectFloats(Eval(MakeNode("LeakyRelu", 16, {{"alpha", 0.5f}}), {&x})[0], {2}, {-50, 5});
}

TEST(ReferenceActivationTest, ClipAttributesBeforeOpset11) {
  Tensor x = F32({-2, 0.5f, 3}, {3});
  ExpectFloats(Eval(MakeNode("Clip", 6, {{"min", -1.f}, {"max", 1.f}}), {&x})[0], {3},
               {-1, 0.5f, 1});
  ExpectFloats(Eval(MakeNode("Clip", 6, {{"max", 0.f}}), {&x})[0], {3}, {-2, 0, 0});
}

TEST(ReferenceActivationTest, ClipInputsSinceOpset11) {
  Tensor x = F32({-2, 0.5f, 3}, {3});
  Tensor lo = F32({0}, {});
  Tensor hi = F32({1}, {});
  ExpectFloats(Eval(MakeNode("Clip", 13), {&x, &lo, nullptr})[0], {3}, {0, 0.5f, 3});
  ExpectFloats(Eval(MakeNode("Clip", 13), {&x, nullptr, &hi})[0], {3}, {-2, 0.5f, 1});
  ExpectFloats(Eval(MakeNode("Clip", 13), {&x})[0], {3}, {-2, 0.5f, 3});
  // min > max: every value becomes max (onnxruntime: [1 1 1]).
  Tensor two = F32({2}, {});
  ExpectFloats(Eval(MakeNode("Clip", 13), {&x, &two, &hi})[0], {3}, {1, 1, 1});
  Tensor xi = I64({-5, 0, 5}, {3});
  Tensor lo_i = I64({-1}, {});
  Tensor hi_i = I64({1}, {});
  ExpectInts(Eval(MakeNode("Clip", 13), {&xi, &lo_i, &hi_i})[0], DType::kInt64, {3}, {-1, 0, 1});
}

TEST(ReferenceActivationTest, SigmoidTanh) {
  const float ln3 = std::log(3.f);
  const float ln2 = std::log(2.f);
  Tensor x = F32({0, ln3}, {2});
  ExpectFloats(Eval(MakeNode("Sigmoid", 13), {&x})[0], {2}, {0.5f, 0.75f});  // 1 / (1 + 1/3)
  Tensor t = F32({0, ln2}, {2});
  ExpectFloats(Eval(MakeNode("Tanh", 13), {&t})[0], {2}, {0, 0.6f});  // (2 - 1/2) / (2 + 1/2)
}

TEST(ReferenceActivationTest, HardSigmoidHardSwishElu) {
  Tensor x = F32({-5, 0, 1, 5}, {4});
  ExpectFloats(Eval(MakeNode("HardSigmoid", 6), {&x})[0], {4}, {0, 0.5f, 0.7f, 1});
  ExpectFloats(Eval(MakeNode("HardSigmoid", 6, {{"alpha", 0.5f}, {"beta", 0.25f}}), {&x})[0], {4},
               {0, 0.25f, 0.75f, 1});
  Tensor s = F32({-4, -1, 0, 1, 4}, {5});
  ExpectFloats(Eval(MakeNode("HardSwish", 14), {&s})[0], {5}, {0, -1.f / 3.f, 0, 2.f / 3.f, 4});
  Tensor e = F32({-std::log(2.f), 2}, {2});
  ExpectFloats(Eval(MakeNode("Elu", 6), {&e})[0], {2}, {-0.5f, 2});
  ExpectFloats(Eval(MakeNode("Elu", 6, {{"alpha", 2.f}}), {&e})[0], {2}, {-1, 2});
}

TEST(ReferenceActivationTest, UnaryMath) {
  Tensor ni = I32({3, -4}, {2});
  ExpectInts(Eval(MakeNode("Neg", 13), {&ni})[0], DType::kInt32, {2}, {-3, 4});
  Tensor ai = I64({-7, 7}, {2});
  ExpectInts(Eval(MakeNode("Abs", 13), {&ai})[0], DType::kInt64, {2}, {7, 7});
  Tensor af = F32({-1.5f, 2}, {2});
  ExpectFloats(Eval(MakeNode("Abs", 13), {&af})[0], {2}, {1.5f, 2});
  Tensor sq = F32({4, 9}, {2});
  ExpectFloats(Eval(MakeNode("Sqrt", 13), {&sq})[0], {2}, {2, 3});
  Tensor ex = F32({0, std::log(2.f)}, {2});
  ExpectFloats(Eval(MakeNode("Exp", 13), {&ex})[0], {2}, {1, 2});
  Tensor lg = F32({1, std::exp(1.f)}, {2});
  ExpectFloats(Eval(MakeNode("Log", 13), {&lg})[0], {2}, {0, 1});
  Tensor fc = F32({-1.5f, 1.5f}, {2});
  ExpectFloats(Eval(MakeNode("Floor", 13), {&fc})[0], {2}, {-2, 1});
  ExpectFloats(Eval(MakeNode("Ceil", 13), {&fc})[0], {2}, {-1, 2});
  Tensor rc = F32({4, -0.5f}, {2});
  ExpectFloats(Eval(MakeNode("Reciprocal", 13), {&rc})[0], {2}, {0.25f, -2});
  Tensor b = Bool({1, 0}, {2});
  ExpectInts(Eval(MakeNode("Not", 1), {&b})[0], DType::kBool, {2}, {0, 1});
  Tensor d = Typed<double>(DType::kFloat64, {16}, {1});
  auto sqrt_d = Eval(MakeNode("Sqrt", 13), {&d});
  ASSERT_EQ(sqrt_d[0].dtype(), DType::kFloat64);
  EXPECT_EQ(sqrt_d[0].data<double>()[0], 4.0);
}

TEST(ReferenceActivationTest, UnsupportedTypesAreReported) {
  Tensor xi = I64({4}, {1});
  EXPECT_EQ(EvalStatus(MakeNode("Sqrt", 13), {&xi}).code(), StatusCode::kUnsupported);
  EXPECT_EQ(EvalStatus(MakeNode("Sigmoid", 13), {&xi}).code(), StatusCode::kUnsupported);
  Tensor f = F32({1}, {1});
  EXPECT_EQ(EvalStatus(MakeNode("Not", 1), {&f}).code(), StatusCode::kInvalidInput);
}

// ---- elementwise ---------------------------------------------------------------------------

TEST(ReferenceElementwiseTest, AddBroadcasting) {
  Tensor a = F32({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor row = F32({10, 20, 30}, {3});
  ExpectFloats(Eval(MakeNode("Add", 14), {&a, &row})[0], {2, 3}, {11, 22, 33, 14, 25, 36});
  Tensor col = F32({1, 2}, {2, 1});
  Tensor row2 = F32({10, 20, 30}, {1, 3});
  ExpectFloats(Eval(MakeNode("Add", 14), {&col, &row2})[0], {2, 3}, {11, 21, 31, 12, 22, 32});
}

TEST(ReferenceElementwiseTest, IntegerArithmeticIsExact) {
  Tensor a = I64({5, 7}, {2});
  Tensor two = I64({2}, {});
  ExpectInts(Eval(MakeNode("Sub", 14), {&a, &two})[0], DType::kInt64, {2}, {3, 5});
  ExpectInts(Eval(MakeNode("Mul", 14), {&a, &two})[0], DType::kInt64, {2}, {10, 14});
  Tensor big = I64({int64_t{1} << 53, 3}, {2});
  Tensor one = I64({1}, {1});
  // 2^53 + 1 is not representable in double; int64 must keep it.
  ExpectInts(Eval(MakeNode("Add", 14), {&big, &one})[0], DType::kInt64, {2},
             {(int64_t{1} << 53) + 1, 4});
  Tensor ai = I32({3, -4}, {2});
  Tensor bi = I32({5, 6}, {2});
  ExpectInts(Eval(MakeNode("Mul", 14), {&ai, &bi})[0], DType::kInt32, {2}, {15, -24});
}

TEST(ReferenceElementwiseTest, DivFloatAndTruncatingIntegerDiv) {
  Tensor a = F32({1, 3}, {2});
  Tensor b = F32({2, 4}, {2});
  ExpectFloats(Eval(MakeNode("Div", 14), {&a, &b})[0], {2}, {0.5f, 0.75f});
  // onnxruntime: int64 Div truncates toward zero, like C.
  Tensor ai = I64({-7, 7, -7, 7}, {4});
  Tensor bi = I64({2, 2, -2, -2}, {4});
  ExpectInts(Eval(MakeNode("Div", 14), {&ai, &bi})[0], DType::kInt64, {4}, {-3, 3, 3, -3});
  Tensor zero = I64({0}, {1});
  EXPECT_EQ(EvalStatus(MakeNode("Div", 14), {&ai, &zero}).code(), StatusCode::kInvalidInput);
}

TEST(ReferenceElementwiseTest, PowMixedTypes) {
  Tensor a = F32({2, 3}, {2});
  Tensor b = F32({3, 0.5f}, {2});
  ExpectFloats(Eval(MakeNode("Pow", 15), {&a, &b})[0], {2}, {8, std::sqrt(3.f)});
  Tensor ai = I64({2, 3}, {2});
  Tensor two = F32({2}, {});
  ExpectInts(Eval(MakeNode("Pow", 15), {&ai, &two})[0], DType::kInt64, {2}, {4, 9});
  Tensor e = I64({2}, {});
  ExpectFloats(Eval(MakeNode("Pow", 15), {&a, &e})[0], {2}, {4, 9});
}

TEST(ReferenceElementwiseTest, VariadicMinMaxSumMean) {
  Tensor a = F32({1, 5, 3}, {3});
  Tensor b = F32({4, 2, 6}, {3});
  Tensor c = F32({2}, {1});
  ExpectFloats(Eval(MakeNode("Min", 13), {&a, &b, &c})[0], {3}, {1, 2, 2});
  ExpectFloats(Eval(MakeNode("Max", 13), {&a, &b, &c})[0], {3}, {4, 5, 6});
  ExpectFloats(Eval(MakeNode("Sum", 13), {&a, &b, &c})[0], {3}, {7, 9, 11});
  ExpectFloats(Eval(MakeNode("Mean", 13), {&a, &b, &c})[0], {3}, {7.f / 3, 3, 11.f / 3});
  ExpectFloats(Eval(MakeNode("Sum", 13), {&a})[0], {3}, {1, 5, 3});
  Tensor ai = I64({1, 9}, {2});
  Tensor bi = I64({4}, {1});
  ExpectInts(Eval(MakeNode("Max", 13), {&ai, &bi})[0], DType::kInt64, {2}, {4, 9});
}

TEST(ReferenceElementwiseTest, Comparisons) {
  Tensor a = I64({1, 2, 3}, {3});
  Tensor b = I64({1, 0, 3}, {3});
  ExpectInts(Eval(MakeNode("Equal", 13), {&a, &b})[0], DType::kBool, {3}, {1, 0, 1});
  Tensor ba = Bool({1, 0}, {2});
  Tensor bb = Bool({1}, {1});
  ExpectInts(Eval(MakeNode("Equal", 13), {&ba, &bb})[0], DType::kBool, {2}, {1, 0});
  Tensor f = F32({1, 2, 3, 4}, {2, 2});
  Tensor three = F32({2.5f}, {});
  ExpectInts(Eval(MakeNode("Less", 13), {&f, &three})[0], DType::kBool, {2, 2}, {1, 1, 0, 0});
  ExpectInts(Eval(MakeNode("Greater", 13), {&f, &three})[0], DType::kBool, {2, 2}, {0, 0, 1, 1});
}

TEST(ReferenceElementwiseTest, WhereBroadcasting) {
  Tensor cond = Bool({1, 0, 0, 1}, {2, 2});
  Tensor x = F32({1, 2, 3, 4}, {2, 2});
  Tensor y = F32({9}, {});
  ExpectFloats(Eval(MakeNode("Where", 16), {&cond, &x, &y})[0], {2, 2}, {1, 9, 9, 4});
  Tensor cond_col = Bool({1, 0}, {2, 1});
  Tensor xi = I64({1, 2}, {1, 2});
  Tensor yi = I64({-1, -2}, {1, 2});
  ExpectInts(Eval(MakeNode("Where", 16), {&cond_col, &xi, &yi})[0], DType::kInt64, {2, 2},
             {1, 2, -1, -2});
}

TEST(ReferenceElementwiseTest, BadOperandsAreErrors) {
  Tensor a = F32({1, 2, 3}, {3});
  Tensor b = F32({1, 2}, {2});
  EXPECT_EQ(EvalStatus(MakeNode("Add", 14), {&a, &b}).code(), StatusCode::kInvalidInput);
  Tensor i = I64({1, 2, 3}, {3});
  EXPECT_EQ(EvalStatus(MakeNode("Add", 14), {&a, &i}).code(), StatusCode::kInvalidInput);
  Tensor h(DType::kFloat16, {3});
  EXPECT_EQ(EvalStatus(MakeNode("Add", 14), {&h, &h}).code(), StatusCode::kUnsupported);
}

// ---- pooling -------------------------------------------------------------------------------

TEST(ReferencePoolTest, MaxPoolStridesAndPads) {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i);
  Tensor x = F32(v, {1, 1, 4, 4});
  ExpectFloats(
      Eval(MakeNode("MaxPool", 12, {{"kernel_shape", Dims{2, 2}}, {"strides", Dims{2, 2}}}),
           {&x})[0],
      {1, 1, 2, 2}, {5, 7, 13, 15});
  Tensor x3 = F32({0, 1, 2, 3, 4, 5, 6, 7, 8}, {1, 1, 3, 3});
  ExpectFloats(
      Eval(MakeNode("MaxPool", 12, {{"kernel_shape", Dims{3, 3}}, {"pads", Dims{1, 1, 1, 1}}}),
           {&x3})[0],
      {1, 1, 3, 3}, {4, 5, 5, 7, 8, 8, 7, 8, 8});
}

TEST(ReferencePoolTest, MaxPoolCeilModeAutoPadAndDilations) {
  Tensor x = F32({1, 2, 3, 4, 5}, {1, 1, 5});
  ExpectFloats(
      Eval(MakeNode("MaxPool", 12,
                    {{"kernel_shape", Dims{2}}, {"strides", Dims{2}}, {"ceil_mode", int64_t{1}}}),
           {&x})[0],
      {1, 1, 3}, {2, 4, 5});
  ExpectFloats(
      Eval(MakeNode("MaxPool", 12, {{"kernel_shape", Dims{2}}, {"strides", Dims{2}}}), {&x})[0],
      {1, 1, 2}, {2, 4});
  Tensor y = F32({1, 3, 2, 4}, {1, 1, 4});
  ExpectFloats(Eval(MakeNode("MaxPool", 12,
                             {{"kernel_shape", Dims{2}}, {"auto_pad", std::string("SAME_UPPER")}}),
                    {&y})[0],
               {1, 1, 4}, {3, 3, 4, 4});
  ExpectFloats(Eval(MakeNode("MaxPool", 12,
                             {{"kernel_shape", Dims{2}}, {"auto_pad", std::string("SAME_LOWER")}}),
                    {&y})[0],
               {1, 1, 4}, {1, 3, 3, 4});
  Tensor z = F32({5, 1, 4, 2, 3}, {1, 1, 5});
  ExpectFloats(
      Eval(MakeNode("MaxPool", 12, {{"kernel_shape", Dims{2}}, {"dilations", Dims{2}}}), {&z})[0],
      {1, 1, 3}, {5, 2, 4});
}

TEST(ReferencePoolTest, MaxPoolIndicesRowAndColumnMajor) {
  Tensor x = F32({1, 4, 3, 2}, {1, 1, 2, 2});
  auto row = Eval(MakeNode("MaxPool", 12, {{"kernel_shape", Dims{2, 2}}}), {&x}, 2);
  ExpectFloats(row[0], {1, 1, 1, 1}, {4});
  ExpectInts(row[1], DType::kInt64, {1, 1, 1, 1}, {1});
  auto col =
      Eval(MakeNode("MaxPool", 12, {{"kernel_shape", Dims{2, 2}}, {"storage_order", int64_t{1}}}),
           {&x}, 2);
  ExpectInts(col[1], DType::kInt64, {1, 1, 1, 1}, {2});  // onnxruntime: 2
}

TEST(ReferencePoolTest, MaxPoolUint8AndMissingKernelShape) {
  Tensor x = Typed<uint8_t>(DType::kUint8, {1, 200, 3, 4}, {1, 1, 4});
  ExpectInts(
      Eval(MakeNode("MaxPool", 12, {{"kernel_shape", Dims{2}}, {"strides", Dims{2}}}), {&x})[0],
      DType::kUint8, {1, 1, 2}, {200, 4});
  EXPECT_EQ(EvalStatus(MakeNode("MaxPool", 12), {&x}).code(), StatusCode::kInvalidInput);
}

TEST(ReferencePoolTest, AveragePoolCountIncludePadWithCeilMode) {
  // Values from onnxruntime: x = 1..6, kernel 3, stride 2, pads 1/1, ceil_mode. The last
  // window [5, 7] runs past the end pad, so with count_include_pad it divides by 2.
  Tensor x = F32({1, 2, 3, 4, 5, 6}, {1, 1, 6});
  auto make = [](int64_t count_include_pad, Dims pads) {
    return MakeNode("AveragePool", 11,
                    {{"kernel_shape", Dims{3}},
                     {"strides", Dims{2}},
                     {"pads", pads},
                     {"ceil_mode", int64_t{1}},
                     {"count_include_pad", count_include_pad}});
  };
  ExpectFloats(Eval(make(0, {1, 1}), {&x})[0], {1, 1, 4}, {1.5f, 3, 5, 6});
  ExpectFloats(Eval(make(1, {1, 1}), {&x})[0], {1, 1, 4}, {1, 3, 5, 3});
  // pads 0/2: ceil gives 4 windows, but the 4th would start past the input: 3 remain.
  ExpectFloats(Eval(make(0, {0, 2}), {&x})[0], {1, 1, 3}, {2, 4, 5.5f});
  ExpectFloats(Eval(make(1, {0, 2}), {&x})[0], {1, 1, 3}, {2, 4, 11.f / 3});
}

TEST(ReferencePoolTest, AveragePool2DCountIncludePad) {
  std::vector<float> v(25);
  for (int i = 0; i < 25; ++i) v[i] = static_cast<float>(i + 1);
  Tensor x = F32(v, {1, 1, 5, 5});
  // onnxruntime, kernel 3x3, stride 2, pads 1, ceil_mode, count_include_pad.
  auto out = Eval(MakeNode("AveragePool", 11,
                           {{"kernel_shape", Dims{3, 3}},
                            {"strides", Dims{2, 2}},
                            {"pads", Dims{1, 1, 1, 1}},
                            {"ceil_mode", int64_t{1}},
                            {"count_include_pad", int64_t{1}}}),
                  {&x});
  ExpectFloats(out[0], {1, 1, 3, 3},
               {1.7777778f, 3.6666667f, 3.1111112f, 7.6666665f, 13, 9.666667f, 8.444445f,
                13.666667f, 9.777778f});
  auto excluded = Eval(
      MakeNode("AveragePool", 11,
               {{"kernel_shape", Dims{3, 3}}, {"strides", Dims{2, 2}}, {"pads", Dims{1, 1, 1, 1}}}),
      {&x});
  ExpectFloats(excluded[0], {1, 1, 3, 3}, {4, 5.5f, 7, 11.5f, 13, 14.5f, 19, 20.5f, 22});
}

TEST(ReferencePoolTest, GlobalPools) {
  Tensor x = F32({1, 2, 3, 4, 5, 6, 7, 9}, {1, 2, 2, 2});
  ExpectFloats(Eval(MakeNode("GlobalAveragePool", 1), {&x})[0], {1, 2, 1, 1}, {2.5f, 6.75f});
  ExpectFloats(Eval(MakeNode("GlobalMaxPool", 1), {&x})[0], {1, 2, 1, 1}, {4, 9});
}

// ---- tensor ops ----------------------------------------------------------------------------

TEST(ReferenceTensorTest, Concat) {
  Tensor a = F32({1, 2, 3, 4}, {2, 2});
  Tensor b = F32({5, 6}, {2, 1});
  ExpectFloats(Eval(MakeNode("Concat", 13, {{"axis", int64_t{1}}}), {&a, &b})[0], {2, 3},
               {1, 2, 5, 3, 4, 6});
  ExpectFloats(Eval(MakeNode("Concat", 13, {{"axis", int64_t{-1}}}), {&a, &b})[0], {2, 3},
               {1, 2, 5, 3, 4, 6});
  Tensor s1 = I64({1, 3}, {2});
  Tensor s2 = I64({-1}, {1});
  ExpectInts(Eval(MakeNode("Concat", 13, {{"axis", int64_t{0}}}), {&s1, &s2})[0], DType::kInt64,
             {3}, {1, 3, -1});
  EXPECT_EQ(EvalStatus(MakeNode("Concat", 13, {{"axis", int64_t{0}}}), {&a, &b}).code(),
            StatusCode::kInvalidInput);
}

TEST(ReferenceTensorTest, SplitByOpset) {
  Tensor x = F32({1, 2, 3, 4, 5, 6}, {6});
  auto attr = Eval(MakeNode("Split", 11, {{"split", Dims{1, 5}}}), {&x}, 2);
  ExpectFloats(attr[0], {1}, {1});
  ExpectFloats(attr[1], {5}, {2, 3, 4, 5, 6});
  Tensor sizes = I64({4, 2}, {2});
  auto input = Eval(MakeNode("Split", 13), {&x, &sizes}, 2);
  ExpectFloats(input[0], {4}, {1, 2, 3, 4});
  ExpectFloats(input[1], {2}, {5, 6});
  auto equal = Eval(MakeNode("Split", 13), {&x}, 3);
  ExpectFloats(equal[2], {2}, {5, 6});
  // Opset 18 num_outputs: 5 into 3 gives 2, 2, 1 (onnxruntime agrees).
  Tensor five = F32({0, 1, 2, 3, 4}, {5});
  auto uneven = Eval(MakeNode("Split", 18, {{"num_outputs", int64_t{3}}}), {&five}, 3);
  ExpectFloats(uneven[0], {2}, {0, 1});
  ExpectFloats(uneven[2], {1}, {4});
  EXPECT_EQ(EvalStatus(MakeNode("Split", 13), {&five}, 3).code(), StatusCode::kInvalidInput);
  Tensor m = F32({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor one_two = I64({1, 2}, {2});
  auto axis1 = Eval(MakeNode("Split", 13, {{"axis", int64_t{1}}}), {&m, &one_two}, 2);
  ExpectFloats(axis1[0], {2, 1}, {1, 4});
  ExpectFloats(axis1[1], {2, 2}, {2, 3, 5, 6});
}

TEST(ReferenceTensorTest, SliceAttributesBeforeOpset10) {
  Tensor x = F32({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {10});
  ExpectFloats(Eval(MakeNode("Slice", 9, {{"starts", Dims{2}}, {"ends", Dims{5}}}), {&x})[0], {3},
               {2, 3, 4});
  Tensor m = F32({1, 2, 3, 4, 5, 6}, {2, 3});
  ExpectFloats(
      Eval(MakeNode("Slice", 9, {{"starts", Dims{1}}, {"ends", Dims{1000}}, {"axes", Dims{1}}}),
           {&m})[0],
      {2, 2}, {2, 3, 5, 6});
}

TEST(ReferenceTensorTest, SliceInputsNegativeStepsAndClamping) {
  Tensor x = F32({0, 1, 2, 3, 4, 5}, {6});
  Tensor starts = I64({-1}, {1});
  Tensor ends = I64({std::numeric_limits<int64_t>::min()}, {1});
  Tensor axes = I64({0}, {1});
  Tensor steps = I64({-2}, {1});
  // onnxruntime: [5 3 1].
  ExpectFloats(Eval(MakeNode("Slice", 13), {&x, &starts, &ends, &axes, &steps})[0], {3}, {5, 3, 1});
  Tensor s2 = I64({-100}, {1});
  Tensor e2 = I64({std::numeric_limits<int64_t>::max()}, {1});
  ExpectFloats(Eval(MakeNode("Slice", 13), {&x, &s2, &e2})[0], {6}, {0, 1, 2, 3, 4, 5});
  Tensor s3 = I64({4}, {1});
  Tensor e3 = I64({2}, {1});
  ExpectFloats(Eval(MakeNode("Slice", 13), {&x, &s3, &e3})[0], {0}, {});
  // Shape arithmetic: the last two entries of a shape tensor.
  Tensor shape = I64({1, 3, 224, 224}, {4});
  Tensor from = I64({-2}, {1});
  Tensor to = I64({4}, {1});
  ExpectInts(Eval(MakeNode("Slice", 13), {&shape, &from, &to})[0], DType::kInt64, {2}, {224, 224});
  Tensor zero_step = I64({0}, {1});
  EXPECT_EQ(EvalStatus(MakeNode("Slice", 13), {&x, &s3, &e3, &axes, &zero_step}).code(),
            StatusCode::kInvalidInput);
}

TEST(ReferenceTensorTest, ReshapeZeroMinusOneAndAllowZero) {
  Tensor x(DType::kFloat32, {2, 3, 4});
  Tensor shape = I64({0, -1}, {2});
  EXPECT_EQ(Eval(MakeNode("Reshape", 14), {&x, &shape})[0].dims(), (Dims{2, 12}));
  Tensor empty(DType::kFloat32, {0, 3});
  Tensor zero_shape = I64({3, 0}, {2});
  EXPECT_EQ(
      Eval(MakeNode("Reshape", 14, {{"allowzero", int64_t{1}}}), {&empty, &zero_shape})[0].dims(),
      (Dims{3, 0}));
  // Without allowzero the 0 copies the input's dimension 1 (3).
  Tensor y = F32({1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor copy_dim = I64({0, -1}, {2});
  ExpectFloats(Eval(MakeNode("Reshape", 14), {&y, &copy_dim})[0], {3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(Eval(MakeNode("Reshape", 1, {{"shape", Dims{-1}}}), {&y})[0].dims(), (Dims{6}));
  Tensor two_infer = I64({-1, -1}, {2});
  EXPECT_EQ(EvalStatus(MakeNode("Reshape", 14), {&y, &two_infer}).code(),
            StatusCode::kInvalidInput);
  Tensor wrong = I64({4}, {1});
  EXPECT_EQ(EvalStatus(MakeNode("Reshape", 14), {&y, &wrong}).code(), StatusCode::kInvalidInput);
}

TEST(ReferenceTensorTest, FlattenAxes) {
  Tensor x(DType::kFloat32, {2, 3, 4});
  EXPECT_EQ(Eval(MakeNode("Flatten", 13), {&x})[0].dims(), (Dims{2, 12}));
  EXPECT_EQ(Eval(MakeNode("Flatten", 13, {{"axis", int64_t{0}}}), {&x})[0].dims(), (Dims{1, 24}));
  EXPECT_EQ(Eval(MakeNode("Flatten", 13, {{"axis", int64_t{-1}}}), {&x})[0].dims(), (Dims{6, 4}));
  EXPECT_EQ(Eval(MakeNode("Flatten", 13, {{"axis", int64_t{3}}}), {&x})[0].dims(), (Dims{24, 1}));
}

TEST(ReferenceTensorTest, Transpose) {
  Tensor x = F32({1, 2, 3, 4, 5, 6}, {2, 3});
  ExpectFloats(Eval(MakeNode("Transpose", 13), {&x})[0], {3, 2}, {1, 4, 2, 5, 3, 6});
  Tensor y = F32({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2});
  ExpectFloats(Eval(MakeNode("Transpose", 13, {{"perm", Dims{0, 2, 1}}}), {&y})[0], {2, 2, 2},
               {1, 3, 2, 4, 5, 7, 6, 8});
  ExpectFloats(Eval(MakeNode("Transpose", 13, {{"perm", Dims{2, 0, 1}}}), {&y})[0], {2, 2, 2},
               {1, 3, 5, 7, 2, 4, 6, 8});
  EXPECT_EQ(EvalStatus(MakeNode("Transpose", 13, {{"perm", Dims{0, 0, 1}}}), {&y}).code(),
            StatusCode::kInvalidInput);
}

TEST(ReferenceTensorTest, SqueezeAndUnsqueezeByOpset) {
  Tensor x(DType::kFloat32, {1, 3, 1, 2});
  EXPECT_EQ(Eval(MakeNode("Squeeze", 11, {{"axes", Dims{0}}}), {&x})[0].dims(), (Dims{3, 1, 2}));
  Tensor axes = I64({-2}, {1});
  EXPECT_EQ(Eval(MakeNode("Squeeze", 13), {&x, &axes})[0].dims(), (Dims{1, 3, 2}));
  EXPECT_EQ(Eval(MakeNode("Squeeze", 13), {&x})[0].dims(), (Dims{3, 2}));
  Tensor bad = I64({1}, {1});
  EXPECT_EQ(EvalStatus(MakeNode("Squeeze", 13), {&x, &bad}).code(), StatusCode::kInvalidInput);

  Tensor y = F32({7, 8}, {2});
  auto unsq = Eval(MakeNode("Unsqueeze", 11, {{"axes", Dims{2, 0}}}), {&y});
  ExpectFloats(unsq[0], {1, 2, 1}, {7, 8});
  EXPECT_EQ(EvalStatus(MakeNode("Unsqueeze", 11, {{"axes", Dims{0, 3}}}), {&y}).code(),
            StatusCode::kInvalidInput);
  Tensor last = I64({-1}, {1});
  EXPECT_EQ(Eval(MakeNode("Unsqueeze", 13), {&y, &last})[0].dims(), (Dims{2, 1}));
  Tensor scalar = I64({5}, {});
  Tensor zero = I64({0}, {1});
  ExpectInts(Eval(MakeNode("Unsqueeze", 13), {&scalar, &zero})[0], DType::kInt64, {1}, {5});
  EXPECT_EQ(EvalStatus(MakeNode("Unsqueeze", 13), {&y}).code(), StatusCode::kInvalidInput);
}

TEST(ReferenceTensorTest, PadModesByOpset) {
  Tensor x = F32({1, 2, 3}, {3});
  Tensor pads = I64({2, 1}, {2});
  auto pad = [&](const std::string& mode) {
    return Eval(MakeNode("Pad", 13, {{"mode", mode}}), {&x, &pads})[0];
  };
  // onnxruntime gives the same three results.
  ExpectFloats(pad("constant"), {6}, {0, 0, 1, 2, 3, 0});
  ExpectFloats(pad("reflect"), {6}, {3, 2, 1, 2, 3, 2});
  ExpectFloats(pad("edge"), {6}, {1, 1, 1, 2, 3, 3});
  Tensor value = F32({9}, {});
  ExpectFloats(Eval(MakeNode("Pad", 13), {&x, &pads, &value})[0], {6}, {9, 9, 1, 2, 3, 9});
  // Before opset 11 pads and value are attributes; before opset 2 pads is 'paddings'.
  ExpectFloats(Eval(MakeNode("Pad", 2, {{"pads", Dims{1, 0}}, {"value", 5.f}}), {&x})[0], {4},
               {5, 1, 2, 3});
  ExpectFloats(Eval(MakeNode("Pad", 1, {{"paddings", Dims{0, 1}}}), {&x})[0], {4}, {1, 2, 3, 0});
  Tensor crop = I64({-1, 1}, {2});
  ExpectFloats(Eval(MakeNode("Pad", 13), {&x, &crop})[0], {3}, {2, 3, 0});
  // Opset 18 axes: pad only the last axis.
  Tensor m = F32({1, 2, 3, 4}, {2, 2});
  Tensor axis_pads = I64({1, 0}, {2});
  Tensor seven = F32({7}, {});
  Tensor axes = I64({1}, {1});
  ExpectFloats(Eval(MakeNode("Pad", 18), {&m, &axis_pads, &seven, &axes})[0], {2, 3},
               {7, 1, 2, 7, 3, 4});
  Tensor xi = I64({4, 5}, {2});
  Tensor pads_i = I64({1, 1}, {2});
  ExpectInts(Eval(MakeNode("Pad", 13, {{"mode", std::string("edge")}}), {&xi, &pads_i})[0],
             DType::kInt64, {4}, {4, 4, 5, 5});
}

TEST(ReferenceTensorTest, ShapeWithStartAndEnd) {
  Tensor x(DType::kFloat32, {2, 3, 4});
  ExpectInts(Eval(MakeNode("Shape", 13), {&x})[0], DType::kInt64, {3}, {2, 3, 4});
  ExpectInts(Eval(MakeNode("Shape", 15, {{"start", int64_t{1}}}), {&x})[0], DType::kInt64, {2},
             {3, 4});
  ExpectInts(Eval(MakeNode("Shape", 15, {{"end", int64_t{-1}}}), {&x})[0], DType::kInt64, {2},
             {2, 3});
  Tensor scalar = F32({1}, {});
  ExpectInts(Eval(MakeNode("Shape", 13), {&scalar})[0], DType::kInt64, {0}, {});
  ExpectInts(Eval(MakeNode("Shape", 15, {{"start", int64_t{-10}}, {"end", int64_t{10}}}), {&x})[0],
             DType::kInt64, {3}, {2, 3, 4});
}

TEST(ReferenceTensorTest, GatherAxesAndNegativeIndices) {
  Tensor data = F32({1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor idx = I64({2, -3}, {2});
  ExpectFloats(Eval(MakeNode("Gather", 13), {&data, &idx})[0], {2, 2}, {5, 6, 1, 2});
  Tensor idx2 = I32({1, 1, 0, 0}, {2, 2});
  ExpectFloats(Eval(MakeNode("Gather", 13, {{"axis", int64_t{1}}}), {&data, &idx2})[0], {3, 2, 2},
               {2, 2, 1, 1, 4, 4, 3, 3, 6, 6, 5, 5});
  // Shape arithmetic: a scalar index removes the axis.
  Tensor shape = I64({7, 8, 9}, {3});
  Tensor one = I64({1}, {});
  ExpectInts(Eval(MakeNode("Gather", 13), {&shape, &one})[0], DType::kInt64, {}, {8});
  Tensor out_of_range = I64({3}, {1});
  EXPECT_EQ(EvalStatus(MakeNode("Gather", 13), {&data, &out_of_range}).code(),
            StatusCode::kInvalidInput);
}

TEST(ReferenceTensorTest, CastBetweenTypes) {
  auto cast = [](const Tensor& x, DType to) {
    return Eval(MakeNode("Cast", 13, {{"to", static_cast<int64_t>(to)}}), {&x})[0];
  };
  Tensor f = F32({-1.7f, 1.7f, 2.5f, -0.5f}, {4});
  ExpectInts(cast(f, DType::kInt32), DType::kInt32, {4}, {-1, 1, 2, 0});  // numpy agrees
  ExpectInts(cast(f, DType::kInt64), DType::kInt64, {4}, {-1, 1, 2, 0});
  Tensor wrap = F32({300.f, -1.f, 3.9f}, {3});
  ExpectInts(cast(wrap, DType::kUint8), DType::kUint8, {3}, {44, 255, 3});  // onnxruntime
  Tensor b = F32({0, 0.5f, -2}, {3});
  ExpectInts(cast(b, DType::kBool), DType::kBool, {3}, {0, 1, 1});
  Tensor i = I64({-3, 1}, {2});
  ExpectFloats(cast(i, DType::kFloat32), {2}, {-3, 1});
  Tensor flags = Bool({1, 0}, {2});
  ExpectFloats(cast(flags, DType::kFloat32), {2}, {1, 0});
  Tensor d = cast(f, DType::kFloat64);
  ASSERT_EQ(d.dtype(), DType::kFloat64);
  EXPECT_EQ(d.data<double>()[0], static_cast<double>(-1.7f));
  Tensor string_cast = F32({1}, {1});
  EXPECT_EQ(EvalStatus(MakeNode("Cast", 13, {{"to", int64_t{8}}}), {&string_cast}).code(),
            StatusCode::kUnsupported);
}

TEST(ReferenceTensorTest, CastFloat16RoundsToNearestEven) {
  // Bit patterns from numpy: 1.0 0x3c00, 65504 0x7bff, 0.1 0x2e66, -2.5 0xc100, 65520 inf,
  // 1e-7 0x0002 (subnormal), 3e-8 0x0001.
  Tensor f = F32({1.f, 65504.f, 0.1f, -2.5f, 65520.f, 1e-7f, 3e-8f}, {7});
  auto half = Eval(MakeNode("Cast", 13, {{"to", int64_t{10}}}), {&f})[0];
  ASSERT_EQ(half.dtype(), DType::kFloat16);
  const std::vector<uint16_t> expected = {0x3c00, 0x7bff, 0x2e66, 0xc100, 0x7c00, 0x0002, 0x0001};
  for (size_t k = 0; k < expected.size(); ++k)
    EXPECT_EQ(half.data<uint16_t>()[k], expected[k]) << "element " << k;
  Tensor bits = Typed<uint16_t>(DType::kFloat16, {0x3555, 0x0001, 0xc100}, {3});
  ExpectFloats(Eval(MakeNode("Cast", 13, {{"to", int64_t{1}}}), {&bits})[0], {3},
               {0.333251953125f, 5.9604645e-08f, -2.5f}, 0.f);
}

TEST(ReferenceTensorTest, ConstantOfShape) {
  Tensor shape = I64({2, 3}, {2});
  ExpectFloats(Eval(MakeNode("ConstantOfShape", 9), {&shape})[0], {2, 3}, {0, 0, 0, 0, 0, 0});
  ExpectInts(Eval(MakeNode("ConstantOfShape", 9, {{"value", I64({7}, {1})}}), {&shape})[0],
             DType::kInt64, {2, 3}, {7, 7, 7, 7, 7, 7});
  Tensor scalar_shape = I64({}, {0});
  ExpectFloats(
      Eval(MakeNode("ConstantOfShape", 9, {{"value", F32({1.5f}, {1})}}), {&scalar_shape})[0], {},
      {1.5f});
  Tensor negative = I64({-1}, {1});
  EXPECT_EQ(EvalStatus(MakeNode("ConstantOfShape", 9), {&negative}).code(),
            StatusCode::kInvalidInput);
}

TEST(ReferenceTensorTest, RangeIntegerAndFloat) {
  Tensor zero = I64({0}, {});
  Tensor ten = I64({10}, {});
  Tensor three = I64({3}, {});
  Tensor minus_three = I64({-3}, {});
  ExpectInts(Eval(MakeNode("Range", 11), {&zero, &ten, &three})[0], DType::kInt64, {4},
             {0, 3, 6, 9});
  ExpectInts(Eval(MakeNode("Range", 11), {&ten, &zero, &minus_three})[0], DType::kInt64, {4},
             {10, 7, 4, 1});
  ExpectInts(Eval(MakeNode("Range", 11), {&ten, &zero, &three})[0], DType::kInt64, {0}, {});
  Tensor one = F32({1}, {});
  Tensor two = F32({2}, {});
  Tensor quarter = F32({0.25f}, {});
  ExpectFloats(Eval(MakeNode("Range", 11), {&one, &two, &quarter})[0], {4},
               {1, 1.25f, 1.5f, 1.75f});
  Tensor zero_delta = I64({0}, {});
  EXPECT_EQ(EvalStatus(MakeNode("Range", 11), {&zero, &ten, &zero_delta}).code(),
            StatusCode::kInvalidInput);
}

TEST(ReferenceTensorTest, ExpandAndTile) {
  Tensor x = F32({1, 2, 3}, {3, 1});
  Tensor shape = I64({1, 2}, {2});
  ExpectFloats(Eval(MakeNode("Expand", 13), {&x, &shape})[0], {3, 2}, {1, 1, 2, 2, 3, 3});
  Tensor higher = I64({2, 1, 1}, {3});
  ExpectFloats(Eval(MakeNode("Expand", 13), {&x, &higher})[0], {2, 3, 1}, {1, 2, 3, 1, 2, 3});
  Tensor bad = I64({2, 2}, {2});
  EXPECT_EQ(EvalStatus(MakeNode("Expand", 13), {&x, &bad}).code(), StatusCode::kInvalidInput);
  Tensor row = F32({1, 2}, {1, 2});
  Tensor repeats = I64({2, 2}, {2});
  ExpectFloats(Eval(MakeNode("Tile", 13), {&row, &repeats})[0], {2, 4}, {1, 2, 1, 2, 1, 2, 1, 2});
}

TEST(ReferenceTensorTest, IdentityDropoutConstant) {
  Tensor x = F32({1, -2}, {2});
  ExpectFloats(Eval(MakeNode("Identity", 16), {&x})[0], {2}, {1, -2});
  auto dropout = Eval(MakeNode("Dropout", 13), {&x}, 2);
  ExpectFloats(dropout[0], {2}, {1, -2});
  ExpectInts(dropout[1], DType::kBool, {2}, {1, 1});
  auto old = Eval(MakeNode("Dropout", 7), {&x}, 2);  // the mask had the input's type
  ExpectFloats(old[1], {2}, {1, 1});
  Tensor ratio = F32({0.5f}, {});
  Tensor training = Bool({1}, {});
  EXPECT_EQ(EvalStatus(MakeNode("Dropout", 13), {&x, &ratio, &training}).code(),
            StatusCode::kUnsupported);
  Tensor zero_ratio = F32({0}, {});
  ExpectFloats(Eval(MakeNode("Dropout", 13), {&x, &zero_ratio, &training})[0], {2}, {1, -2});

  ExpectFloats(Eval(MakeNode("Constant", 13, {{"value", F32({3, 4}, {2})}}), {})[0], {2}, {3, 4});
  ExpectInts(Eval(MakeNode("Constant", 13, {{"value_ints", Dims{1, -1}}}), {})[0], DType::kInt64,
             {2}, {1, -1});
  ExpectInts(Eval(MakeNode("Constant", 13, {{"value_int", int64_t{4}}}), {})[0], DType::kInt64, {},
             {4});
  ExpectFloats(Eval(MakeNode("Constant", 13, {{"value_float", 0.5f}}), {})[0], {}, {0.5f});
  EXPECT_EQ(EvalStatus(MakeNode("Constant", 13, {{"value_string", std::string("x")}}), {}).code(),
            StatusCode::kUnsupported);
}

TEST(ReferenceTensorTest, MalformedShapesAreErrorsNotCrashes) {
  Tensor x = F32({1, 2}, {2});
  Tensor negative = I64({-1, 2}, {2});
  EXPECT_EQ(EvalStatus(MakeNode("Expand", 13), {&x, &negative}).code(), StatusCode::kInvalidInput);
  Tensor huge = I64({int64_t{1} << 40, int64_t{1} << 40}, {2});
  EXPECT_EQ(EvalStatus(MakeNode("ConstantOfShape", 9), {&huge}).code(), StatusCode::kInvalidInput);
  Tensor repeats = I64({int64_t{1} << 62}, {1});
  EXPECT_EQ(EvalStatus(MakeNode("Tile", 13), {&x, &repeats}).code(), StatusCode::kInvalidInput);
  Tensor lo = I64({std::numeric_limits<int64_t>::min()}, {});
  Tensor hi = I64({std::numeric_limits<int64_t>::max()}, {});
  Tensor step = I64({1}, {});
  EXPECT_EQ(EvalStatus(MakeNode("Range", 11), {&lo, &hi, &step}).code(), StatusCode::kInvalidInput);
}

TEST(ReferenceTensorTest, EmptyAxesOrSplitInputsMeanDefaults) {
  Tensor x(DType::kFloat32, {1, 3, 1});
  Tensor no_axes = I64({}, {0});
  EXPECT_EQ(Eval(MakeNode("Squeeze", 13), {&x, &no_axes})[0].dims(), (Dims{3}));
  Tensor y = F32({1, 2, 3, 4}, {4});
  Tensor no_split = I64({}, {0});
  auto halves = Eval(MakeNode("Split", 13), {&y, &no_split}, 2);
  ExpectFloats(halves[1], {2}, {3, 4});
}

// A PyTorch-style shape computation: Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
TEST(ReferenceTensorTest, ShapeChainForFlatten) {
  Tensor x(DType::kFloat32, {4, 3, 2});
  Tensor shape = Eval(MakeNode("Shape", 13), {&x})[0];
  Tensor zero = I64({0}, {});
  Tensor batch = Eval(MakeNode("Gather", 13), {&shape, &zero})[0];
  Tensor axes = I64({0}, {1});
  Tensor batch_1d = Eval(MakeNode("Unsqueeze", 13), {&batch, &axes})[0];
  Tensor minus_one = I64({-1}, {1});
  Tensor target = Eval(MakeNode("Concat", 13, {{"axis", int64_t{0}}}), {&batch_1d, &minus_one})[0];
  ExpectInts(target, DType::kInt64, {2}, {4, -1});
  EXPECT_EQ(Eval(MakeNode("Reshape", 13), {&x, &target})[0].dims(), (Dims{4, 6}));
}

// ---- Gemm, MatMul --------------------------------------------------------------------------

TEST(ReferenceMatmulTest, GemmTransposesAlphaBetaAndBias) {
  Tensor a = F32({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = F32({1, 2, 3, 4, 5, 6}, {3, 2});
  ExpectFloats(Eval(MakeNode("Gemm", 13), {&a, &b})[0], {2, 2}, {22, 28, 49, 64});
  Tensor c = F32({1, 2}, {2});
  // onnxruntime: 2 * A B + 0.5 * [1 2].
  ExpectFloats(Eval(MakeNode("Gemm", 13, {{"alpha", 2.f}, {"beta", 0.5f}}), {&a, &b, &c})[0],
               {2, 2}, {44.5f, 57, 98.5f, 129});
  Tensor at = F32({1, 4, 2, 5, 3, 6}, {3, 2});  // A transposed
  Tensor bt = F32({1, 3, 5, 2, 4, 6}, {2, 3});  // B transposed
  ExpectFloats(
      Eval(MakeNode("Gemm", 13, {{"transA", int64_t{1}}, {"transB", int64_t{1}}}), {&at, &bt})[0],
      {2, 2}, {22, 28, 49, 64});
  Tensor col = F32({10, 20}, {2, 1});
  ExpectFloats(Eval(MakeNode("Gemm", 13), {&a, &b, &col})[0], {2, 2}, {32, 38, 69, 84});
  Tensor scalar = F32({1}, {});
  ExpectFloats(Eval(MakeNode("Gemm", 13), {&a, &b, &scalar})[0], {2, 2}, {23, 29, 50, 65});
  EXPECT_EQ(EvalStatus(MakeNode("Gemm", 13), {&a, &a}).code(), StatusCode::kInvalidInput);
}

TEST(ReferenceMatmulTest, MatMulVectorsAndBatches) {
  Tensor u = F32({1, 2, 3}, {3});
  Tensor v = F32({4, 5, 6}, {3});
  ExpectFloats(Eval(MakeNode("MatMul", 13), {&u, &v})[0], {}, {32});
  Tensor m = F32({1, 2, 3, 4}, {2, 2});
  Tensor ones = F32({1, 1}, {2});
  ExpectFloats(Eval(MakeNode("MatMul", 13), {&m, &ones})[0], {2}, {3, 7});
  ExpectFloats(Eval(MakeNode("MatMul", 13), {&ones, &m})[0], {2}, {4, 6});
  Tensor batch = F32({1, 0, 0, 1, 2, 0, 0, 2}, {2, 2, 2});  // I and 2I
  ExpectFloats(Eval(MakeNode("MatMul", 13), {&batch, &m})[0], {2, 2, 2}, {1, 2, 3, 4, 2, 4, 6, 8});
  // Batch dims [2, 1] and [3] broadcast to [2, 3] (onnxruntime: 1, 5, 9 repeated).
  Tensor a = F32(std::vector<float>(4, 1.f), {2, 1, 1, 2});
  Tensor b = F32({0, 1, 2, 3, 4, 5}, {3, 2, 1});
  ExpectFloats(Eval(MakeNode("MatMul", 13), {&a, &b})[0], {2, 3, 1, 1}, {1, 5, 9, 1, 5, 9});
  Tensor ai = I64({int64_t{1} << 40, 1}, {1, 2});
  Tensor bi = I64({3, 1}, {2, 1});
  ExpectInts(Eval(MakeNode("MatMul", 13), {&ai, &bi})[0], DType::kInt64, {1, 1},
             {3 * (int64_t{1} << 40) + 1});
  Tensor wrong = F32({1, 2, 3}, {3, 1});
  EXPECT_EQ(EvalStatus(MakeNode("MatMul", 13), {&m, &wrong}).code(), StatusCode::kInvalidInput);
}

// ---- Softmax, ReduceMean -------------------------------------------------------------------

TEST(ReferenceMiscTest, SoftmaxAlongAxisSinceOpset13) {
  const float ln3 = std::log(3.f);
  Tensor x = F32({0, ln3}, {1, 2});
  ExpectFloats(Eval(MakeNode("Softmax", 13), {&x})[0], {1, 2}, {0.25f, 0.75f});
  Tensor large = F32({1000, 1000 + ln3}, {1, 2});  // no overflow
  ExpectFloats(Eval(MakeNode("Softmax", 13), {&large})[0], {1, 2}, {0.25f, 0.75f}, 1e-4f);
  Tensor cols = F32({0, 0, ln3, 0}, {2, 2});
  ExpectFloats(Eval(MakeNode("Softmax", 13, {{"axis", int64_t{0}}}), {&cols})[0], {2, 2},
               {0.25f, 0.5f, 0.75f, 0.5f});
}

TEST(ReferenceMiscTest, SoftmaxCoercesTo2DBeforeOpset13) {
  const float ln3 = std::log(3.f);
  Tensor x = F32({0, ln3, 0, ln3}, {1, 2, 2});
  // Opset 11, default axis 1: one row of 4 with exps 1, 3, 1, 3 (onnxruntime agrees).
  ExpectFloats(Eval(MakeNode("Softmax", 11), {&x})[0], {1, 2, 2}, {0.125f, 0.375f, 0.125f, 0.375f});
  ExpectFloats(Eval(MakeNode("Softmax", 13), {&x})[0], {1, 2, 2}, {0.25f, 0.75f, 0.25f, 0.75f});
  ExpectFloats(Eval(MakeNode("Softmax", 11, {{"axis", int64_t{2}}}), {&x})[0], {1, 2, 2},
               {0.25f, 0.75f, 0.25f, 0.75f});
}

TEST(ReferenceMiscTest, ReduceMeanAttributeAxesAndKeepdims) {
  Tensor x = F32({1, 2, 3, 5}, {2, 2});
  ExpectFloats(Eval(MakeNode("ReduceMean", 13, {{"axes", Dims{1}}}), {&x})[0], {2, 1}, {1.5f, 4});
  ExpectFloats(
      Eval(MakeNode("ReduceMean", 13, {{"axes", Dims{-1}}, {"keepdims", int64_t{0}}}), {&x})[0],
      {2}, {1.5f, 4});
  ExpectFloats(Eval(MakeNode("ReduceMean", 13), {&x})[0], {1, 1}, {2.75f});
  ExpectFloats(Eval(MakeNode("ReduceMean", 13, {{"keepdims", int64_t{0}}}), {&x})[0], {}, {2.75f});
}

TEST(ReferenceMiscTest, ReduceMeanAxesInputSinceOpset18) {
  Tensor x = F32({1, 2, 3, 5}, {2, 2});
  Tensor axes = I64({0}, {1});
  ExpectFloats(Eval(MakeNode("ReduceMean", 18, {{"keepdims", int64_t{0}}}), {&x, &axes})[0], {2},
               {2, 3.5f});
  ExpectFloats(Eval(MakeNode("ReduceMean", 18), {&x})[0], {1, 1}, {2.75f});
  ExpectFloats(Eval(MakeNode("ReduceMean", 18, {{"noop_with_empty_axes", int64_t{1}}}), {&x})[0],
               {2, 2}, {1, 2, 3, 5});
  Tensor spatial(DType::kFloat32, {1, 2, 3, 3});
  Tensor hw = I64({2, 3}, {2});
  EXPECT_EQ(Eval(MakeNode("ReduceMean", 18), {&spatial, &hw})[0].dims(), (Dims{1, 2, 1, 1}));
}

}  // namespace
}  // namespace ios
