// Shape inference and cost of the elementwise and layout ops that recent CNN exports brought (the
// activations past Elu, PRelu, DepthToSpace/SpaceToDepth), on one-node graphs
// (op_shape_test_util.h). Expected shapes follow ONNX's definitions (onnx.shape_inference agrees).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "op_shape_test_util.h"

namespace ios {
namespace {

using namespace shape_testing;  // NOLINT: the helpers of op_shape_test_util.h

TEST(ActivationShapeTest, NewActivationsKeepTypeFromTheirFirstOpset) {
  const struct {
    const char* op;
    int64_t since;
  } ops[] = {{"Softplus", 7}, {"Mish", 18},    {"Selu", 7},
             {"Celu", 12},    {"Softsign", 7}, {"ThresholdedRelu", 10}};
  for (const auto& [op, since] : ops) {
    SCOPED_TRACE(op);
    auto one = InferOneNode(op, 22, {F({2, 3, 5})});
    EXPECT_OUT_DIMS(one, 0, {2, 3, 5});
    EXPECT_EQ(one.Out().dtype, DType::kFloat32);
    auto oldest = InferOneNode(op, since, {Typed(DType::kFloat64, {4})});
    EXPECT_OUT_DIMS(oldest, 0, {4});
    EXPECT_EQ(oldest.Out().dtype, DType::kFloat64);
    ExpectError(InferOneNode(op, 22, {Typed(DType::kInt64, {4})}), StatusCode::kInvalidInput,
                "takes a float type");
  }
  ExpectError(InferOneNode("Mish", 17, {F({4})}), StatusCode::kInvalidInput,
              "Mish exists from opset 18");
  ExpectError(InferOneNode("Celu", 11, {F({4})}), StatusCode::kInvalidInput,
              "Celu exists from opset 12");
  ExpectError(InferOneNode("ThresholdedRelu", 9, {F({4})}), StatusCode::kInvalidInput,
              "from opset 10");
}

TEST(ActivationShapeTest, AttributesAreChecked) {
  auto selu =
      InferOneNode("Selu", 13, {F({4})}, Attrs({{"alpha", Float(1.5f)}, {"gamma", Float(2.f)}}));
  EXPECT_OUT_DIMS(selu, 0, {4});
  ExpectError(InferOneNode("Selu", 13, {F({4})}, Attrs({{"gamma", Int(2)}})),
              StatusCode::kInvalidInput, "gamma");
  ExpectError(InferOneNode("Celu", 13, {F({4})}, Attrs({{"alpha", Float(0.f)}})),
              StatusCode::kInvalidInput, "'alpha' of Celu must not be 0");
  ExpectError(InferOneNode("ThresholdedRelu", 13, {F({4})}, Attrs({{"alpha", Str("1")}})),
              StatusCode::kInvalidInput, "alpha");
  // The error names the node and op.
  auto bad = InferOneNode("Celu", 13, {F({4})}, Attrs({{"alpha", Float(0.f)}}));
  EXPECT_NE(bad.status.message().find("node 'n' (Celu, opset 13)"), std::string::npos)
      << bad.status.message();
}

TEST(ActivationShapeTest, CostCountsTheOpsPerElement) {
  EXPECT_EQ(InferOneNode("Mish", 18, {F({2, 10})}).Cost().flops, 100);
  EXPECT_EQ(InferOneNode("ThresholdedRelu", 13, {F({2, 10})}).Cost().flops, 20);
  EXPECT_EQ(InferOneNode("Softplus", 13, {F({2, 10})}).Cost().bytes_moved, 160);
}

TEST(PReluShapeTest, TheSlopeBroadcastsToTheInputOnly) {
  for (const Dims& slope :
       {Dims{1}, Dims{6, 1, 1}, Dims{1, 6, 1, 1}, Dims{7}, Dims{5, 7}, Dims{2, 6, 5, 7}}) {
    SCOPED_TRACE(DimsToString(slope));
    auto one = InferOneNode("PRelu", 16, {F({2, 6, 5, 7}), Weight(slope)});
    EXPECT_OUT_DIMS(one, 0, {2, 6, 5, 7});
  }
  // A per-channel [C] against NCHW lines up with W, not C: numpy rules, no special case.
  ExpectError(InferOneNode("PRelu", 9, {F({2, 6, 5, 7}), Weight({6})}), StatusCode::kInvalidInput,
              "slope has shape [6], which does not broadcast to the input's shape [2,6,5,7]");
  // Unidirectional: a slope larger than X would grow the output.
  ExpectError(InferOneNode("PRelu", 16, {F({1, 6, 1, 1}), Weight({2, 6, 5, 7})}),
              StatusCode::kInvalidInput, "does not broadcast to the input's shape");
  ExpectError(InferOneNode("PRelu", 16, {F({2, 3}), Typed(DType::kFloat64, {3})}),
              StatusCode::kInvalidInput, "input 1 has type");
  EXPECT_EQ(InferOneNode("PRelu", 16, {F({2, 10}), Weight({10})}).Cost().flops, 40);
}

TEST(DepthSpaceShapeTest, DepthToSpaceInBothModes) {
  for (const char* mode : {"DCR", "CRD"}) {
    auto one = InferOneNode("DepthToSpace", 13, {F({2, 18, 4, 5})},
                            Attrs({{"blocksize", Int(3)}, {"mode", Str(mode)}}));
    EXPECT_OUT_DIMS(one, 0, {2, 2, 12, 15});
  }
  auto int64 = InferOneNode("DepthToSpace", 11, {Typed(DType::kInt64, {1, 4, 1, 1})},
                            Attrs({{"blocksize", Int(2)}}));
  EXPECT_OUT_DIMS(int64, 0, {1, 1, 2, 2});
  EXPECT_EQ(int64.Out().dtype, DType::kInt64);
  ExpectError(InferOneNode("DepthToSpace", 13, {F({1, 8, 2, 2})}, Attrs({{"blocksize", Int(3)}})),
              StatusCode::kInvalidInput, "8 channels, which blocksize 3 does not split");
  ExpectError(InferOneNode("DepthToSpace", 13, {F({1, 8, 2, 2})}), StatusCode::kInvalidInput,
              "'blocksize' is required");
  ExpectError(InferOneNode("DepthToSpace", 13, {F({1, 8, 2, 2})}, Attrs({{"blocksize", Int(0)}})),
              StatusCode::kInvalidInput, "positive block size");
  ExpectError(InferOneNode("DepthToSpace", 13, {F({1, 8, 2, 2})},
                           Attrs({{"blocksize", Int(2)}, {"mode", Str("RCD")}})),
              StatusCode::kInvalidInput, "'mode' is 'RCD'");
  ExpectError(InferOneNode("DepthToSpace", 13, {F({8, 2, 2})}, Attrs({{"blocksize", Int(2)}})),
              StatusCode::kInvalidInput, "expected 4 dims");
  ExpectError(InferOneNode("DepthToSpace", 13, {F({1, 4, 2, 2})},
                           Attrs({{"blocksize", Int(int64_t{1} << 32)}})),
              StatusCode::kInvalidInput, "positive block size");
}

TEST(DepthSpaceShapeTest, SpaceToDepthAndItsOpset28Mode) {
  auto one = InferOneNode("SpaceToDepth", 13, {F({2, 3, 6, 4})}, Attrs({{"blocksize", Int(2)}}));
  EXPECT_OUT_DIMS(one, 0, {2, 12, 3, 2});
  EXPECT_EQ(one.Cost().flops, 0);
  auto crd = InferOneNode("SpaceToDepth", 28, {F({2, 3, 6, 4})},
                          Attrs({{"blocksize", Int(2)}, {"mode", Str("CRD")}}));
  EXPECT_OUT_DIMS(crd, 0, {2, 12, 3, 2});
  ExpectError(InferOneNode("SpaceToDepth", 13, {F({2, 3, 6, 4})},
                           Attrs({{"blocksize", Int(2)}, {"mode", Str("DCR")}})),
              StatusCode::kInvalidInput, "'mode' of SpaceToDepth exists from opset 28");
  ExpectError(InferOneNode("SpaceToDepth", 13, {F({2, 3, 6, 5})}, Attrs({{"blocksize", Int(2)}})),
              StatusCode::kInvalidInput, "6x5 are not multiples of blocksize 2");
}

}  // namespace
}  // namespace ios
