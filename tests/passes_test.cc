#include <gtest/gtest.h>

#include <cmath>

#include "ir/fused_activation.h"
#include "kernels/math/cast_math.h"
#include "kernels/reference/reference_graph.h"
#include "passes/canonicalize.h"
#include "passes/conv_transpose_as_conv.h"
#include "passes/eliminate_identity.h"
#include "passes/fold_batchnorm.h"
#include "passes/fuse_activation.h"
#include "passes/infer_and_fold.h"
#include "passes/widen_float16.h"
#include "tensor_compare.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::CountOps;
using testing::GraphBuilder;
using testing::MaxAbsDiff;

// Conv -> BatchNormalization -> Relu, with random statistics.
Graph ConvBnRelu(GraphBuilder& b) {
  ValueId x = b.Input("x", {2, 3, 9, 9});
  ValueId conv = b.Conv(x, 8, 3, 1);
  Tensor var = b.Random({8});
  for (int64_t i = 0; i < 8; ++i) var.data<float>()[i] = std::fabs(var.data<float>()[i]) + 0.1f;
  ValueId bn = b.Op("BatchNormalization",
                    {conv, b.Constant("gamma", b.Random({8})), b.Constant("beta", b.Random({8})),
                     b.Constant("mean", b.Random({8})), b.Constant("var", std::move(var))});
  ValueId relu = b.Op("Relu", {bn});
  return b.Finish({relu});
}

TEST(FoldBatchNormTest, FoldedConvComputesTheSameAsConvThenBatchNorm) {
  GraphBuilder b;
  Graph g = ConvBnRelu(b);
  Tensor input = b.Random({2, 3, 9, 9});
  auto before = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(before.ok()) << before.status().message();
  auto folded = FoldBatchNormIntoConv(g);
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(folded.value(), 1);
  EXPECT_EQ(CountOps(g, "BatchNormalization"), 0);
  auto after = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_LT(MaxAbsDiff(before.value()[0], after.value()[0]), 1e-5f);
}

TEST(FoldBatchNormTest, SkipsAConvWhoseOutputHasAnotherReader) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 2, 5, 5});
  ValueId conv = b.Conv(x, 4, 1);
  ValueId bn =
      b.Op("BatchNormalization",
           {conv, b.Constant("g", b.Random({4})), b.Constant("be", b.Random({4})),
            b.Constant("m", b.Random({4})), b.Constant("v", Tensor::FromFloat({1, 2, 3, 4}, {4}))});
  ValueId other = b.Op("Relu", {conv});
  Graph g = b.Finish({bn, other});
  auto folded = FoldBatchNormIntoConv(g);
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(folded.value(), 0);
  EXPECT_EQ(CountOps(g, "BatchNormalization"), 1);
}

// training_mode=1 normalises by the conv output's own statistics, which no weight folding can
// reproduce: the pass must leave it, and the graph still computes the batch statistics.
TEST(FoldBatchNormTest, SkipsTrainingMode) {
  GraphBuilder b(15);
  ValueId x = b.Input("x", {2, 2, 5, 5});
  ValueId conv = b.Conv(x, 4, 1);
  AttributeMap training;
  training.Set("training_mode", int64_t{1});
  ValueId bn =
      b.Op("BatchNormalization",
           {conv, b.Constant("g", Tensor::FromFloat({1, 1, 1, 1}, {4})),
            b.Constant("be", Tensor::FromFloat({0, 0, 0, 0}, {4})), b.Constant("m", b.Random({4})),
            b.Constant("v", Tensor::FromFloat({1, 2, 3, 4}, {4}))},
           training);
  Graph g = b.Finish({bn});
  auto folded = FoldBatchNormIntoConv(g);
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(folded.value(), 0);
  auto out = EvaluateGraphReference(g, {b.Random({2, 2, 5, 5})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // Every channel of the output has mean 0 and (population) variance 1 - epsilon / (var + eps).
  const Tensor& y = out.value()[0];
  for (int64_t c = 0; c < 4; ++c) {
    double sum = 0, squares = 0;
    for (int64_t n = 0; n < 2; ++n) {
      for (int64_t i = 0; i < 25; ++i) {
        const double v = y.data<float>()[(n * 4 + c) * 25 + i];
        sum += v;
        squares += v * v;
      }
    }
    EXPECT_NEAR(sum / 50, 0.0, 1e-5) << "channel " << c;
    EXPECT_NEAR(squares / 50, 1.0, 1e-3) << "channel " << c;
  }
}

TEST(FuseActivationTest, ReluAndClipFuseIntoTheConvBefore) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 3, 6, 6});
  ValueId relu = b.Op("Relu", {b.Conv(x, 4, 3, 1)});
  ValueId clip = b.Op("Clip", {b.Conv(relu, 4, 1), b.Constant("lo", Tensor::FromFloat({0.f}, {})),
                               b.Constant("hi", Tensor::FromFloat({6.f}, {}))});
  Graph g = b.Finish({clip});
  Tensor input = b.Random({1, 3, 6, 6});
  auto before = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(FuseConvActivations(g), 2);
  EXPECT_EQ(CountOps(g, "Relu") + CountOps(g, "Clip"), 0);
  Activation second = GetFusedActivation(g.nodes[g.values[g.outputs[0]].producer].attrs);
  EXPECT_EQ(second.kind, ActivationKind::kClip);
  EXPECT_FLOAT_EQ(second.alpha, 0.f);
  EXPECT_FLOAT_EQ(second.beta, 6.f);
  auto after = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_LT(MaxAbsDiff(before.value()[0], after.value()[0]), 1e-6f);
}

TEST(FuseActivationTest, KeepsTheActivationWhenTheConvOutputIsReadTwice) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 3, 6, 6});
  ValueId conv = b.Conv(x, 4, 1);
  ValueId relu = b.Op("Relu", {conv});
  ValueId sum = b.Op("Add", {relu, conv});
  Graph g = b.Finish({sum});
  EXPECT_EQ(FuseConvActivations(g), 0);
  EXPECT_EQ(CountOps(g, "Relu"), 1);
}

// oneDNN has exact algorithms for Softplus and Mish, none for Selu, Celu, Softsign and
// ThresholdedRelu: those stay ops (ConvFusesActivation).
TEST(FuseActivationTest, FusesSoftplusAndMishButLeavesTheOthers) {
  GraphBuilder b(18);
  ValueId x = b.Input("x", {1, 3, 6, 6});
  ValueId y = b.Op("Softplus", {b.Conv(x, 4, 3, 1)});
  y = b.Op("Mish", {b.Conv(y, 4, 1)});
  for (const char* op : {"Selu", "Celu", "Softsign", "ThresholdedRelu"})
    y = b.Op(op, {b.Conv(y, 4, 1)});
  Graph g = b.Finish({y});
  Tensor input = b.Random({1, 3, 6, 6});
  auto before = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(FuseConvActivations(g), 2);
  EXPECT_EQ(CountOps(g, "Softplus") + CountOps(g, "Mish"), 0);
  for (const char* op : {"Selu", "Celu", "Softsign", "ThresholdedRelu"})
    EXPECT_EQ(CountOps(g, op), 1) << op;
  auto after = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_LT(MaxAbsDiff(before.value()[0], after.value()[0]), 1e-6f);
}

// SiLU as torch.onnx and timm export it: Mul(x, Sigmoid(x)), in either operand order.
TEST(FuseActivationTest, SiluFusesIntoTheConvBefore) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 3, 6, 6});
  ValueId c1 = b.Conv(x, 4, 3, 1);
  ValueId y = b.Op("Mul", {c1, b.Op("Sigmoid", {c1})});
  ValueId c2 = b.Conv(y, 4, 1);
  y = b.Op("Mul", {b.Op("Sigmoid", {c2}), c2});
  // Not a SiLU: the conv output has a third reader.
  ValueId c3 = b.Conv(y, 4, 1);
  ValueId gated = b.Op("Mul", {c3, b.Op("Sigmoid", {c3})});
  ValueId out = b.Op("Add", {gated, c3});
  Graph g = b.Finish({out});
  Tensor input = b.Random({1, 3, 6, 6});
  auto before = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(FuseConvActivations(g), 2);
  EXPECT_EQ(CountOps(g, "Sigmoid"), 1);
  EXPECT_EQ(CountOps(g, "Mul"), 1);
  int silu = 0;
  for (const Node& node : g.nodes)
    silu += node.op_type == "Conv" && GetFusedActivation(node.attrs).kind == ActivationKind::kSilu;
  EXPECT_EQ(silu, 2);
  auto after = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_LT(MaxAbsDiff(before.value()[0], after.value()[0]), 1e-6f);
}

// CPU plans fuse the activation after a ConvTranspose, SiLU included, and nothing else into it.
TEST(FuseActivationTest, ActivationsFuseIntoTheConvTransposeBefore) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 5, 5});
  auto transpose = [&](ValueId in) {
    AttributeMap attrs;
    attrs.Set("strides", std::vector<int64_t>{2, 2});
    return b.Op("ConvTranspose", {in, b.Constant("w" + std::to_string(in), b.Random({4, 4, 2, 2})),
                                  b.Constant("b" + std::to_string(in), b.Random({4}))},
                std::move(attrs));
  };
  ValueId t1 = transpose(x);
  ValueId y = b.Op("Relu", {t1});
  ValueId t2 = transpose(y);
  y = b.Op("Mul", {t2, b.Op("Sigmoid", {t2})});
  ValueId t3 = transpose(y);
  ValueId read_twice = b.Op("Add", {b.Op("Relu", {t3}), t3});  // stays
  Graph g = b.Finish({read_twice});
  Tensor input = b.Random({1, 4, 5, 5});
  auto before = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(FuseConvActivations(g), 0);  // the conv pass leaves ConvTransposes alone
  EXPECT_EQ(FuseConvTransposeActivations(g), 2);
  EXPECT_EQ(CountOps(g, "Relu"), 1);
  EXPECT_EQ(CountOps(g, "Sigmoid") + CountOps(g, "Mul"), 0);
  std::vector<ActivationKind> kinds;
  for (const Node& node : g.nodes)
    if (node.op_type == "ConvTranspose") kinds.push_back(GetFusedActivation(node.attrs).kind);
  EXPECT_EQ(kinds, (std::vector<ActivationKind>{ActivationKind::kRelu, ActivationKind::kSilu,
                                                ActivationKind::kNone}));
  auto after = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_LT(MaxAbsDiff(before.value()[0], after.value()[0]), 1e-6f);
}

// Stride-1 ConvTransposes become the Convs they equal; the others stay.
TEST(ConvTransposeAsConvTest, StrideOneBecomesAConvThatComputesTheSame) {
  struct Spec {
    Dims x, w;  // X [N, C, ...], W [C, M/g, k...]
    int64_t group;
    Dims pads, dilations;
    bool rewritten;
  };
  const std::vector<Spec> specs = {
      {{1, 4, 7, 6}, {4, 3, 3, 3}, 1, {1, 1, 1, 1}, {1, 1}, true},
      {{2, 6, 5, 8}, {6, 2, 3, 2}, 3, {0, 1, 2, 0}, {1, 1}, true},       // groups, asymmetric
      {{1, 4, 9, 9}, {4, 4, 3, 3}, 1, {2, 0, 1, 3}, {2, 2}, true},        // dilated
      {{1, 3, 10}, {3, 5, 4}, 1, {3, 0}, {1}, true},                      // 1-D
      {{1, 4, 7, 6}, {4, 3, 3, 3}, 1, {3, 0, 0, 0}, {1, 1}, false},       // a pad beyond (k-1)d
  };
  for (const Spec& spec : specs) {
    SCOPED_TRACE(DimsToString(spec.w));
    GraphBuilder b;
    ValueId x = b.Input("x", spec.x);
    AttributeMap attrs;
    attrs.Set("group", spec.group);
    attrs.Set("pads", spec.pads);
    attrs.Set("dilations", spec.dilations);
    ValueId y = b.Op("ConvTranspose",
                     {x, b.Constant("w", b.Random(spec.w)),
                      b.Constant("b", b.Random({spec.w[1] * spec.group}))},
                     attrs, "up");
    Graph g = b.Finish({b.Op("Relu", {y})});
    Tensor input = b.Random(spec.x);
    auto before = EvaluateGraphReference(g, {input});
    ASSERT_TRUE(before.ok()) << before.status().message();
    CanonicalizeStats stats;
    ASSERT_TRUE(Canonicalize(g, CanonicalizeOptions(), &stats).ok());
    EXPECT_EQ(stats.conv_transposes_as_convs, spec.rewritten ? 1 : 0);
    EXPECT_EQ(CountOps(g, "ConvTranspose"), spec.rewritten ? 0 : 1);
    auto after = EvaluateGraphReference(g, {input});
    ASSERT_TRUE(after.ok()) << after.status().message();
    EXPECT_EQ(after.value()[0].dims(), before.value()[0].dims());
    EXPECT_LT(MaxAbsDiff(before.value()[0], after.value()[0]), 1e-5f);
    if (spec.rewritten) {  // the Relu fused into the new Conv, as into any conv
      EXPECT_EQ(CountOps(g, "Relu"), 0);
    }
  }
}

TEST(ConvTransposeAsConvTest, LeavesStridedAndRunTimeWeightedOnesAlone) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 5, 5});
  ValueId w = b.Input("w", {4, 4, 3, 3});  // run-time weights
  AttributeMap stride2;
  stride2.Set("strides", std::vector<int64_t>{2, 2});
  ValueId strided = b.Op("ConvTranspose", {x, b.Constant("w2", b.Random({4, 4, 3, 3}))}, stride2);
  ValueId runtime = b.Op("ConvTranspose", {x, w});
  Graph g = b.Finish({strided, runtime});
  EXPECT_EQ(RewriteStrideOneConvTransposes(g), 0);
  EXPECT_EQ(CountOps(g, "ConvTranspose"), 2);
}

TEST(EliminateIdentityTest, RemovesIdentityAndDropoutButKeepsTheOutputName) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 3, 4, 4});
  ValueId relu = b.Op("Relu", {x});
  ValueId id = b.Op("Identity", {relu});
  ValueId drop = b.Op("Dropout", {id});
  ValueId out = b.Op("Identity", {b.Op("Sigmoid", {drop})}, {}, "final");
  Graph g = b.Finish({out});
  EXPECT_EQ(EliminateIdentities(g), 3);
  EXPECT_EQ(CountOps(g, "Identity") + CountOps(g, "Dropout"), 0);
  EXPECT_EQ(g.values[g.outputs[0]].name, "final:0");
  EXPECT_EQ(g.nodes[g.values[g.outputs[0]].producer].op_type, "Sigmoid");
}

TEST(InferAndFoldTest, FoldsTheExportersFlattenChain) {
  // x -> Shape -> Gather(0) -> Unsqueeze -> Concat(-1) -> Reshape(x): the PyTorch flatten idiom.
  GraphBuilder b(13);
  b.set_infer(false);  // the Reshape's shape only becomes known by folding
  ValueId x = b.Input("x", {3, 4, 2, 2});
  ValueId shape = b.Op("Shape", {x});
  AttributeMap gather_axis;
  gather_axis.Set("axis", int64_t{0});
  ValueId batch =
      b.Op("Gather", {shape, b.Constant("zero", Tensor::FromInt64({0}, {}))}, gather_axis);
  ValueId batch1 = b.Op("Unsqueeze", {batch, b.Constant("axes", Tensor::FromInt64({0}, {1}))});
  AttributeMap concat_axis;
  concat_axis.Set("axis", int64_t{0});
  ValueId target =
      b.Op("Concat", {batch1, b.Constant("minus1", Tensor::FromInt64({-1}, {1}))}, concat_axis);
  ValueId flat = b.Op("Reshape", {x, target});
  Graph g = b.Finish({flat});
  FoldStats stats;
  Status status = InferShapesAndFoldConstants(g, &stats);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(stats.nodes_folded, 4);  // Shape, Gather, Unsqueeze, Concat
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op_type, "Reshape");
  const Value& shape_value = g.values[g.nodes[0].inputs[1]];
  ASSERT_TRUE(shape_value.constant.has_value());
  EXPECT_EQ(shape_value.constant->ToInt64Vector(), (std::vector<int64_t>{3, -1}));
  EXPECT_EQ(g.values[g.outputs[0]].dims, (Dims{3, 16}));
}

// A float32 tensor rounded to float16.
Tensor ToHalf(const Tensor& t) {
  Tensor half(DType::kFloat16, t.dims());
  for (int64_t i = 0; i < t.num_elements(); ++i)
    half.data<uint16_t>()[i] = DoubleToHalf(t.data<float>()[i]);
  return half;
}

// The float16 graph x -> Conv -> Cast(to float16) -> Relu -> y, as a `.half()` export writes it,
// computes in float32 inside and keeps float16 at its interface.
TEST(WidenFloat16Test, ComputesInFloat32BetweenFloat16InputsAndOutputs) {
  GraphBuilder b(13);
  b.set_infer(false);
  ValueId x = b.Input("x", {1, 2, 5, 5});
  Tensor w = b.Random({3, 2, 3, 3});
  Tensor bias = b.Random({3});
  AttributeMap conv_attrs;
  conv_attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  ValueId conv = b.Op("Conv", {x, b.Constant("w", ToHalf(w)), b.Constant("b", ToHalf(bias))},
                      conv_attrs);
  AttributeMap to_half;
  to_half.Set("to", int64_t{10});
  ValueId cast = b.Op("Cast", {conv}, to_half);
  ValueId y = b.Op("Relu", {cast});
  Graph g = b.Finish({y});
  g.values[x].dtype = DType::kFloat16;
  g.values[y].dtype = DType::kFloat16;  // as the importer reads the declared output type

  CanonicalizeStats stats;
  Status status = Canonicalize(g, CanonicalizeOptions{}, &stats);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_GT(stats.float16_values_widened, 0);
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.values[g.inputs[0]].dtype, DType::kFloat16);
  EXPECT_EQ(g.values[g.outputs[0]].dtype, DType::kFloat16);
  int casts = 0;
  for (const Node& node : g.nodes) {
    casts += node.op_type == "Cast";
    for (ValueId v : node.inputs) {
      if (v == kNoValue || g.values[v].is_graph_input) continue;
      EXPECT_NE(g.values[v].dtype, DType::kFloat16) << "'" << g.values[v].name << "' stayed float16";
    }
  }
  EXPECT_EQ(casts, 3);  // in, the model's own (now to float32), out

  // The float32 result of the same weights, rounded once to float16 at the end.
  GraphBuilder f(13);
  ValueId fx = f.Input("x", {1, 2, 5, 5});
  Tensor w32 = w, b32 = bias;
  for (int64_t i = 0; i < w32.num_elements(); ++i)
    w32.data<float>()[i] = static_cast<float>(HalfToDouble(DoubleToHalf(w.data<float>()[i])));
  for (int64_t i = 0; i < b32.num_elements(); ++i)
    b32.data<float>()[i] = static_cast<float>(HalfToDouble(DoubleToHalf(bias.data<float>()[i])));
  ValueId fy = f.Op("Relu", {f.Op("Conv", {fx, f.Constant("w", w32), f.Constant("b", b32)},
                                  conv_attrs)});
  Graph reference = f.Finish({fy});
  Tensor input = ToHalf(b.Random({1, 2, 5, 5}));
  Tensor input32(DType::kFloat32, input.dims());
  for (int64_t i = 0; i < input.num_elements(); ++i)
    input32.data<float>()[i] = static_cast<float>(HalfToDouble(input.data<uint16_t>()[i]));
  auto got = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(got.ok()) << got.status().message();
  auto expected = EvaluateGraphReference(reference, {input32});
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  ASSERT_EQ(got.value()[0].dtype(), DType::kFloat16);
  for (int64_t i = 0; i < expected.value()[0].num_elements(); ++i)
    EXPECT_EQ(got.value()[0].data<uint16_t>()[i], DoubleToHalf(expected.value()[0].data<float>()[i]))
        << "element " << i;
}

TEST(WidenFloat16Test, LeavesAFloat32GraphAlone) {
  GraphBuilder b;
  Graph g = ConvBnRelu(b);
  const size_t nodes = g.nodes.size();
  auto widened = WidenFloat16ToFloat32(g);
  ASSERT_TRUE(widened.ok());
  EXPECT_EQ(widened.value(), 0);
  EXPECT_EQ(g.nodes.size(), nodes);
}

TEST(CanonicalizeTest, PipelineFoldsFusesAndPreservesNumerics) {
  GraphBuilder b;
  Graph g = ConvBnRelu(b);
  Tensor input = b.Random({2, 3, 9, 9});
  auto before = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(before.ok());
  CanonicalizeStats stats;
  ASSERT_TRUE(Canonicalize(g, CanonicalizeOptions{}, &stats).ok());
  EXPECT_EQ(stats.batchnorms_folded, 1);
  EXPECT_EQ(stats.activations_fused, 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(GetFusedActivation(g.nodes[0].attrs).kind, ActivationKind::kRelu);
  auto after = EvaluateGraphReference(g, {input});
  ASSERT_TRUE(after.ok());
  EXPECT_LT(MaxAbsDiff(before.value()[0], after.value()[0]), 1e-5f);
}

}  // namespace
}  // namespace ios
