// Shape inference and cost of the reductions (ReduceMean, ReduceSum, ReduceMax, ...), ArgMax and
// ArgMin and LogSoftmax, in every opset form of their axes, on one-node graphs
// (op_shape_test_util.h). Expected shapes follow ONNX's definitions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "op_shape_test_util.h"

namespace ios {
namespace {

using namespace shape_testing;  // NOLINT: the helpers of op_shape_test_util.h

const char* const kReductions[] = {"ReduceMean", "ReduceSum",       "ReduceMax",
                                   "ReduceMin",  "ReduceProd",      "ReduceL1",
                                   "ReduceL2",   "ReduceSumSquare", "ReduceLogSumExp"};

// The opset from which the op takes its axes as input 1.
int64_t InputSince(const std::string& op) { return op == "ReduceSum" ? 13 : 18; }

TEST(ReductionShapeTest, AxesAsAttributeThenAsInput) {
  for (const char* op : kReductions) {
    SCOPED_TRACE(op);
    const int64_t since = InputSince(op);
    auto attr = InferOneNode(op, since - 1, {F({2, 3, 4, 5})},
                             Attrs({{"axes", Ints{1, -1}}, {"keepdims", Int(0)}}));
    EXPECT_OUT_DIMS(attr, 0, {2, 4});
    auto input = InferOneNode(op, since, {F({2, 3, 4, 5}), Const({1, -1})});
    EXPECT_OUT_DIMS(input, 0, {2, 1, 4, 1});
    auto all = InferOneNode(op, since, {F({2, 3, 4, 5})}, Attrs({{"keepdims", Int(0)}}));
    EXPECT_OUT_DIMS(all, 0, {});
    auto empty = InferOneNode(op, since, {F({2, 3}), Const({})});
    EXPECT_OUT_DIMS(empty, 0, {1, 1});
    auto noop =
        InferOneNode(op, since, {F({2, 3}), Const({})}, Attrs({{"noop_with_empty_axes", Int(1)}}));
    EXPECT_OUT_DIMS(noop, 0, {2, 3});
    auto omitted =
        InferOneNode(op, since, {F({2, 3}), Omitted()}, Attrs({{"noop_with_empty_axes", Int(1)}}));
    EXPECT_OUT_DIMS(omitted, 0, {2, 3});
    ExpectError(InferOneNode(op, since, {F({2, 3})}, Attrs({{"axes", Ints{1}}})),
                StatusCode::kInvalidInput,
                "'axes' is an input from opset " + std::to_string(since) + ", not an attribute");
    ExpectError(InferOneNode(op, since - 1, {F({2, 3}), Const({1})}), StatusCode::kInvalidInput,
                "'axes' is an input only from opset " + std::to_string(since));
    ExpectError(InferOneNode(op, since, {F({2, 3}), Const({2})}), StatusCode::kInvalidInput,
                "axis 2 is out of range for rank 2");
    ExpectError(InferOneNode(op, since, {F({2, 3}), Const({1, -1})}), StatusCode::kInvalidInput,
                "name axis 1 twice");
  }
}

TEST(ReductionShapeTest, RuntimeAxesAreUnsupported) {
  ExpectError(InferOneNode("ReduceMax", 18, {F({2, 3}), Typed(DType::kInt64, {1})}),
              StatusCode::kUnsupported, "input 'axes' computed at run time");
}

TEST(ReductionShapeTest, TypesAndCost) {
  auto ints = InferOneNode("ReduceSum", 13, {Typed(DType::kInt64, {4, 5})});
  EXPECT_OUT_DIMS(ints, 0, {1, 1});
  EXPECT_EQ(ints.Out().dtype, DType::kInt64);
  auto flags = InferOneNode("ReduceMax", 20, {Bool({4, 5}), Const({0})});
  EXPECT_OUT_DIMS(flags, 0, {1, 5});
  EXPECT_EQ(flags.Out().dtype, DType::kBool);
  ExpectError(InferOneNode("ReduceSum", 13, {Bool({4, 5})}), StatusCode::kInvalidInput,
              "only ReduceMax and ReduceMin take bool");
  EXPECT_EQ(InferOneNode("ReduceMax", 13, {F({4, 5})}).Cost().flops, 20);
  EXPECT_EQ(InferOneNode("ReduceL2", 13, {F({4, 5})}).Cost().flops, 40);
  EXPECT_EQ(InferOneNode("ReduceLogSumExp", 13, {F({4, 5})}).Cost().flops, 80);
}

TEST(ArgReduceShapeTest, AxisKeepdimsAndSelectLastIndex) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    SCOPED_TRACE(op);
    auto kept = InferOneNode(op, 13, {F({2, 10, 4})}, Attrs({{"axis", Int(1)}}));
    EXPECT_OUT_DIMS(kept, 0, {2, 1, 4});
    EXPECT_EQ(kept.Out().dtype, DType::kInt64);
    auto dropped = InferOneNode(
        op, 13, {F({2, 10, 4})},
        Attrs({{"axis", Int(-1)}, {"keepdims", Int(0)}, {"select_last_index", Int(1)}}));
    EXPECT_OUT_DIMS(dropped, 0, {2, 10});
    auto default_axis = InferOneNode(op, 11, {Typed(DType::kInt64, {3, 2})});
    EXPECT_OUT_DIMS(default_axis, 0, {1, 2});
    ExpectError(InferOneNode(op, 13, {F({2, 3})}, Attrs({{"axis", Int(2)}})),
                StatusCode::kInvalidInput, "axis 2 is out of range for rank 2");
    ExpectError(InferOneNode(op, 11, {F({2, 3})}, Attrs({{"select_last_index", Int(1)}})),
                StatusCode::kInvalidInput, "'select_last_index' is an attribute from opset 12");
    ExpectError(InferOneNode(op, 13, {F({2, 0})}, Attrs({{"axis", Int(1)}})),
                StatusCode::kInvalidInput, "axis 1 of the input [2,0] is empty");
  }
}

TEST(LogSoftmaxShapeTest, TakesSoftmaxsAxisForms) {
  auto coerced = InferOneNode("LogSoftmax", 11, {F({2, 3, 4})}, Attrs({{"axis", Int(1)}}));
  EXPECT_OUT_DIMS(coerced, 0, {2, 3, 4});
  auto last = InferOneNode("LogSoftmax", 13, {F({2, 3, 4})});
  EXPECT_OUT_DIMS(last, 0, {2, 3, 4});
  ExpectError(InferOneNode("LogSoftmax", 13, {F({2, 3, 4})}, Attrs({{"axis", Int(3)}})),
              StatusCode::kInvalidInput, "axis 3 is out of range for rank 3");
  EXPECT_EQ(InferOneNode("LogSoftmax", 13, {F({2, 10})}).Cost().flops, 100);
}

}  // namespace
}  // namespace ios
