// One form for what exporters spell several ways (issue 50): each rewrite computes the same as
// the subgraph it replaces (the reference kernels evaluate both graphs), keeps the graph outputs'
// names, and leaves alone what it must (other axes, other constants, values read twice,
// parameters computed at run time). The last tests compile both exporters' spellings of one block
// and compare the canonical graphs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ir/fused_activation.h"
#include "kernels/reference/reference_graph.h"
#include "passes/canonicalize.h"
#include "passes/eliminate_identity.h"
#include "passes/fold_batchnorm.h"
#include "passes/fuse_hard_swish.h"
#include "passes/gather_to_reshape.h"
#include "passes/matmul_add_to_gemm.h"
#include "passes/reduce_to_global_pool.h"
#include "passes/reshape_to_flatten.h"
#include "passes/slices_to_split.h"
#include "tensor_compare.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::CountOps;
using testing::GraphBuilder;
using testing::MaxAbsDiff;

ValueId Ints(GraphBuilder& b, const std::string& name, const std::vector<int64_t>& values) {
  return b.Constant(name, Tensor::FromInt64(values, {static_cast<int64_t>(values.size())}));
}

std::vector<std::string> OutputNames(const Graph& g) {
  std::vector<std::string> names;
  for (ValueId id : g.outputs) names.push_back(g.values[id].name);
  return names;
}

// Runs `pass` and checks that it reported `expected` rewrites, that the graph outputs keep their
// names, and that every output is the same (within `tolerance`) on an input of `dims` (uniform in
// [-scale, scale)).
void ExpectRewrittenSame(Graph g, const std::function<int(Graph&)>& pass, int expected,
                         const Dims& dims, float tolerance = 1e-6f, float scale = 5.f) {
  GraphBuilder inputs(13);
  Tensor x = inputs.Random(dims);
  for (int64_t i = 0; i < x.num_elements(); ++i) x.data<float>()[i] *= scale;
  const std::vector<std::string> names = OutputNames(g);
  auto before = EvaluateGraphReference(g, {x});
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(pass(g), expected);
  EXPECT_EQ(OutputNames(g), names);
  auto after = EvaluateGraphReference(g, {x});
  ASSERT_TRUE(after.ok()) << after.status().message();
  ASSERT_EQ(before.value().size(), after.value().size());
  for (size_t i = 0; i < before.value().size(); ++i)
    EXPECT_LT(MaxAbsDiff(before.value()[i], after.value()[i]), tolerance) << "output " << i;
}

// ---- ReduceMean / ReduceMax over the spatial axes -> global pools ---------------------------

AttributeMap ReduceAttrs(int64_t keepdims, std::vector<int64_t> axes = {}) {
  AttributeMap attrs;
  attrs.Set("keepdims", keepdims);
  if (!axes.empty()) attrs.Set("axes", axes);
  return attrs;
}

TEST(ReduceToGlobalPoolTest, ReduceMeanOverHAndWBecomesGlobalAveragePool) {
  // Opset 13: axes as an attribute, as the TorchScript exporter writes x.mean((2, 3), keepdim).
  GraphBuilder b(13);
  ValueId x = b.Input("x", {2, 3, 5, 7});
  ValueId y = b.Op("ReduceMean", {x}, ReduceAttrs(1, {2, 3}), "se_pool");
  Graph g = b.Finish({y});
  ExpectRewrittenSame(g, ReduceToGlobalPool, 1, {2, 3, 5, 7});
  ReduceToGlobalPool(g);
  EXPECT_EQ(CountOps(g, "GlobalAveragePool"), 1);
  EXPECT_EQ(CountOps(g, "ReduceMean"), 0);
}

TEST(ReduceToGlobalPoolTest, AxesInputOfOpset18InAnyOrderAndSign) {
  // The dynamo exporter: axes [-1, -2] as a constant input.
  GraphBuilder b(18);
  ValueId x = b.Input("x", {1, 4, 6, 6});
  ValueId y = b.Op("ReduceMean", {x, Ints(b, "axes", {-1, -2})}, ReduceAttrs(1));
  ValueId z = b.Op("Relu", {y});
  Graph g = b.Finish({z});
  ExpectRewrittenSame(g, ReduceToGlobalPool, 1, {1, 4, 6, 6});
}

TEST(ReduceToGlobalPoolTest, ReduceMaxBecomesGlobalMaxPoolAndRank5Works) {
  GraphBuilder b(18);
  ValueId x = b.Input("x", {1, 2, 3, 4, 5});
  ValueId y = b.Op("ReduceMax", {x, Ints(b, "axes", {2, 3, 4})}, ReduceAttrs(1));
  Graph g = b.Finish({y});
  ExpectRewrittenSame(g, ReduceToGlobalPool, 1, {1, 2, 3, 4, 5});
  ReduceToGlobalPool(g);
  EXPECT_EQ(CountOps(g, "GlobalMaxPool"), 1);
}

TEST(ReduceToGlobalPoolTest, KeepdimsZeroBecomesThePoolThenAFlattenWritingTheOutput) {
  // ShuffleNetV2's head: x.mean([2, 3]) feeding the classifier; here also a graph output.
  GraphBuilder b(18);
  ValueId x = b.Input("x", {2, 6, 4, 4});
  ValueId y = b.Op("ReduceMean", {x, Ints(b, "axes", {2, 3})}, ReduceAttrs(0), "head_mean");
  ValueId fc = b.Op("Gemm", {y, b.Constant("w", b.Random({6, 3}))}, {}, "fc");
  Graph g = b.Finish({y, fc});
  ExpectRewrittenSame(g, ReduceToGlobalPool, 1, {2, 6, 4, 4});
  ReduceToGlobalPool(g);
  EXPECT_EQ(CountOps(g, "GlobalAveragePool"), 1);
  EXPECT_EQ(CountOps(g, "Flatten"), 1);
  EXPECT_EQ(g.values[g.outputs[0]].dims, (Dims{2, 6}));
}

TEST(ReduceToGlobalPoolTest, LeavesOtherAxesAndForms) {
  struct Case {
    const char* what;
    Dims dims;
    std::vector<int64_t> axes;  // empty: no axes input
    AttributeMap attrs;
  };
  AttributeMap noop = ReduceAttrs(1);
  noop.Set("noop_with_empty_axes", int64_t{1});
  const std::vector<Case> cases = {
      {"H only", {1, 3, 4, 4}, {2}, ReduceAttrs(1)},
      {"C, H and W", {1, 3, 4, 4}, {1, 2, 3}, ReduceAttrs(1)},
      {"every axis (no axes)", {1, 3, 4, 4}, {}, ReduceAttrs(1)},
      {"no axes with noop_with_empty_axes", {1, 3, 4, 4}, {}, noop},
      {"a matrix", {3, 4}, {1}, ReduceAttrs(1)},
  };
  for (const Case& c : cases) {
    GraphBuilder b(18);
    ValueId x = b.Input("x", c.dims);
    std::vector<ValueId> inputs = {x};
    if (!c.axes.empty()) inputs.push_back(Ints(b, "axes", c.axes));
    Graph g = b.Finish({b.Op("ReduceMean", inputs, c.attrs)});
    EXPECT_EQ(ReduceToGlobalPool(g), 0) << c.what;
    EXPECT_EQ(CountOps(g, "ReduceMean"), 1) << c.what;
  }
}

TEST(ReduceToGlobalPoolTest, LeavesAxesComputedAtRunTime) {
  GraphBuilder b(18);
  b.set_infer(false);
  ValueId x = b.Input("x", {1, 3, 4, 4});
  Value axes;
  axes.name = "axes";
  axes.dtype = DType::kInt64;
  axes.dims = {2};
  axes.has_shape = true;
  axes.is_graph_input = true;
  ValueId axes_id = b.graph().AddValue(std::move(axes));
  b.graph().inputs.push_back(axes_id);
  Graph g = b.Finish({b.Op("ReduceMean", {x, axes_id}, ReduceAttrs(1))});
  EXPECT_EQ(ReduceToGlobalPool(g), 0);
  EXPECT_EQ(CountOps(g, "ReduceMean"), 1);
}

// ---- HardSigmoid and HardSwish subgraphs -----------------------------------------------------

enum class Relu6As { kClip, kMaxMin, kMinMax };

// ReLU6(x + 3) in one of the spellings; `three_first` puts the 3 first in the Add.
ValueId Relu6OfXPlus3(GraphBuilder& b, ValueId x, Relu6As as, bool three_first, int64_t opset) {
  ValueId three = b.Scalar("three", 3.f);
  ValueId t = three_first ? b.Op("Add", {three, x}) : b.Op("Add", {x, three});
  switch (as) {
    case Relu6As::kClip:
      if (opset < 11) {
        AttributeMap bounds;
        bounds.Set("min", 0.f);
        bounds.Set("max", 6.f);
        return b.Op("Clip", {t}, bounds);
      }
      return b.Op("Clip", {t, b.Scalar("zero", 0.f), b.Scalar("six", 6.f)});
    case Relu6As::kMaxMin:
      return b.Op("Min", {b.Op("Max", {t, b.Scalar("zero", 0.f)}), b.Scalar("six", 6.f)});
    case Relu6As::kMinMax:
      return b.Op("Max", {b.Op("Min", {t, b.Scalar("six", 6.f)}), b.Scalar("zero", 0.f)});
  }
  return kNoValue;
}

// r / 6, or r * (1/6) with the constant on either side.
ValueId Sixth(GraphBuilder& b, ValueId r, int form) {
  if (form == 0) return b.Op("Div", {r, b.Scalar("six_d", 6.f)});
  ValueId sixth = b.Scalar("sixth", 1.f / 6.f);
  return form == 1 ? b.Op("Mul", {r, sixth}) : b.Op("Mul", {sixth, r});
}

TEST(FuseHardSwishTest, EveryHardSigmoidSpellingBecomesOneHardSigmoid) {
  for (int64_t opset : {9, 13}) {
    for (Relu6As as : {Relu6As::kClip, Relu6As::kMaxMin, Relu6As::kMinMax}) {
      for (bool three_first : {false, true}) {
        for (int sixth : {0, 1, 2}) {
          GraphBuilder b(opset);
          ValueId x = b.Input("x", {2, 3, 4, 4});
          ValueId y = Sixth(b, Relu6OfXPlus3(b, x, as, three_first, opset), sixth);
          Graph g = b.Finish({y});
          SCOPED_TRACE("opset " + std::to_string(opset) + " relu6 " +
                       std::to_string(static_cast<int>(as)) + " three_first " +
                       std::to_string(three_first) + " sixth " + std::to_string(sixth));
          ExpectRewrittenSame(g, FuseHardSwish, 1, {2, 3, 4, 4});
          FuseHardSwish(g);
          ASSERT_EQ(g.nodes.size(), 1u);
          EXPECT_EQ(g.nodes[0].op_type, "HardSigmoid");
        }
      }
    }
  }
}

TEST(FuseHardSwishTest, EveryHardSwishSpellingBecomesOneHardSwish) {
  // x * ReLU6(x + 3) / 6 (either Mul order, / 6 or * 1/6), x * (ReLU6(x + 3) / 6) and
  // x * HardSigmoid(x) as the ops exporters write.
  for (int form = 0; form < 5; ++form) {
    GraphBuilder b(14);
    ValueId x = b.Input("x", {1, 4, 5, 5});
    ValueId y = kNoValue;
    if (form <= 2) {
      ValueId r = Relu6OfXPlus3(b, x, Relu6As::kClip, false, 14);
      ValueId xr = form == 1 ? b.Op("Mul", {r, x}) : b.Op("Mul", {x, r});
      y = Sixth(b, xr, form == 2 ? 1 : 0);
    } else if (form == 3) {
      y = b.Op("Mul", {x, Sixth(b, Relu6OfXPlus3(b, x, Relu6As::kMaxMin, true, 14), 0)});
    } else {
      AttributeMap attrs;
      attrs.Set("alpha", 1.f / 6.f);
      attrs.Set("beta", 0.5f);
      y = b.Op("Mul", {b.Op("HardSigmoid", {x}, attrs), x});
    }
    Graph g = b.Finish({y});
    SCOPED_TRACE("form " + std::to_string(form));
    ExpectRewrittenSame(g, FuseHardSwish, 1, {1, 4, 5, 5});
    FuseHardSwish(g);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op_type, "HardSwish");
  }
}

TEST(FuseHardSwishTest, LeavesOtherConstantsSharedValuesAndOldOpsets) {
  AttributeMap pytorch;  // PyTorch's hardsigmoid
  pytorch.Set("alpha", 1.f / 6.f);
  pytorch.Set("beta", 0.5f);
  // HardSigmoid with ONNX's default alpha 0.2 is not the one HardSwish uses.
  {
    GraphBuilder b(14);
    ValueId x = b.Input("x", {1, 2, 3, 3});
    Graph g = b.Finish({b.Op("Mul", {x, b.Op("HardSigmoid", {x})})});
    EXPECT_EQ(FuseHardSwish(g), 0);
  }
  // A gate: x * HardSigmoid(y) (squeeze-excite), not HardSwish.
  {
    GraphBuilder b(14);
    ValueId x = b.Input("x", {1, 2, 3, 3});
    ValueId gate = b.Op("HardSigmoid", {b.Op("Relu", {x})}, pytorch);
    Graph g = b.Finish({b.Op("Mul", {x, gate})});
    EXPECT_EQ(FuseHardSwish(g), 0);
  }
  // HardSwish is opset 14: an opset-13 model keeps x * HardSigmoid(x).
  {
    GraphBuilder b(13);
    ValueId x = b.Input("x", {1, 2, 3, 3});
    Graph g = b.Finish({b.Op("Mul", {x, b.Op("HardSigmoid", {x}, pytorch)})});
    EXPECT_EQ(FuseHardSwish(g), 0);
  }
  // ReLU5, a 2 instead of 3, and / 5 instead of / 6.
  for (int variant = 0; variant < 3; ++variant) {
    GraphBuilder b(14);
    ValueId x = b.Input("x", {1, 2, 3, 3});
    ValueId t = b.Op("Add", {x, b.Scalar("c", variant == 1 ? 2.f : 3.f)});
    ValueId r = b.Op("Clip", {t, b.Scalar("lo", 0.f), b.Scalar("hi", variant == 0 ? 5.f : 6.f)});
    Graph g = b.Finish({b.Op("Div", {r, b.Scalar("d", variant == 2 ? 5.f : 6.f)})});
    EXPECT_EQ(FuseHardSwish(g), 0) << "variant " << variant;
  }
  // The 3 computed at run time (a graph input), not a constant.
  {
    GraphBuilder b(14);
    ValueId x = b.Input("x", {1, 2, 3, 3});
    ValueId three = b.Input("three", {});
    ValueId r = b.Op("Clip", {b.Op("Add", {x, three}), b.Scalar("lo", 0.f), b.Scalar("hi", 6.f)});
    Graph g = b.Finish({b.Op("Div", {r, b.Scalar("d", 6.f)})});
    EXPECT_EQ(FuseHardSwish(g), 0);
  }
  // An intermediate read twice: x + 3 is also an output.
  {
    GraphBuilder b(14);
    ValueId x = b.Input("x", {1, 2, 3, 3});
    ValueId t = b.Op("Add", {x, b.Scalar("three", 3.f)});
    ValueId r = b.Op("Clip", {t, b.Scalar("lo", 0.f), b.Scalar("hi", 6.f)});
    Graph g = b.Finish({b.Op("Div", {r, b.Scalar("d", 6.f)}), t});
    EXPECT_EQ(FuseHardSwish(g), 0);
    EXPECT_EQ(CountOps(g, "Clip"), 1);
  }
}

TEST(FuseHardSwishTest, TheHardSigmoidStaysWhenItsOutputIsReadTwice) {
  // x * (ReLU6(x + 3) / 6) where the gate is also an output: HardSigmoid, not HardSwish.
  GraphBuilder b(14);
  ValueId x = b.Input("x", {1, 2, 3, 3});
  ValueId gate = Sixth(b, Relu6OfXPlus3(b, x, Relu6As::kClip, false, 14), 0);
  Graph g = b.Finish({b.Op("Mul", {x, gate}), gate});
  ExpectRewrittenSame(g, FuseHardSwish, 1, {1, 2, 3, 3});
  FuseHardSwish(g);
  EXPECT_EQ(CountOps(g, "HardSigmoid"), 1);
  EXPECT_EQ(CountOps(g, "HardSwish"), 0);
}

// ---- MatMul + bias -> Gemm -------------------------------------------------------------------

TEST(MatMulAddToGemmTest, MatMulThenBiasBecomesGemm) {
  for (bool bias_first : {false, true}) {
    for (const Dims& bias : {Dims{5}, Dims{1, 5}, Dims{4, 5}, Dims{}}) {
      GraphBuilder b(13);
      ValueId a = b.Input("a", {4, 8});
      ValueId mm = b.Op("MatMul", {a, b.Constant("w", b.Random({8, 5}))});
      ValueId c = b.Constant("c", b.Random(bias));
      Graph g = b.Finish({bias_first ? b.Op("Add", {c, mm}) : b.Op("Add", {mm, c})});
      SCOPED_TRACE(DimsToString(bias) + (bias_first ? " first" : " second"));
      ExpectRewrittenSame(g, MatMulAddToGemm, 1, {4, 8}, 1e-5f);
      MatMulAddToGemm(g);
      ASSERT_EQ(g.nodes.size(), 1u);
      EXPECT_EQ(g.nodes[0].op_type, "Gemm");
    }
  }
}

TEST(MatMulAddToGemmTest, LeavesBatchedProductsSharedProductsAndRunTimeAddends) {
  // A batched (rank-3) MatMul.
  {
    GraphBuilder b(13);
    ValueId a = b.Input("a", {2, 4, 8});
    ValueId mm = b.Op("MatMul", {a, b.Constant("w", b.Random({8, 5}))});
    Graph g = b.Finish({b.Op("Add", {mm, b.Constant("c", b.Random({5}))})});
    EXPECT_EQ(MatMulAddToGemm(g), 0);
  }
  // The product read twice.
  {
    GraphBuilder b(13);
    ValueId a = b.Input("a", {4, 8});
    ValueId mm = b.Op("MatMul", {a, b.Constant("w", b.Random({8, 5}))});
    Graph g = b.Finish({b.Op("Add", {mm, b.Constant("c", b.Random({5}))}), b.Op("Relu", {mm})});
    EXPECT_EQ(MatMulAddToGemm(g), 0);
  }
  // A residual, not a bias: the addend is computed at run time.
  {
    GraphBuilder b(13);
    ValueId a = b.Input("a", {4, 8});
    ValueId r = b.Input("r", {4, 5});
    ValueId mm = b.Op("MatMul", {a, b.Constant("w", b.Random({8, 5}))});
    Graph g = b.Finish({b.Op("Add", {mm, r})});
    EXPECT_EQ(MatMulAddToGemm(g), 0);
  }
  // An addend that grows the result ([2, 4, 5]) is no Gemm's C.
  {
    GraphBuilder b(13);
    ValueId a = b.Input("a", {4, 8});
    ValueId mm = b.Op("MatMul", {a, b.Constant("w", b.Random({8, 5}))});
    Graph g = b.Finish({b.Op("Add", {mm, b.Constant("c", b.Random({2, 4, 5}))})});
    EXPECT_EQ(MatMulAddToGemm(g), 0);
  }
}

// ---- Reshape -> Flatten ----------------------------------------------------------------------

TEST(ReshapeToFlattenTest, AReshapeThatFlattensBecomesFlatten) {
  struct Case {
    Dims in;
    std::vector<int64_t> shape;
    int64_t axis;
  };
  const std::vector<Case> cases = {
      {{2, 8, 1, 1}, {2, 8}, 1},   // the classifier head
      {{1, 8, 1, 1}, {1, 8}, 1},   // batch 1: k = 0 fits too; torch.flatten(x, 1) is k = 1
      {{1, 8, 1, 1}, {-1, 8}, 1},  // -1 resolved by inference
      {{2, 3, 4}, {6, 4}, 2},     {{2, 3, 4}, {1, 24}, 0},
  };
  for (const Case& c : cases) {
    GraphBuilder b(13);
    ValueId x = b.Input("x", c.in);
    Graph g = b.Finish({b.Op("Reshape", {x, Ints(b, "shape", c.shape)})});
    SCOPED_TRACE(DimsToString(c.in));
    ExpectRewrittenSame(g, ReshapeToFlatten, 1, c.in);
    ReshapeToFlatten(g);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op_type, "Flatten");
    EXPECT_EQ(g.nodes[0].attrs.GetInt("axis", -1).value(), c.axis);
  }
}

TEST(ReshapeToFlattenTest, LeavesReshapesThatDoNotFlatten) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{2, 2, 6}, std::vector<int64_t>{3, 8}, std::vector<int64_t>{24}}) {
    GraphBuilder b(13);
    ValueId x = b.Input("x", {2, 3, 4});
    Graph g = b.Finish({b.Op("Reshape", {x, Ints(b, "shape", shape)})});
    EXPECT_EQ(ReshapeToFlatten(g), 0);
  }
  // A shape computed at run time.
  GraphBuilder b(13);
  b.set_infer(false);
  ValueId x = b.Input("x", {2, 3, 4});
  Value shape;
  shape.name = "shape";
  shape.dtype = DType::kInt64;
  shape.dims = {2};
  shape.has_shape = true;
  shape.is_graph_input = true;
  ValueId shape_id = b.graph().AddValue(std::move(shape));
  b.graph().inputs.push_back(shape_id);
  ValueId y = b.Op("Reshape", {x, shape_id});
  b.graph().values[y].dims = {6, 4};
  b.graph().values[y].has_shape = true;
  Graph g = b.Finish({y});
  EXPECT_EQ(ReshapeToFlatten(g), 0);
}

// ---- Slices that tile an axis -> Split ------------------------------------------------------

// x[:, :4] and x[:, 4:] of [1, 8, 3, 3] (x.chunk(2, 1) as the TorchScript exporter writes it).
ValueId SliceOf(GraphBuilder& b, ValueId x, int64_t start, int64_t end, int64_t axis = 1) {
  return b.Op("Slice",
              {x, Ints(b, "starts", {start}), Ints(b, "ends", {end}), Ints(b, "axes", {axis})});
}

TEST(SlicesToSplitTest, SlicesThatTileAnAxisBecomeOneSplit) {
  for (int64_t opset : {9, 13}) {
    GraphBuilder b(opset);
    ValueId x = b.Input("x", {1, 8, 3, 3});
    ValueId relu = b.Op("Relu", {x});
    std::vector<ValueId> parts;
    if (opset < 10) {
      for (auto [start, end] : {std::pair<int64_t, int64_t>{5, 8}, {0, 2}, {2, 5}}) {
        AttributeMap attrs;
        attrs.Set("starts", std::vector<int64_t>{start});
        attrs.Set("ends", std::vector<int64_t>{end});
        attrs.Set("axes", std::vector<int64_t>{1});
        parts.push_back(b.Op("Slice", {relu}, attrs));
      }
    } else {
      // The last end past the axis (x[:, 5:]), one start negative (-6 is 2).
      parts = {SliceOf(b, relu, 5, INT64_MAX), SliceOf(b, relu, 0, 2), SliceOf(b, relu, -6, 5)};
    }
    ValueId sum = b.Op("Concat", {b.Op("Sigmoid", {parts[1]}), parts[2], parts[0]}, [] {
      AttributeMap a;
      a.Set("axis", int64_t{1});
      return a;
    }());
    Graph g = b.Finish({sum, parts[0]});
    SCOPED_TRACE("opset " + std::to_string(opset));
    ExpectRewrittenSame(g, SlicesToSplit, 1, {1, 8, 3, 3});
    SlicesToSplit(g);
    EXPECT_EQ(CountOps(g, "Slice"), 0);
    ASSERT_EQ(CountOps(g, "Split"), 1);
  }
}

TEST(SlicesToSplitTest, LeavesSlicesThatDoNotTile) {
  struct Case {
    const char* what;
    std::vector<std::pair<int64_t, int64_t>> ranges;
  };
  const std::vector<Case> cases = {
      {"a gap", {{0, 3}, {4, 8}}},
      {"an overlap", {{0, 5}, {4, 8}}},
      {"short of the end", {{0, 4}, {4, 7}}},
      {"one slice", {{0, 4}}},
  };
  for (const Case& c : cases) {
    GraphBuilder b(13);
    ValueId x = b.Input("x", {1, 8, 3, 3});
    std::vector<ValueId> outs;
    for (auto [start, end] : c.ranges) outs.push_back(SliceOf(b, x, start, end));
    Graph g = b.Finish(outs);
    EXPECT_EQ(SlicesToSplit(g), 0) << c.what;
  }
  // Two halves on different axes, and a step of 2.
  GraphBuilder b(13);
  ValueId x = b.Input("x", {1, 8, 4, 4});
  ValueId h = SliceOf(b, x, 0, 2, 2);
  ValueId c = SliceOf(b, x, 4, 8, 1);
  ValueId strided = b.Op("Slice", {x, Ints(b, "starts", {0}), Ints(b, "ends", {4}),
                                   Ints(b, "axes", {1}), Ints(b, "steps", {2})});
  Graph g = b.Finish({h, c, strided});
  EXPECT_EQ(SlicesToSplit(g), 0);
}

TEST(SlicesToSplitTest, LeavesSlicesWithRunTimeBounds) {
  GraphBuilder b(13);
  b.set_infer(false);
  ValueId x = b.Input("x", {1, 8, 3, 3});
  ValueId start = b.Input("start", {1});
  ValueId left = SliceOf(b, x, 0, 4);
  ValueId right = b.Op("Slice", {x, start, Ints(b, "ends", {8}), Ints(b, "axes", {1})});
  for (ValueId v : {left, right}) {
    b.graph().values[v].dtype = DType::kFloat32;
    b.graph().values[v].dims = {1, 4, 3, 3};
    b.graph().values[v].has_shape = true;
  }
  Graph g = b.Finish({left, right});
  EXPECT_EQ(SlicesToSplit(g), 0);
}

// ---- a Gather of a whole axis in order -> Reshape ------------------------------------------

ValueId Iota(GraphBuilder& b, const Dims& dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<int64_t> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = i;
  return b.Constant("iota", Tensor::FromInt64(values, dims));
}

TEST(GatherToReshapeTest, ConvNeXtsAsStridedHeadBecomesACopyThatGoes) {
  // The dynamo exporter's as_strided: the pooled [1, 8, 1, 1] flattened, gathered back.
  GraphBuilder b(18);
  ValueId x = b.Input("x", {1, 8, 2, 2});
  ValueId pooled = b.Op("GlobalAveragePool", {x});
  ValueId flat = b.Op("Reshape", {pooled, Ints(b, "minus_one", {-1})});
  AttributeMap axis0;
  axis0.Set("axis", int64_t{0});
  ValueId strided = b.Op("Gather", {flat, Iota(b, {1, 8, 1, 1})}, axis0, "as_strided");
  Graph g = b.Finish({b.Op("Relu", {strided})});
  ExpectRewrittenSame(g, GatherToReshape, 1, {1, 8, 2, 2});
  GatherToReshape(g);
  EXPECT_EQ(CountOps(g, "Gather"), 0);
  EXPECT_EQ(CountOps(g, "Reshape"), 1);  // the two Reshapes are one
  EXPECT_EQ(EliminateIdentities(g), 1);
  EXPECT_EQ(CountOps(g, "Reshape"), 0);
}

TEST(GatherToReshapeTest, AnInnerAxisAndAGraphOutputKeepTheirValues) {
  // Axis 1 (negative) of [2, 3, 4], indices [[0, 1, 2]]: [2, 1, 3, 4]; the Reshape before the
  // Gather is also a graph output, so it stays and the new Reshape reads it.
  GraphBuilder b(13);
  ValueId x = b.Input("x", {2, 12});
  ValueId cube = b.Op("Reshape", {x, Ints(b, "shape", {2, 3, 4})}, {}, "cube");
  AttributeMap axis;
  axis.Set("axis", int64_t{-2});
  ValueId y = b.Op("Gather", {cube, Iota(b, {1, 3})}, axis, "picked");
  Graph g = b.Finish({y, cube});
  ExpectRewrittenSame(g, GatherToReshape, 1, {2, 12});
  GatherToReshape(g);
  EXPECT_EQ(CountOps(g, "Reshape"), 2);
  EXPECT_EQ(g.values[g.outputs[0]].dims, (Dims{2, 1, 3, 4}));
}

TEST(GatherToReshapeTest, LeavesGathersThatPermuteRepeatOrDropElements) {
  struct Case {
    const char* what;
    std::vector<int64_t> indices;
  };
  const std::vector<Case> cases = {
      {"a permutation", {1, 0, 2, 3}},
      {"part of the axis", {0, 1, 2}},
      {"a repeat", {0, 1, 2, 3, 3}},
      {"negative indices", {-4, -3, -2, -1}},
  };
  for (const Case& c : cases) {
    GraphBuilder b(13);
    ValueId x = b.Input("x", {3, 4});
    AttributeMap axis;
    axis.Set("axis", int64_t{1});
    ValueId idx = b.Constant("idx", Tensor::FromInt64(c.indices,
                                                      {static_cast<int64_t>(c.indices.size())}));
    Graph g = b.Finish({b.Op("Gather", {x, idx}, axis)});
    EXPECT_EQ(GatherToReshape(g), 0) << c.what;
  }
  // Indices computed at run time.
  GraphBuilder b(13);
  b.set_infer(false);
  ValueId x = b.Input("x", {4});
  ValueId idx = b.Input("idx", {4}, DType::kInt64);
  ValueId y = b.Op("Gather", {x, idx});
  b.graph().values[y].dtype = DType::kFloat32;
  b.graph().values[y].dims = {4};
  b.graph().values[y].has_shape = true;
  Graph g = b.Finish({y});
  EXPECT_EQ(GatherToReshape(g), 0);
}

// ---- copies: a full Slice, a one-input Concat, a Reshape to the same dims --------------------

TEST(EliminateIdentityTest, RemovesOpsThatCopyTheirInput) {
  // GhostNet's x[:, :c] of all c channels (TorchScript), DenseNet's one-input Concat.
  GraphBuilder b(13);
  ValueId x = b.Input("x", {1, 4, 3, 3});
  ValueId relu = b.Op("Relu", {x});
  ValueId sliced = b.Op("Slice", {relu, Ints(b, "starts", {0}), Ints(b, "ends", {4}),
                                  Ints(b, "axes", {1}), Ints(b, "steps", {1})});
  AttributeMap axis1;
  axis1.Set("axis", int64_t{1});
  ValueId concat = b.Op("Concat", {sliced}, axis1);
  ValueId same = b.Op("Reshape", {concat, Ints(b, "shape", {1, 4, 3, 3})});
  ValueId out = b.Op("Sigmoid", {same});
  Graph g = b.Finish({out});
  ExpectRewrittenSame(g, EliminateIdentities, 3, {1, 4, 3, 3});
  EliminateIdentities(g);
  EXPECT_EQ(g.nodes.size(), 2u);
}

TEST(EliminateIdentityTest, KeepsSlicesThatReverseOrCut) {
  GraphBuilder b(13);
  ValueId x = b.Input("x", {1, 4, 3, 3});
  // All four channels, reversed: a negative step.
  ValueId reversed = b.Op("Slice", {x, Ints(b, "starts", {-1}), Ints(b, "ends", {-5}),
                                    Ints(b, "axes", {1}), Ints(b, "steps", {-1})});
  ValueId cut =
      b.Op("Slice", {x, Ints(b, "starts", {0}), Ints(b, "ends", {2}), Ints(b, "axes", {1})});
  Graph g = b.Finish({reversed, cut});
  EXPECT_EQ(EliminateIdentities(g), 0);
  EXPECT_EQ(CountOps(g, "Slice"), 2);
}

TEST(EliminateIdentityTest, AFullSliceThatWritesAGraphOutputKeepsItsName) {
  GraphBuilder b(13);
  ValueId x = b.Input("x", {1, 4, 3, 3});
  ValueId sliced = b.Op(
      "Slice",
      {b.Op("Relu", {x}), Ints(b, "starts", {0}), Ints(b, "ends", {100}), Ints(b, "axes", {1})}, {},
      "head");
  Graph g = b.Finish({sliced});
  ExpectRewrittenSame(g, EliminateIdentities, 1, {1, 4, 3, 3});
}

// ---- BatchNormalization after ConvTranspose --------------------------------------------------

// ConvTranspose (Cin 4, Cout 6, `group` groups, 3x3, stride 2) -> BatchNormalization.
Graph ConvTransposeBn(GraphBuilder& b, int64_t group, bool bias, bool constant_gamma) {
  ValueId x = b.Input("x", {2, 4, 5, 5});
  AttributeMap attrs;
  attrs.Set("kernel_shape", std::vector<int64_t>{3, 3});
  attrs.Set("strides", std::vector<int64_t>{2, 2});
  attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  attrs.Set("output_padding", std::vector<int64_t>{1, 1});
  attrs.Set("group", group);
  std::vector<ValueId> inputs = {x, b.Constant("w", b.Random({4, 6 / group, 3, 3}))};
  if (bias) inputs.push_back(b.Constant("b", b.Random({6})));
  ValueId up = b.Op("ConvTranspose", inputs, attrs);
  Tensor var = b.Random({6});
  for (int64_t i = 0; i < 6; ++i) var.data<float>()[i] = std::fabs(var.data<float>()[i]) + 0.2f;
  ValueId gamma = constant_gamma ? b.Constant("gamma", b.Random({6})) : b.Input("gamma", {6});
  ValueId bn = b.Op("BatchNormalization",
                    {up, gamma, b.Constant("beta", b.Random({6})),
                     b.Constant("mean", b.Random({6})), b.Constant("var", std::move(var))});
  return b.Finish({bn});
}

TEST(FoldBatchNormTest, FoldsIntoTheConvTransposeBeforeWithGroups) {
  for (int64_t group : {1, 2}) {
    for (bool bias : {true, false}) {
      GraphBuilder b(13);
      Graph g = ConvTransposeBn(b, group, bias, true);
      SCOPED_TRACE("group " + std::to_string(group) + (bias ? " bias" : " no bias"));
      ExpectRewrittenSame(
          g, [](Graph& graph) { return FoldBatchNormIntoConv(graph).value(); }, 1, {2, 4, 5, 5},
          1e-5f, 1.f);
      ASSERT_TRUE(FoldBatchNormIntoConv(g).ok());
      EXPECT_EQ(CountOps(g, "BatchNormalization"), 0);
      EXPECT_EQ(CountOps(g, "ConvTranspose"), 1);
    }
  }
}

TEST(FoldBatchNormTest, LeavesAConvTransposeBatchNormWithARunTimeParameter) {
  GraphBuilder b(13);
  Graph g = ConvTransposeBn(b, 1, true, false);
  auto folded = FoldBatchNormIntoConv(g);
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(folded.value(), 0);
  EXPECT_EQ(CountOps(g, "BatchNormalization"), 1);
}

// ---- both exporters' spellings reach one graph -----------------------------------------------

// A conv, a squeeze-excite block and a classifier head, as the TorchScript exporter writes them
// (GlobalAveragePool, Flatten, Gemm, HardSwish op) or as other exporters do (ReduceMean over H and
// W at opset 18, Reshape, MatMul + Add, x * HardSigmoid(x)).
Graph SeBlock(bool torchscript_style, Tensor* input) {
  GraphBuilder b(18);
  ValueId x = b.Input("x", {1, 3, 8, 8});
  ValueId conv = b.Conv(x, 8, 3, 1, 1, 1, "conv");
  AttributeMap hs;
  hs.Set("alpha", 1.f / 6.f);
  hs.Set("beta", 0.5f);
  ValueId act = torchscript_style ? b.Op("HardSwish", {conv})
                                  : b.Op("Mul", {conv, b.Op("HardSigmoid", {conv}, hs)});
  ValueId pooled = torchscript_style
                       ? b.Op("GlobalAveragePool", {act})
                       : b.Op("ReduceMean", {act, Ints(b, "axes", {-1, -2})}, ReduceAttrs(1));
  ValueId squeeze = b.Op("Relu", {b.Conv(pooled, 4, 1, 0, 1, 1, "fc1")});
  ValueId gate = b.Op("HardSigmoid", {b.Conv(squeeze, 8, 1, 0, 1, 1, "fc2")}, hs);
  ValueId excited = b.Op("Mul", {act, gate});
  ValueId head = torchscript_style
                     ? b.Op("GlobalAveragePool", {excited})
                     : b.Op("ReduceMean", {excited, Ints(b, "axes", {2, 3})}, ReduceAttrs(1));
  AttributeMap axis1;
  axis1.Set("axis", int64_t{1});
  ValueId flat = torchscript_style ? b.Op("Flatten", {head}, axis1)
                                   : b.Op("Reshape", {head, Ints(b, "shape", {1, 8})});
  Tensor w = b.Random({8, 10});
  Tensor c = b.Random({10});
  ValueId logits =
      torchscript_style
          ? b.Op("Gemm", {flat, b.Constant("fc_w", w), b.Constant("fc_b", c)}, {}, "logits")
          : b.Op("Add", {b.Op("MatMul", {flat, b.Constant("fc_w", w)}), b.Constant("fc_b", c)}, {},
                 "logits");
  *input = b.Random({1, 3, 8, 8});
  return b.Finish({logits});
}

std::vector<std::string> OpSignature(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node& node : g.nodes) {
    if (node.dead) continue;
    const Activation act = GetFusedActivation(node.attrs);
    ops.push_back(node.op_type +
                  (act.kind == ActivationKind::kNone ? "" : "+" + ActivationOpType(act.kind)));
  }
  return ops;
}

TEST(CanonicalizeTest, BothExportersSpellingsOfABlockReachTheSameGraph) {
  Tensor input;
  Graph torchscript = SeBlock(true, &input);
  Graph other = SeBlock(false, &input);
  auto want = EvaluateGraphReference(torchscript, {input});
  ASSERT_TRUE(want.ok()) << want.status().message();
  CanonicalizeStats stats;
  ASSERT_TRUE(Canonicalize(torchscript, CanonicalizeOptions{}, nullptr).ok());
  ASSERT_TRUE(Canonicalize(other, CanonicalizeOptions{}, &stats).ok());
  EXPECT_EQ(stats.global_pools_made, 2);
  EXPECT_EQ(stats.hard_swishes_fused, 1);
  EXPECT_EQ(stats.gemms_made, 1);
  EXPECT_EQ(stats.flattens_made, 1);
  EXPECT_EQ(OpSignature(torchscript), OpSignature(other));
  EXPECT_EQ(OutputNames(other), std::vector<std::string>{"logits:0"});
  auto got = EvaluateGraphReference(other, {input});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_LT(MaxAbsDiff(want.value()[0], got.value()[0]), 1e-5f);
}

TEST(CanonicalizeTest, EveryNewPassHasItsName) {
  for (const char* name : {"gather-to-reshape", "reduce-to-global-pool", "fuse-hard-swish",
                           "matmul-add-to-gemm", "reshape-to-flatten", "slices-to-split"}) {
    auto options = CanonicalizeOptionsForPasses({"fold-constants", name});
    ASSERT_TRUE(options.ok()) << name;
    const CanonicalizeOptions& o = options.value();
    const int on = o.gather_to_reshape + o.reduce_to_global_pool + o.fuse_hard_swish +
                   o.matmul_add_to_gemm + o.reshape_to_flatten + o.slices_to_split;
    EXPECT_EQ(on, 1) << name;
  }
}

}  // namespace
}  // namespace ios
