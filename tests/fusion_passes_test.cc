// The GELU and LayerNorm fusions (passes/fuse_gelu.h, passes/fuse_layer_norm.h): every spelling
// the exporters use becomes one node that computes the same as the subgraph (the reference
// kernels evaluate both graphs), and a subgraph whose intermediates have other readers or whose
// constants differ is left alone. The ONNX exporter writes a fused node that is newer than the
// model's opset back as a subgraph that computes the same.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "kernels/reference/reference_graph.h"
#include "onnx/onnx_exporter.h"
#include "onnx/onnx_importer.h"
#include "passes/canonicalize.h"
#include "passes/fuse_gelu.h"
#include "passes/fuse_layer_norm.h"
#include "tensor_compare.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::CountOps;
using testing::GraphBuilder;
using testing::MaxAbsDiff;

// Runs `fuse` and checks that it made `expected` nodes and that the graph still computes the
// same (within `tolerance`) on a random input of `dims`.
void ExpectFusedSame(Graph g, const std::function<int(Graph&)>& fuse, int expected,
                     const Dims& dims, float tolerance = 1e-6f, float scale = 3.f) {
  GraphBuilder inputs;
  Tensor x = inputs.Random(dims);
  for (int64_t i = 0; i < x.num_elements(); ++i) x.data<float>()[i] *= scale;
  auto before = EvaluateGraphReference(g, {x});
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(fuse(g), expected);
  auto after = EvaluateGraphReference(g, {x});
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_LT(MaxAbsDiff(before.value()[0], after.value()[0]), tolerance);
}

// ---- GELU ------------------------------------------------------------------------------------

enum class HalfAt { kX, kFactor, kProduct };

// x * 0.5 * (1 + Erf(x / sqrt(2))) in one of the exporters' spellings.
Graph ErfGelu(HalfAt half_at, bool mul_by_inverse, bool one_first, bool x_second = false) {
  GraphBuilder b;
  ValueId x = b.Input("x", {2, 3, 8});
  ValueId scaled = mul_by_inverse ? b.Op("Mul", {b.Scalar("inv_sqrt2", 0.70710678f), x})
                                  : b.Op("Div", {x, b.Scalar("sqrt2", 1.4142135f)});
  ValueId erf = b.Op("Erf", {scaled});
  ValueId one = b.Scalar("one", 1.f);
  ValueId factor = one_first ? b.Op("Add", {one, erf}) : b.Op("Add", {erf, one});
  ValueId half = b.Scalar("half", 0.5f);
  ValueId y = kNoValue;
  switch (half_at) {
    case HalfAt::kX: {
      ValueId half_x = b.Op("Mul", {x, half});
      y = x_second ? b.Op("Mul", {factor, half_x}) : b.Op("Mul", {half_x, factor});
      break;
    }
    case HalfAt::kFactor:
      y = b.Op("Mul", {x, b.Op("Mul", {half, factor})});
      break;
    case HalfAt::kProduct:
      y = b.Op("Mul", {half, x_second ? b.Op("Mul", {factor, x}) : b.Op("Mul", {x, factor})});
      break;
  }
  return b.Finish({y});
}

TEST(FuseGeluTest, EveryErfSpellingBecomesOneGelu) {
  for (HalfAt half_at : {HalfAt::kX, HalfAt::kFactor, HalfAt::kProduct}) {
    for (bool mul_by_inverse : {false, true}) {
      for (bool one_first : {false, true}) {
        for (bool x_second : {false, true}) {
          SCOPED_TRACE("half at " + std::to_string(static_cast<int>(half_at)) +
                       (mul_by_inverse ? " mul" : " div") + (one_first ? " 1+erf" : " erf+1") +
                       (x_second ? " x second" : ""));
          Graph g = ErfGelu(half_at, mul_by_inverse, one_first, x_second);
          ExpectFusedSame(g, FuseGelu, 1, {2, 3, 8});
          FuseGelu(g);
          ASSERT_EQ(g.nodes.size(), 1u);
          EXPECT_EQ(g.nodes[0].op_type, "Gelu");
          EXPECT_EQ(g.nodes[0].opset, 20);
          EXPECT_FALSE(g.nodes[0].attrs.Has("approximate"));
          EXPECT_EQ(g.nodes[0].inputs, std::vector<ValueId>{g.inputs[0]});
          EXPECT_EQ(g.nodes[0].outputs, std::vector<ValueId>{g.outputs[0]});
        }
      }
    }
  }
}

// 0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
Graph TanhGelu(bool use_pow, bool x_last_in_sum) {
  GraphBuilder b;
  ValueId x = b.Input("x", {4, 16});
  ValueId cube =
      use_pow ? b.Op("Pow", {x, b.Scalar("three", 3.f)}) : b.Op("Mul", {b.Op("Mul", {x, x}), x});
  ValueId term = b.Op("Mul", {b.Scalar("c", 0.044715f), cube});
  ValueId sum = x_last_in_sum ? b.Op("Add", {term, x}) : b.Op("Add", {x, term});
  ValueId inner = b.Op("Mul", {sum, b.Scalar("k", 0.7978845608f)});
  ValueId factor = b.Op("Add", {b.Scalar("one", 1.f), b.Op("Tanh", {inner})});
  ValueId y = b.Op("Mul", {b.Op("Mul", {b.Scalar("half", 0.5f), x}), factor});
  return b.Finish({y});
}

TEST(FuseGeluTest, TheTanhFormBecomesGeluTanh) {
  for (bool use_pow : {true, false}) {
    for (bool x_last : {false, true}) {
      SCOPED_TRACE(std::string(use_pow ? "Pow" : "x*x*x") + (x_last ? " term + x" : " x + term"));
      Graph g = TanhGelu(use_pow, x_last);
      ExpectFusedSame(g, FuseGelu, 1, {4, 16});
      FuseGelu(g);
      ASSERT_EQ(g.nodes.size(), 1u);
      EXPECT_EQ(g.nodes[0].op_type, "Gelu");
      EXPECT_EQ(g.nodes[0].attrs.GetString("approximate", "").value(), "tanh");
    }
  }
}

TEST(FuseGeluTest, LeavesASubgraphWithAnotherReaderOrOtherConstants) {
  {  // The Erf's output is also a graph output.
    GraphBuilder b;
    ValueId x = b.Input("x", {8});
    ValueId erf = b.Op("Erf", {b.Op("Div", {x, b.Scalar("sqrt2", 1.4142135f)})});
    ValueId factor = b.Op("Add", {erf, b.Scalar("one", 1.f)});
    ValueId y = b.Op("Mul", {b.Op("Mul", {x, b.Scalar("half", 0.5f)}), factor});
    Graph g = b.Finish({y, erf});
    EXPECT_EQ(FuseGelu(g), 0);
    EXPECT_EQ(CountOps(g, "Erf"), 1);
  }
  {  // x * 0.5 is read by another node too.
    GraphBuilder b;
    ValueId x = b.Input("x", {8});
    ValueId erf = b.Op("Erf", {b.Op("Div", {x, b.Scalar("sqrt2", 1.4142135f)})});
    ValueId factor = b.Op("Add", {erf, b.Scalar("one", 1.f)});
    ValueId half_x = b.Op("Mul", {x, b.Scalar("half", 0.5f)});
    ValueId y = b.Op("Add", {b.Op("Mul", {half_x, factor}), half_x});
    Graph g = b.Finish({y});
    EXPECT_EQ(FuseGelu(g), 0);
  }
  for (float sqrt2 : {1.5f, 1.414f}) {  // not sqrt(2) within a relative 1e-5
    GraphBuilder b;
    ValueId x = b.Input("x", {8});
    ValueId erf = b.Op("Erf", {b.Op("Div", {x, b.Scalar("c", sqrt2)})});
    ValueId factor = b.Op("Add", {erf, b.Scalar("one", 1.f)});
    Graph g = b.Finish({b.Op("Mul", {b.Op("Mul", {x, b.Scalar("half", 0.5f)}), factor})});
    EXPECT_EQ(FuseGelu(g), 0) << sqrt2;
  }
  {  // Erf of another value than the one multiplied.
    GraphBuilder b;
    ValueId x = b.Input("x", {8});
    ValueId other = b.Op("Relu", {x});
    ValueId erf = b.Op("Erf", {b.Op("Div", {other, b.Scalar("sqrt2", 1.4142135f)})});
    ValueId factor = b.Op("Add", {erf, b.Scalar("one", 1.f)});
    Graph g = b.Finish({b.Op("Mul", {b.Op("Mul", {x, b.Scalar("half", 0.5f)}), factor})});
    EXPECT_EQ(FuseGelu(g), 0);
  }
  {  // The tanh form with x^2 instead of x^3.
    GraphBuilder b;
    ValueId x = b.Input("x", {8});
    ValueId term =
        b.Op("Mul", {b.Op("Pow", {x, b.Scalar("two", 2.f)}), b.Scalar("c", 0.044715f)});
    ValueId inner = b.Op("Mul", {b.Op("Add", {x, term}), b.Scalar("k", 0.7978845608f)});
    ValueId factor = b.Op("Add", {b.Op("Tanh", {inner}), b.Scalar("one", 1.f)});
    Graph g = b.Finish({b.Op("Mul", {b.Op("Mul", {x, b.Scalar("half", 0.5f)}), factor})});
    EXPECT_EQ(FuseGelu(g), 0);
  }
}

// ---- LayerNorm -------------------------------------------------------------------------------

struct LayerNormSpelling {
  Dims x = {2, 5, 16};
  std::vector<int64_t> axes = {-1};
  bool square_by_mul = false;
  bool scale = true;
  bool bias = true;
  Dims param_dims = {16};
  int64_t opset = 13;  // 18: ReduceMean's axes are an input
};

Graph DecomposedLayerNorm(const LayerNormSpelling& s, GraphBuilder& b) {
  ValueId x = b.Input("x", s.x);
  auto reduce_mean = [&](ValueId in) {
    AttributeMap attrs;
    if (s.opset < 18) {
      attrs.Set("axes", s.axes);
      return b.Op("ReduceMean", {in}, attrs);
    }
    const int64_t n = static_cast<int64_t>(s.axes.size());
    return b.Op("ReduceMean",
                {in, b.Constant("axes" + std::to_string(in), Tensor::FromInt64(s.axes, {n}))});
  };
  ValueId d = b.Op("Sub", {x, reduce_mean(x)});
  ValueId square = s.square_by_mul ? b.Op("Mul", {d, d}) : b.Op("Pow", {d, b.Scalar("two", 2.f)});
  ValueId var = reduce_mean(square);
  ValueId std_dev = b.Op("Sqrt", {b.Op("Add", {var, b.Scalar("eps", 1e-5f)})});
  ValueId y = b.Op("Div", {d, std_dev});
  if (s.scale) y = b.Op("Mul", {y, b.Constant("gamma", b.Random(s.param_dims))});
  if (s.bias) y = b.Op("Add", {b.Constant("beta", b.Random(s.param_dims)), y});
  return b.Finish({y});
}

const Node& OnlyNode(const Graph& g) { return g.nodes.at(0); }

TEST(FuseLayerNormTest, TheDecomposedFormBecomesOneLayerNormalization) {
  for (bool square_by_mul : {false, true}) {
    for (int64_t opset : {13, 18}) {
      SCOPED_TRACE(std::string(square_by_mul ? "Mul(d, d)" : "Pow(d, 2)") + " opset " +
                   std::to_string(opset));
      LayerNormSpelling s;
      s.square_by_mul = square_by_mul;
      s.opset = opset;
      GraphBuilder b(opset);
      Graph g = DecomposedLayerNorm(s, b);
      ExpectFusedSame(g, FuseLayerNorm, 1, s.x, 1e-5f);
      FuseLayerNorm(g);
      ASSERT_EQ(g.nodes.size(), 1u);
      const Node& node = OnlyNode(g);
      EXPECT_EQ(node.op_type, "LayerNormalization");
      EXPECT_EQ(node.opset, 17);
      EXPECT_EQ(node.attrs.GetInt("axis", 0).value(), 2);
      EXPECT_FLOAT_EQ(node.attrs.GetFloat("epsilon", 0.f).value(), 1e-5f);
      ASSERT_EQ(node.inputs.size(), 3u);  // x, gamma, beta
      EXPECT_EQ(g.values[node.inputs[1]].name, "gamma");
      EXPECT_EQ(g.values[node.inputs[2]].name, "beta");
    }
  }
}

TEST(FuseLayerNormTest, TrailingAxesScaleShapesAndNoAffine) {
  {  // Two trailing axes: axis 1 of [2, 5, 16].
    LayerNormSpelling s;
    s.axes = {2, -2};
    s.param_dims = {5, 16};
    GraphBuilder b;
    Graph g = DecomposedLayerNorm(s, b);
    ExpectFusedSame(g, FuseLayerNorm, 1, s.x, 1e-5f);
    FuseLayerNorm(g);
    EXPECT_EQ(OnlyNode(g).attrs.GetInt("axis", 0).value(), 1);
  }
  {  // No scale and no bias: a constant Scale of ones.
    LayerNormSpelling s;
    s.scale = false;
    s.bias = false;
    GraphBuilder b;
    Graph g = DecomposedLayerNorm(s, b);
    ExpectFusedSame(g, FuseLayerNorm, 1, s.x, 1e-5f);
    FuseLayerNorm(g);
    const Value& ones = g.values[OnlyNode(g).inputs[1]];
    ASSERT_TRUE(ones.constant.has_value());
    EXPECT_EQ(ones.dims, (Dims{16}));
    EXPECT_EQ(ones.constant->data<float>()[7], 1.f);
    EXPECT_EQ(OnlyNode(g).inputs.size(), 2u);
  }
  {  // A [1, 1, 16] scale: its leading 1s are dropped for the fused node's Scale.
    LayerNormSpelling s;
    s.param_dims = {1, 1, 16};
    GraphBuilder b;
    Graph g = DecomposedLayerNorm(s, b);
    ExpectFusedSame(g, FuseLayerNorm, 1, s.x, 1e-5f);
    FuseLayerNorm(g);
    EXPECT_EQ(g.values[OnlyNode(g).inputs[1]].dims, (Dims{16}));
    EXPECT_EQ(g.values[OnlyNode(g).inputs[2]].dims, (Dims{16}));
  }
  {  // A Mul by a full tensor is no scale: the LayerNorm fuses and the Mul stays after it.
    LayerNormSpelling s;
    s.param_dims = {2, 5, 16};
    s.bias = false;
    GraphBuilder b;
    Graph g = DecomposedLayerNorm(s, b);
    ExpectFusedSame(g, FuseLayerNorm, 1, s.x, 1e-5f);
    FuseLayerNorm(g);
    EXPECT_EQ(CountOps(g, "LayerNormalization"), 1);
    EXPECT_EQ(CountOps(g, "Mul"), 1);
  }
}

TEST(FuseLayerNormTest, LeavesOtherNormalisations) {
  {  // Over the channels of NCHW (ConvNeXt's channels_first LayerNorm): not the last axes.
    LayerNormSpelling s;
    s.x = {1, 8, 4, 4};
    s.axes = {1};
    s.param_dims = {8, 1, 1};
    GraphBuilder b;
    Graph g = DecomposedLayerNorm(s, b);
    EXPECT_EQ(FuseLayerNorm(g), 0);
    EXPECT_EQ(CountOps(g, "ReduceMean"), 2);
  }
  {  // d = x - mean is read by a third node.
    GraphBuilder b;
    ValueId x = b.Input("x", {3, 8});
    AttributeMap last;
    last.Set("axes", std::vector<int64_t>{-1});
    ValueId d = b.Op("Sub", {x, b.Op("ReduceMean", {x}, last)});
    ValueId var = b.Op("ReduceMean", {b.Op("Mul", {d, d})}, last);
    ValueId std_dev = b.Op("Sqrt", {b.Op("Add", {var, b.Scalar("eps", 1e-5f)})});
    ValueId y = b.Op("Div", {d, std_dev});
    Graph g = b.Finish({y, b.Op("Relu", {d})});
    EXPECT_EQ(FuseLayerNorm(g), 0);
  }
  {  // The variance's mean over another axis than the mean's.
    GraphBuilder b;
    ValueId x = b.Input("x", {3, 8});
    AttributeMap last, all;
    last.Set("axes", std::vector<int64_t>{-1});
    all.Set("axes", std::vector<int64_t>{0, 1});
    ValueId d = b.Op("Sub", {x, b.Op("ReduceMean", {x}, last)});
    ValueId var = b.Op("ReduceMean", {b.Op("Mul", {d, d})}, all);
    ValueId std_dev = b.Op("Sqrt", {b.Op("Add", {var, b.Scalar("eps", 1e-5f)})});
    Graph g = b.Finish({b.Op("Div", {d, std_dev})});
    EXPECT_EQ(FuseLayerNorm(g), 0);
  }
  {  // Pow(d, 3) is no variance.
    GraphBuilder b;
    ValueId x = b.Input("x", {3, 8});
    AttributeMap last;
    last.Set("axes", std::vector<int64_t>{-1});
    ValueId d = b.Op("Sub", {x, b.Op("ReduceMean", {x}, last)});
    ValueId var = b.Op("ReduceMean", {b.Op("Pow", {d, b.Scalar("three", 3.f)})}, last);
    ValueId std_dev = b.Op("Sqrt", {b.Op("Add", {var, b.Scalar("eps", 1e-5f)})});
    Graph g = b.Finish({b.Op("Div", {d, std_dev})});
    EXPECT_EQ(FuseLayerNorm(g), 0);
  }
}

// ---- Canonicalize and the exporter -----------------------------------------------------------

// An opset-13 graph: a decomposed LayerNorm, then an erf-GELU of it.
Graph LayerNormThenGelu(GraphBuilder& b) {
  LayerNormSpelling s;
  Graph norm = DecomposedLayerNorm(s, b);
  ValueId x = norm.outputs[0];
  ValueId erf = b.Op("Erf", {b.Op("Div", {x, b.Scalar("sqrt2", 1.4142135f)})});
  ValueId factor = b.Op("Add", {erf, b.Scalar("one", 1.f)});
  return b.Finish({b.Op("Mul", {b.Op("Mul", {x, b.Scalar("half", 0.5f)}), factor})});
}

TEST(FusionCanonicalizeTest, CountsBothFusionsAndThePassesCanBeTurnedOff) {
  GraphBuilder b;
  Graph g = LayerNormThenGelu(b);
  Graph unfused = g;
  CanonicalizeStats stats;
  ASSERT_TRUE(Canonicalize(g, CanonicalizeOptions{}, &stats).ok());
  EXPECT_EQ(stats.gelus_fused, 1);
  EXPECT_EQ(stats.layer_norms_fused, 1);
  EXPECT_EQ(g.nodes.size(), 2u);
  CanonicalizeOptions off;
  off.fuse_gelu = false;
  off.fuse_layer_norm = false;
  ASSERT_TRUE(Canonicalize(unfused, off, &stats).ok());
  EXPECT_EQ(stats.gelus_fused + stats.layer_norms_fused, 0);
  EXPECT_EQ(CountOps(unfused, "Gelu") + CountOps(unfused, "LayerNormalization"), 0);
}

TEST(FusionExportTest, FusedNodesNewerThanTheModelAreWrittenAsTheirSubgraphs) {
  GraphBuilder b;
  Graph g = LayerNormThenGelu(b);
  Tensor x = b.Random({2, 5, 16});
  auto want = EvaluateGraphReference(g, {x});
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(Canonicalize(g, CanonicalizeOptions{}, nullptr).ok());
  auto bytes = ExportOnnxBytes(g);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto back = ImportOnnxBytes(bytes.value(), "exported.onnx", ImportOptions{});
  ASSERT_TRUE(back.ok()) << back.status().message();
  Graph& imported = back.value();
  ASSERT_TRUE(Canonicalize(imported, CanonicalizeOptions{}, nullptr).ok());
  EXPECT_EQ(imported.opset, 13);
  EXPECT_EQ(CountOps(imported, "Gelu"), 1);  // fused again from the written subgraphs
  EXPECT_EQ(CountOps(imported, "LayerNormalization"), 1);
  CanonicalizeOptions off;
  off.fuse_gelu = false;
  off.fuse_layer_norm = false;
  auto plain = ImportOnnxBytes(bytes.value(), "exported.onnx", ImportOptions{});
  ASSERT_TRUE(plain.ok());
  ASSERT_TRUE(Canonicalize(plain.value(), off, nullptr).ok());
  EXPECT_EQ(CountOps(plain.value(), "Gelu") + CountOps(plain.value(), "LayerNormalization"), 0);
  EXPECT_EQ(CountOps(plain.value(), "Erf"), 1);
  auto got = EvaluateGraphReference(plain.value(), {x});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_LT(MaxAbsDiff(want.value()[0], got.value()[0]), 1e-5f);
}

TEST(FusionExportTest, TheTanhFormIsWrittenAsTanhAndANativeOpsetKeepsGelu) {
  Graph g = TanhGelu(true, false);
  GraphBuilder inputs;
  Tensor x = inputs.Random({4, 16});
  auto want = EvaluateGraphReference(g, {x});
  ASSERT_TRUE(want.ok());
  ASSERT_EQ(FuseGelu(g), 1);
  auto bytes = ExportOnnxBytes(g);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto back = ImportOnnxBytes(bytes.value(), "exported.onnx", ImportOptions{});
  ASSERT_TRUE(back.ok()) << back.status().message();
  CanonicalizeOptions off;
  off.fuse_gelu = false;
  ASSERT_TRUE(Canonicalize(back.value(), off, nullptr).ok());
  EXPECT_EQ(CountOps(back.value(), "Tanh"), 1);
  auto got = EvaluateGraphReference(back.value(), {x});
  ASSERT_TRUE(got.ok());
  EXPECT_LT(MaxAbsDiff(want.value()[0], got.value()[0]), 1e-6f);
  // At opset 20 the node is written as it is.
  g.opset = 20;
  for (Node& node : g.nodes) node.opset = 20;
  auto native = ExportOnnxBytes(g);
  ASSERT_TRUE(native.ok());
  auto native_back = ImportOnnxBytes(native.value(), "native.onnx", ImportOptions{});
  ASSERT_TRUE(native_back.ok()) << native_back.status().message();
  ASSERT_EQ(native_back.value().nodes.size(), 1u);
  EXPECT_EQ(native_back.value().nodes[0].op_type, "Gelu");
  EXPECT_EQ(native_back.value().nodes[0].attrs.GetString("approximate", "").value(), "tanh");
}

}  // namespace
}  // namespace ios
