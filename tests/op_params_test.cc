// The shared op parameter parsers (ops/op_params.h) that the CPU and CUDA kernel factories use.
#include "ops/op_params.h"

#include <gtest/gtest.h>

namespace ios {
namespace {

// A node with `input_count` inputs (ids 0, 1, ...) and the given opset.
Node MakeNode(const std::string& op_type, size_t input_count, int64_t opset = 0) {
  Node node;
  node.name = "n";
  node.op_type = op_type;
  node.opset = opset;
  for (size_t i = 0; i < input_count; ++i) node.inputs.push_back(static_cast<ValueId>(i));
  return node;
}

TEST(OpParams, SliceReadsConstantInputsAndClampsLikeOnnx) {
  const Node node = MakeNode("Slice", 5);
  const Tensor starts = Tensor::FromInt64({1, -1}, {2});
  const Tensor ends = Tensor::FromInt64({100, -100}, {2});
  const Tensor axes = Tensor::FromInt64({1, 2}, {2});
  const Tensor steps = Tensor::FromInt64({2, -1}, {2});
  const std::vector<TensorType> types = {{DType::kFloat32, {2, 5, 4}},
                                         {DType::kInt64, {2}},
                                         {DType::kInt64, {2}},
                                         {DType::kInt64, {2}},
                                         {DType::kInt64, {2}}};
  const std::vector<const Tensor*> constants = {nullptr, &starts, &ends, &axes, &steps};
  StatusOr<SliceParams> slice = ParseSlice(NodeInputs{node, types, constants});
  ASSERT_TRUE(slice.ok()) << slice.status().message();
  EXPECT_EQ(slice->out_dims, (Dims{2, 2, 4}));
  EXPECT_EQ(slice->begin, (Dims{0, 1, 3}));
  EXPECT_EQ(slice->step, (Dims{1, 2, -1}));
}

TEST(OpParams, RuntimeSliceStartsAreUnsupportedAndMissingOnesInvalid) {
  const Node node = MakeNode("Slice", 3);
  const Tensor ends = Tensor::FromInt64({1}, {1});
  const std::vector<TensorType> types = {
      {DType::kFloat32, {4}}, {DType::kInt64, {1}}, {DType::kInt64, {1}}};
  const std::vector<const Tensor*> runtime_starts = {nullptr, nullptr, &ends};
  EXPECT_EQ(ParseSlice(NodeInputs{node, types, runtime_starts}).status().code(),
            StatusCode::kUnsupported);
  const Node no_ends = MakeNode("Slice", 2);
  const std::vector<const Tensor*> constant_starts = {nullptr, &ends, nullptr};
  EXPECT_EQ(ParseSlice(NodeInputs{no_ends, types, constant_starts}).status().code(),
            StatusCode::kInvalidInput);
}

TEST(OpParams, PadFromInputsWithAxesAndConstantValue) {
  Node node = MakeNode("Pad", 4);
  node.attrs.Set("mode", std::string("reflect"));
  const Tensor pads = Tensor::FromInt64({1, -1, 2, 0}, {4});
  const Tensor value = Tensor::FromFloat({3.f}, {});
  const Tensor axes = Tensor::FromInt64({-1, 0}, {2});
  const std::vector<TensorType> types = {
      {DType::kFloat32, {3, 4}}, {DType::kInt64, {4}}, {DType::kFloat32, {}}, {DType::kInt64, {2}}};
  const std::vector<const Tensor*> constants = {nullptr, &pads, &value, &axes};
  StatusOr<PadParams> pad = ParsePad(NodeInputs{node, types, constants});
  ASSERT_TRUE(pad.ok()) << pad.status().message();
  EXPECT_EQ(pad->mode, PadMode::kReflect);
  EXPECT_EQ(pad->begin, (Dims{-1, 1}));    // axis 0 gets pads[1], axis 1 (= -1) pads[0]
  EXPECT_EQ(pad->out_dims, (Dims{2, 7}));  // 3 - 1 + 0 and 4 + 1 + 2
  EXPECT_TRUE(pad->value_from_input);
  EXPECT_EQ(pad->value_constant, &value);
  EXPECT_FALSE(pad->value_from_attribute);
}

TEST(OpParams, PadBeforeOpset11ReadsAttributesAndRejectsOverCrop) {
  Node node = MakeNode("Pad", 1, 2);
  node.attrs.Set("pads", std::vector<int64_t>{0, 1, 0, 1});
  node.attrs.Set("value", 2.5f);
  const std::vector<TensorType> types = {{DType::kFloat32, {2, 2}}};
  const std::vector<const Tensor*> constants = {nullptr};
  StatusOr<PadParams> pad = ParsePad(NodeInputs{node, types, constants});
  ASSERT_TRUE(pad.ok()) << pad.status().message();
  EXPECT_EQ(pad->out_dims, (Dims{2, 4}));
  EXPECT_TRUE(pad->value_from_attribute);
  EXPECT_EQ(pad->attribute_value, 2.5f);
  node.attrs.Set("pads", std::vector<int64_t>{-2, 0, -1, 0});
  EXPECT_EQ(ParsePad(NodeInputs{node, types, constants}).status().code(),
            StatusCode::kInvalidInput);
  node.attrs.Set("mode", std::string("mirror"));
  EXPECT_EQ(ParsePad(NodeInputs{node, types, constants}).status().code(),
            StatusCode::kInvalidInput);
}

TEST(OpParams, ConcatAndSplitGiveOuterAndPartSizes) {
  Node concat = MakeNode("Concat", 2);
  concat.attrs.Set("axis", int64_t{-2});
  const std::vector<TensorType> types = {{DType::kFloat32, {2, 3, 4}},
                                         {DType::kFloat32, {2, 1, 4}}};
  const std::vector<const Tensor*> constants = {nullptr, nullptr};
  StatusOr<AxisParts> joined = ParseConcat(NodeInputs{concat, types, constants}, {2, 4, 4});
  ASSERT_TRUE(joined.ok()) << joined.status().message();
  EXPECT_EQ(joined->axis, 1);
  EXPECT_EQ(joined->outer, 2);
  EXPECT_EQ(joined->whole, 16);
  EXPECT_EQ(joined->parts, (std::vector<int64_t>{12, 4}));
  EXPECT_FALSE(ParseConcat(NodeInputs{concat, types, constants}, {2, 5, 4}).ok());

  Node split = MakeNode("Split", 1);
  split.attrs.Set("axis", int64_t{2});
  const std::vector<TensorType> input = {{DType::kFloat32, {2, 3, 4}}};
  StatusOr<AxisParts> parts =
      ParseSplit(NodeInputs{split, input, {nullptr}},
                 {{DType::kFloat32, {2, 3, 1}}, {DType::kFloat32, {2, 3, 3}}});
  ASSERT_TRUE(parts.ok()) << parts.status().message();
  EXPECT_EQ(parts->outer, 6);
  EXPECT_EQ(parts->whole, 4);
  EXPECT_EQ(parts->parts, (std::vector<int64_t>{1, 3}));
}

TEST(OpParams, TransposeDefaultsToReversedAndRejectsNonPermutations) {
  Node node = MakeNode("Transpose", 1);
  StatusOr<TransposeParams> reversed = ParseTranspose(node, {2, 3, 4});
  ASSERT_TRUE(reversed.ok());
  EXPECT_EQ(reversed->perm, (Dims{2, 1, 0}));
  EXPECT_EQ(reversed->out_dims, (Dims{4, 3, 2}));
  node.attrs.Set("perm", std::vector<int64_t>{0, 0, 1});
  EXPECT_EQ(ParseTranspose(node, {2, 3, 4}).status().code(), StatusCode::kInvalidInput);
}

TEST(OpParams, BinaryElementwiseOpsAndTheirBroadcast) {
  StatusOr<BinaryElementwise> sum = BinaryElementwiseOf("Sum");
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(sum->op, BinaryOpKind::kAdd);
  EXPECT_TRUE(sum->variadic);
  StatusOr<BinaryElementwise> pow = BinaryElementwiseOf("Pow");
  ASSERT_TRUE(pow.ok());
  EXPECT_EQ(pow->op, BinaryOpKind::kPow);
  EXPECT_FALSE(pow->variadic);
  EXPECT_EQ(BinaryElementwiseOf("Relu").status().code(), StatusCode::kInternal);

  const std::vector<TensorType> three = {
      {DType::kFloat32, {2, 1, 4}}, {DType::kFloat32, {3, 1}}, {DType::kFloat32, {4}}};
  const std::vector<TensorType> out = {{DType::kFloat32, {2, 3, 4}}};
  EXPECT_TRUE(CheckBinaryElementwise(*sum, three, out).ok());
  EXPECT_EQ(CheckBinaryElementwise(*pow, three, out).code(), StatusCode::kInvalidInput);
  const std::vector<TensorType> wrong_out = {{DType::kFloat32, {2, 3, 1}}};
  EXPECT_EQ(CheckBinaryElementwise(*sum, three, wrong_out).code(), StatusCode::kInvalidInput);
}

TEST(OpParams, SoftmaxAxisDependsOnOpset) {
  const Node old_softmax = MakeNode("Softmax", 1, 11);
  StatusOr<SoftmaxAxis> old_axis = ParseSoftmaxAxis(old_softmax, 3);
  ASSERT_TRUE(old_axis.ok());
  EXPECT_EQ(old_axis->axis, 1);
  EXPECT_TRUE(old_axis->coerce_2d);
  Node new_softmax = MakeNode("Softmax", 1, 13);
  StatusOr<SoftmaxAxis> new_axis = ParseSoftmaxAxis(new_softmax, 3);
  ASSERT_TRUE(new_axis.ok());
  EXPECT_EQ(new_axis->axis, 2);
  EXPECT_FALSE(new_axis->coerce_2d);
  new_softmax.attrs.Set("axis", int64_t{3});
  EXPECT_FALSE(ParseSoftmaxAxis(new_softmax, 3).ok());
}

}  // namespace
}  // namespace ios
