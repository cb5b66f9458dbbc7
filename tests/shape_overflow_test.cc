// Shape inference on extreme integers (issue 51): values read from a file (dims, pads, strides,
// dilations, axes, starts and ends, steps, sizes, repeats, scales) reach int64 arithmetic, which
// must be checked (util/checked_int.h), never plain: plain arithmetic that overflows is undefined
// behaviour, which the sanitizer build (UBSan, -fno-sanitize-recover) turns into a failed test.
//
// The property test walks every op of the registry and feeds it one-node graphs whose integer
// attributes and constant inputs are ±(2^63 - 1), -2^63, ±2^62, -1, 0 and small values, whose
// float constants are huge, infinite or NaN, and whose inputs have dims up to what their size
// allows: every case must end in a Status (an error naming the file, node and op, or output
// types whose cost is finite). The cases come from a fixed table and a fixed seed. The named
// tests below it are the overflows found, each now an error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ir/tensor.h"
#include "kernels/math/tensor_math.h"
#include "onnx/tensor_proto.h"
#include "op_shape_test_util.h"
#include "ops/op_params.h"
#include "ops/op_registry.h"

// A namespace of its own: the unity build compiles this file with others whose anonymous
// namespaces have their own Attrs and kMax.
namespace ios::shape_overflow {
namespace {

using shape_testing::Attrs;
using shape_testing::Const;
using shape_testing::ConstScalarInt;
using shape_testing::ExpectError;
using shape_testing::F;
using shape_testing::In;
using shape_testing::InferOneNode;
using shape_testing::Int;
using shape_testing::Ints;
using shape_testing::OneNode;
using shape_testing::Typed;
using shape_testing::Weight;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t k2p62 = int64_t{1} << 62;

// The integers a hostile file puts where the ops expect sizes, axes and counts.
const Ints kExtremeInts = {kMax, kMin, -kMax, k2p62, -k2p62, -1, 0, 1, 2, 3};
const std::vector<float> kExtremeFloats = {1e30f,
                                           -1e30f,
                                           std::numeric_limits<float>::max(),
                                           std::numeric_limits<float>::infinity(),
                                           -std::numeric_limits<float>::infinity(),
                                           std::numeric_limits<float>::quiet_NaN(),
                                           0.f,
                                           0.5f,
                                           2.f};
// Every integer attribute an op of the registry reads.
const std::vector<std::string> kIntAttributes = {"allowzero",
                                                 "antialias",
                                                 "axes",
                                                 "axis",
                                                 "blocksize",
                                                 "ceil_mode",
                                                 "count_include_pad",
                                                 "dilations",
                                                 "end",
                                                 "ends",
                                                 "exclude_outside",
                                                 "fmod",
                                                 "group",
                                                 "keepdims",
                                                 "kernel_shape",
                                                 "noop_with_empty_axes",
                                                 "num_outputs",
                                                 "output_padding",
                                                 "output_shape",
                                                 "pads",
                                                 "paddings",
                                                 "perm",
                                                 "select_last_index",
                                                 "shape",
                                                 "spatial",
                                                 "split",
                                                 "start",
                                                 "starts",
                                                 "stash_type",
                                                 "storage_order",
                                                 "strides",
                                                 "to",
                                                 "training_mode",
                                                 "transA",
                                                 "transB",
                                                 "value_int",
                                                 "value_ints",
                                                 "ios.residual"};
// Input dims: ordinary, empty, and as large as an input of their type may be (the importer and
// InferNode refuse shapes whose size does not fit, CheckedNumBytes).
const std::vector<Dims> kDims = {{1, 3, 8, 8},
                                 {2, 4, 6, 6, 6},
                                 {0, 3, 8, 8},
                                 {3},
                                 {},
                                 {1, 1, int64_t{1} << 40, 1},
                                 {1, 1, int64_t{1} << 30, int64_t{1} << 30},
                                 {1, (int64_t{1} << 61) - 1},
                                 {k2p62},
                                 {1, 1, kMax},
                                 {4, int64_t{1} << 60, 1}};
const std::vector<int64_t> kOpsets = {1, 7, 9, 10, 11, 12, 13, 17, 18, 19, 21};

// ConvTranspose's output size (InferConvTranspose) is being rewritten with checked arithmetic
// on another branch; it joins the sweep when that lands.
const std::vector<std::string> kSweptElsewhere = {"ConvTranspose"};

template <typename T>
const T& Pick(std::mt19937_64& rng, const std::vector<T>& from) {
  return from[rng() % from.size()];
}

// A runtime input of `dtype` with dims from kDims that its size allows.
In Runtime(std::mt19937_64& rng, DType dtype) {
  Dims dims = Pick(rng, kDims);
  if (CheckedNumBytes(dtype, dims) < 0) dims = {1, 3, 8, 8};
  return Typed(dtype, dims);
}

Ints ExtremeList(std::mt19937_64& rng) {
  static const std::vector<size_t> kLengths = {0, 1, 2, 3, 4, 5, 8, 10};
  Ints values(Pick(rng, kLengths));
  for (int64_t& v : values) v = Pick(rng, kExtremeInts);
  return values;
}

In RandomInput(std::mt19937_64& rng) {
  switch (rng() % 9) {
    case 0:
    case 1:
      return Runtime(rng, DType::kFloat32);
    case 2:
      return Runtime(rng, Pick(rng, std::vector<DType>{DType::kInt64, DType::kBool, DType::kUint8,
                                                       DType::kInt32}));
    case 3:
    case 4:
      return Const(ExtremeList(rng));
    case 5:
      return ConstScalarInt(Pick(rng, kExtremeInts));
    case 6: {
      std::vector<float> values(1 + rng() % 5);
      for (float& v : values) v = Pick(rng, kExtremeFloats);
      const Dims dims = {static_cast<int64_t>(values.size())};
      return In{DType::kFloat32, dims, Tensor::FromFloat(values, dims)};
    }
    case 7:
      return shape_testing::ConstScalar(Pick(rng, kExtremeFloats));
    default:
      return shape_testing::Omitted();
  }
}

AttributeValue ExtremeAttribute(std::mt19937_64& rng) {
  if (rng() % 2 == 0) return Int(Pick(rng, kExtremeInts));
  return AttributeValue(ExtremeList(rng));
}

// Runs one case and checks what must hold whatever the values: an error names the file, the
// node and the op; a success gives output types whose cost is a finite, non-negative number.
void CheckCase(const std::string& op, int64_t opset, std::vector<In> inputs, AttributeMap attrs,
               int outputs, int64_t* ok_count) {
  const OneNode one = InferOneNode(op, opset, std::move(inputs), std::move(attrs), outputs);
  if (!one.status.ok()) {
    const std::string context =
        "test.onnx: node 'n' (" + op + ", opset " + std::to_string(opset) + ")";
    ASSERT_NE(one.status.message().find(context), std::string::npos)
        << op << " opset " << opset << ": " << one.status.message();
    return;
  }
  ++*ok_count;
  const OpCost cost = one.Cost();
  ASSERT_TRUE(std::isfinite(cost.flops) && cost.flops >= 0) << op << " flops " << cost.flops;
  ASSERT_TRUE(std::isfinite(cost.bytes_moved) && cost.bytes_moved >= 0)
      << op << " bytes " << cost.bytes_moved;
}

int OutputCount(const OpSchema& schema, std::mt19937_64& rng) {
  const int most = schema.max_outputs < 0 ? 3 : schema.max_outputs;
  return schema.min_outputs + static_cast<int>(rng() % (most - schema.min_outputs + 1));
}

TEST(ShapeOverflowPropertyTest, EveryOpEndsInAStatusOnExtremeIntegers) {
  const OpRegistry& registry = OpRegistry::Global();
  const std::vector<std::string> ops = registry.OpTypes();
  ASSERT_GT(ops.size(), 60u);
  std::mt19937_64 rng(51);
  int64_t cases = 0, ok = 0;
  for (const std::string& op : ops) {
    if (std::find(kSweptElsewhere.begin(), kSweptElsewhere.end(), op) != kSweptElsewhere.end())
      continue;
    const OpSchema& schema = *registry.Find(op);
    SCOPED_TRACE(op);
    const int most_inputs = schema.max_inputs < 0 ? schema.min_inputs + 3 : schema.max_inputs;
    // One attribute at a time, every extreme value, in scalar and list form: what a one-field
    // mutation of a valid model gives. The inputs are ordinary float tensors; then, for the
    // largest values, an empty channel axis (a weight [0, 3, 1, 1] after the data [1, 0, 8, 8]:
    // a group of any size divides 0 channels) and the largest byte tensor.
    const std::vector<std::vector<In>> operands = {
        {F({1, 3, 8, 8}), F({1, 3, 8, 8})},
        {F({1, 0, 8, 8}), F({0, 3, 1, 1})},
        {Typed(DType::kUint8, {1, 1, kMax}), Typed(DType::kUint8, {1, 1, 1})}};
    for (size_t o = 0; o < operands.size(); ++o) {
      for (const std::string& name : kIntAttributes) {
        for (int64_t value : kExtremeInts) {
          if (o > 0 && value != kMax && value != kMin && value != k2p62 && value != -1) continue;
          for (const AttributeValue& attr : {Int(value), AttributeValue(Ints(4, value))}) {
            std::vector<In> inputs;
            for (int i = 0; i < std::max(schema.min_inputs, 1) && schema.max_inputs != 0; ++i)
              inputs.push_back(operands[o][std::min(i, 1)]);
            CheckCase(op, 13, inputs, Attrs({{name.c_str(), attr}}), schema.min_outputs, &ok);
            ++cases;
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
      }
    }
    // Windows at the attributes' bounds (ReadWindowParams: below 2^31) over the largest inputs:
    // a byte tensor of 2^63 - 1 elements, and a 3-D window of 2^31 - 1 on every axis of a
    // [1, 1, 1, 1, 1] tensor padded to fit it (whose volume is 2^93).
    constexpr int64_t kWindow = (int64_t{1} << 31) - 1;
    const std::vector<std::vector<In>> window_operands = {
        {Typed(DType::kUint8, {1, 1, kMax}), Typed(DType::kUint8, {1, 1, kWindow})},
        {F({1, 1, 1, 1, 1}), F({1, 1, 1, 1, 1})}};
    for (const std::vector<In>& pair : window_operands) {
      const size_t axes = pair[0].dims.size() - 2;
      for (int64_t kernel : {int64_t{1}, kWindow}) {
        for (int64_t pad : {int64_t{0}, kWindow - 1}) {
          for (int64_t stride : {int64_t{1}, kWindow}) {
            for (int64_t dilation : {int64_t{1}, kWindow}) {
              for (const char* auto_pad : {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"}) {
                for (int64_t ceil_mode : {0, 1}) {
                  Ints pads(2 * axes, 0);
                  std::fill(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(axes), pad);
                  AttributeMap attrs = Attrs({{"kernel_shape", AttributeValue(Ints(axes, kernel))},
                                              {"pads", AttributeValue(pads)},
                                              {"strides", AttributeValue(Ints(axes, stride))},
                                              {"dilations", AttributeValue(Ints(axes, dilation))},
                                              {"auto_pad", shape_testing::Str(auto_pad)},
                                              {"ceil_mode", Int(ceil_mode)}});
                  std::vector<In> inputs;
                  for (int i = 0; i < std::max(schema.min_inputs, 1) && schema.max_inputs != 0; ++i)
                    inputs.push_back(pair[static_cast<size_t>(std::min(i, 1))]);
                  CheckCase(op, 13, inputs, attrs, schema.min_outputs, &ok);
                  ++cases;
                  if (::testing::Test::HasFatalFailure()) return;
                }
              }
            }
          }
        }
      }
    }
    // Constant inputs (pads, shapes, starts, ends, steps, repeats, axes, sizes, ranges): one
    // of them, or all, of every length a rank asks for, filled with one extreme value; the
    // others ordinary (1). The data input is an ordinary tensor or the largest a byte tensor
    // may be.
    for (int64_t opset : {11, 13, 18}) {
      for (const In& data : {F({1, 3, 8, 8}), Typed(DType::kUint8, {1, 1, kMax})}) {
        for (int64_t length : {-1, 1, 2, 4, 8}) {  // -1: a scalar
          auto constant = [&](int64_t value) {
            return length < 0 ? ConstScalarInt(value) : Const(Ints(length, value));
          };
          for (int64_t value : kExtremeInts) {
            for (int extreme = -1; extreme < most_inputs; ++extreme) {  // -1: every one
              std::vector<In> inputs = {extreme == 0 ? constant(value) : data};
              for (int i = 1; i < most_inputs; ++i)
                inputs.push_back(constant(extreme < 0 || extreme == i ? value : 1));
              CheckCase(op, opset, inputs, {}, schema.min_outputs, &ok);
              ++cases;
              if (::testing::Test::HasFatalFailure()) return;
            }
          }
        }
      }
    }
    // Random combinations: inputs of every kind (runtime tensors up to the largest dims their
    // type allows, constant ints and floats from the extreme tables, omitted ones), up to four
    // extreme attributes, and opsets across the forms that moved from attributes to inputs.
    for (int trial = 0; trial < 400; ++trial) {
      const int count =
          schema.min_inputs + static_cast<int>(rng() % (most_inputs - schema.min_inputs + 1));
      std::vector<In> inputs;
      for (int i = 0; i < count; ++i) inputs.push_back(RandomInput(rng));
      AttributeMap attrs;
      // One draw per statement: the order in which a call's arguments are evaluated differs
      // between compilers, and the cases must not.
      for (int a = 0, n = static_cast<int>(rng() % 5); a < n; ++a) {
        const std::string& name = Pick(rng, kIntAttributes);
        attrs.Set(name, ExtremeAttribute(rng));
      }
      if (rng() % 4 == 0) {
        std::vector<float> scales(1 + rng() % 4);
        for (float& s : scales) s = Pick(rng, kExtremeFloats);
        attrs.Set("scales", scales);
      }
      const int64_t opset = Pick(rng, kOpsets);
      const int outputs = OutputCount(schema, rng);
      CheckCase(op, opset, std::move(inputs), std::move(attrs), outputs, &ok);
      ++cases;
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // The sweep reaches the ops' arithmetic, not just their first check: some cases pass.
  EXPECT_GT(ok, cases / 20) << ok << " of " << cases << " cases inferred";
  std::printf("%lld cases over %zu ops, %lld inferred\n", static_cast<long long>(cases), ops.size(),
              static_cast<long long>(ok));
}

// ---- The overflows found, each an error now -----------------------------------------------

// Issue 51's finding: Pad's output dim in + begin + end with pads near -2^62.
TEST(ShapeOverflowTest, PadOutputLength) {
  ExpectError(InferOneNode("Pad", 13,
                           {F({1, 3}), Const({0, -4820069034516447405, 0, -4823936624638977369})}),
              StatusCode::kInvalidInput, "the padded length of axis 1");
  ExpectError(InferOneNode("Pad", 13, {F({1, 3}), Const({0, kMax, 0, 1})}),
              StatusCode::kInvalidInput, "overflows 64 bits");
  // Within int64 it is the ordinary refusal of a negative length.
  ExpectError(InferOneNode("Pad", 13, {F({1, 3}), Const({0, -k2p62, 0, -k2p62})}),
              StatusCode::kInvalidInput, "remove more than");
}

TEST(ShapeOverflowTest, ConcatJoinedLength) {
  const In half = Typed(DType::kBool, {k2p62});
  ExpectError(InferOneNode("Concat", 13, {half, half, half}, Attrs({{"axis", Int(0)}})),
              StatusCode::kInvalidInput, "the joined axis 0 overflows 64 bits");
}

TEST(ShapeOverflowTest, SplitSizesAndChunks) {
  ExpectError(
      InferOneNode("Split", 13, {F({1, 8}), Const({kMax, kMax})}, Attrs({{"axis", Int(1)}}), 2),
      StatusCode::kInvalidInput, "summing to the axis length 8");
  ExpectError(InferOneNode("Split", 18, {Typed(DType::kUint8, {kMax})},
                           Attrs({{"num_outputs", Int(2)}}), 2),
              StatusCode::kInvalidInput, "the chunk length overflows 64 bits");
}

TEST(ShapeOverflowTest, TileRepeats) {
  ExpectError(InferOneNode("Tile", 13, {F({1, 8}), Const({1, k2p62})}), StatusCode::kInvalidInput,
              "dim 1 repeated 4611686018427387904 times overflows 64 bits");
}

TEST(ShapeOverflowTest, RangeCounts) {
  ExpectError(
      InferOneNode("Range", 13, {ConstScalarInt(kMin), ConstScalarInt(kMax), ConstScalarInt(1)}),
      StatusCode::kInvalidInput, "limit - start of the range overflows 64 bits");
  ExpectError(InferOneNode("Range", 13,
                           {shape_testing::ConstScalar(0.f), shape_testing::ConstScalar(1e30f),
                            shape_testing::ConstScalar(1.f)}),
              StatusCode::kInvalidInput, "the element count of the range overflows 64 bits");
}

TEST(ShapeOverflowTest, ConvGroupTimesChannels) {
  ExpectError(InferOneNode("Conv", 13, {F({1, 4, 8, 8}), Weight({4, 4, 1, 1})},
                           Attrs({{"group", Int(k2p62)}})),
              StatusCode::kInvalidInput, "does not divide");
  // 4 channels per group in 2^62 groups: the product 2^64 was computed before it was compared.
  ExpectError(InferOneNode("Conv", 13, {F({1, 0, 8, 8}), Weight({0, 4, 1, 1})},
                           Attrs({{"group", Int(k2p62)}})),
              StatusCode::kInvalidInput, "expect more than 2^63");
}

TEST(ShapeOverflowTest, WindowOfAHugeInput) {
  const In huge = Typed(DType::kUint8, {1, 1, kMax});
  constexpr int64_t kLargestWindow = (int64_t{1} << 31) - 1;  // ReadWindowParams' bound
  ExpectError(InferOneNode("MaxPool", 13, {huge},
                           Attrs({{"kernel_shape", AttributeValue(Ints{kLargestWindow})},
                                  {"pads", AttributeValue(Ints{kLargestWindow - 1, 0})}})),
              StatusCode::kInvalidInput, "spatial axis 0's padded length overflows 64 bits");
  ExpectError(InferOneNode("MaxPool", 13, {huge},
                           Attrs({{"kernel_shape", AttributeValue(Ints{3})},
                                  {"strides", AttributeValue(Ints{2})},
                                  {"auto_pad", shape_testing::Str("SAME_UPPER")}})),
              StatusCode::kInvalidInput, "spatial axis 0's output length overflows 64 bits");
}

TEST(ShapeOverflowTest, ResizeScalesAndSizes) {
  ExpectError(InferOneNode("Resize", 13,
                           {F({1, 3, 8, 8}), shape_testing::Omitted(),
                            In{DType::kFloat32, {4}, Tensor::FromFloat({1, 1, 1e30f, 1}, {4})}}),
              StatusCode::kInvalidInput, "axis 2 of length 8 scaled by");
  ExpectError(
      InferOneNode("Resize", 18,
                   {F({1, 3, 8, 8}), shape_testing::Omitted(), shape_testing::Omitted(),
                    Const({1, 3, kMax, 1})},
                   Attrs({{"keep_aspect_ratio_policy", shape_testing::Str("not_smaller")}})),
      StatusCode::kInvalidInput, "overflows 64 bits");
}

// The kernels' reading of Concat and Split (ops/op_params.h), whose dims come from a plan file.
TEST(ShapeOverflowTest, ConcatAndSplitPartsAddUp) {
  Node node;
  node.name = "n";
  node.op_type = "Concat";
  node.opset = 13;
  node.attrs.Set("axis", int64_t{0});
  node.inputs = {0, 1, 2};
  const std::vector<TensorType> parts(3, TensorType{DType::kBool, {k2p62}});
  const std::vector<const Tensor*> constants(3, nullptr);
  StatusOr<AxisParts> concat = ParseConcat(NodeInputs{node, parts, constants}, {kMax});
  ASSERT_FALSE(concat.ok());
  EXPECT_NE(concat.status().message().find("inputs add up to more than 2^63"), std::string::npos)
      << concat.status().message();
  node.op_type = "Split";
  node.inputs = {0};
  const std::vector<TensorType> whole = {TensorType{DType::kBool, {kMax}}};
  StatusOr<AxisParts> split = ParseSplit(NodeInputs{node, whole, {nullptr}}, parts);
  ASSERT_FALSE(split.ok());
  EXPECT_NE(split.status().message().find("outputs add up to more than 2^63"), std::string::npos)
      << split.status().message();
}

// A slice's step may be any int64 but 0: one element per axis, at the clamped start.
TEST(ShapeOverflowTest, SliceStepsOfEveryMagnitude) {
  for (int64_t step : {kMax, kMin, k2p62, -k2p62}) {
    SCOPED_TRACE(step);
    EXPECT_OUT_DIMS(InferOneNode("Slice", 13,
                                 {F({1, 8}), Const({0}), Const({kMax}), Const({1}), Const({step})}),
                    0, {1, step > 0 ? 1 : 0});
    int64_t begin = -1, size = -1;
    ClampSliceAxis(8, step > 0 ? 0 : 7, step > 0 ? kMax : kMin, step, &begin, &size);
    EXPECT_EQ(size, 1);
    EXPECT_EQ(begin, step > 0 ? 0 : 7);
  }
}

// The same rule for a model's initializers and constants, which never pass InferNode.
TEST(ShapeOverflowTest, AnEmptyInitializerCannotHideHugeDims) {
  onnx::TensorProto proto;
  proto.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {int64_t{0}, int64_t{1} << 40, int64_t{1} << 40}) proto.add_dims(d);
  StatusOr<Tensor> huge = TensorFromProto(proto, "initializer 'w'");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("initializer 'w': dims [0,1099511627776,1099511627776] "
                                         "overflow a size"),
            std::string::npos)
      << huge.status().message();
  proto.clear_dims();
  proto.add_dims(0);
  proto.add_dims(3);
  StatusOr<Tensor> empty = TensorFromProto(proto, "initializer 'w'");
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->dims(), (Dims{0, 3}));
}

// Every subset of a shape's dims multiplies within int64: an empty tensor cannot hide dims
// whose product overflows (a Flatten of [0, 2^40, 2^40] would multiply 2^80).
TEST(ShapeOverflowTest, CheckedNumBytesCountsAZeroAsOne) {
  EXPECT_EQ(CheckedNumBytes(DType::kFloat32, {0, 3, 8}), 0);
  EXPECT_EQ(CheckedNumBytes(DType::kUint8, {1, kMax}), kMax);
  EXPECT_EQ(CheckedNumBytes(DType::kFloat32, {2, 3}), 24);
  EXPECT_EQ(CheckedNumBytes(DType::kFloat32, {0, int64_t{1} << 40, int64_t{1} << 40}), -1);
  EXPECT_EQ(CheckedNumBytes(DType::kFloat32, {int64_t{1} << 40, int64_t{1} << 40, 0}), -1);
  EXPECT_EQ(CheckedNumBytes(DType::kFloat32, {1, -1}), -1);
  ExpectError(InferOneNode("ConstantOfShape", 13, {Const({0, int64_t{1} << 40, int64_t{1} << 40})}),
              StatusCode::kInvalidInput, "whose size overflows 64 bits");
}

}  // namespace
}  // namespace ios::shape_overflow
