// The table of one-node cases: every op in the registry, with a case for each of its kernels'
// distinct paths (broadcasting, attribute and input forms, a fused activation), small enough that
// the whole table runs in seconds. Each backend's test runs every case its backend supports
// against the reference kernel (op_cases_cpu_test.cc, gpu/op_cases_gpu_test.cc); the registry
// walk fails for an op without a case (op_registry_walk_test.cc). A new elementwise op is one
// line here, e.g. {"Sign", Unary({2, 3, 4, 5}, Range(-2, 2).Specials()), kExact}.
#include <cctype>
#include <string>
#include <vector>

#include "op_case.h"

namespace ios::op_cases {
namespace {

const Dims kImage = {2, 6, 5, 7};

// A Conv over x of `x` with constant weights of [out, x[1] / group, kernel...] and a bias.
NodeSpec Conv(Dims x, int64_t out, Dims kernel, int64_t group = 1) {
  Dims w = {out, x[1] / group};
  w.insert(w.end(), kernel.begin(), kernel.end());
  NodeSpec node = NodeSpec().In(std::move(x)).Weight(std::move(w)).Weight({out});
  return node.Attr("kernel_shape", kernel).Attr("group", group);
}

// A reduction over `axes` of an input of kImage, as an attribute (opsets before 18; ReduceSum
// before 13) or as a constant input.
NodeSpec Reduce(const Dims& axes, int64_t keepdims, bool as_input, int64_t input_since = 18,
                Draw draw = {}) {
  NodeSpec node = Unary(kImage, draw).Attr("keepdims", keepdims);
  if (as_input) return node.Const(I64(axes)).Opset(input_since);
  return node.Attr("axes", axes).Opset(input_since - 1);
}

// Resize of opset 13 with constant scales (roi omitted).
NodeSpec ResizeScales(Dims x, const std::vector<float>& scales, const std::string& mode) {
  return Unary(std::move(x)).Omitted().Const(F32(scales)).Attr("mode", mode);
}

std::vector<OpCase> MakeCases() {
  const Draw positive = Range(0.5, 2);
  std::vector<OpCase> cases = {
      // ---- Unary math ----
      {"Abs", Unary(kImage, Range(-5, 5)), kExact},
      {"Neg", Unary(kImage, Range(-5, 5)), kExact},
      {"Floor", Unary(kImage, Range(-5, 5)), kExact},
      {"Ceil", Unary(kImage, Range(-5, 5)), kExact},
      {"Abs", Unary(kImage, Range(-5, 5).Specials()).Label("specials"), kExact},
      {"Neg", Unary(kImage, Range(-5, 5).Specials()).Label("specials"), kExact},
      {"Floor", Unary(kImage, Range(-5, 5).Specials()).Label("specials"), kExact},
      {"Ceil", Unary(kImage, Range(-5, 5).Specials()).Label("specials"), kExact},
      {"Sign", Unary(kImage, Range(-2, 2).Specials()), kExact},
      {"Sqrt", Unary(kImage, Range(0, 20)), kElementwise},
      {"Reciprocal", Unary(kImage, Range(0.1, 4)), kElementwise},
      {"Exp", Unary(kImage, Range(-20, 20)), kFloatMath},
      {"Log", Unary(kImage, Range(0.01, 20)), kFloatMath},
      {"Erf", Unary(kImage, Range(-4, 4)), kFloatMath},
      {"Not", Unary(kImage, Bools()), kExact},
      // ---- Activations ----
      {"Relu", Unary(kImage, Range(-6, 6)), kExact},
      {"LeakyRelu", Unary(kImage, Range(-6, 6)).Attr("alpha", 0.2f), kElementwise},
      {"LeakyRelu", Unary(kImage, Range(-6, 6)).Label("default alpha"), kElementwise},
      {"Sigmoid", Unary(kImage, Range(-6, 6)), kFloatMath},
      {"Tanh", Unary(kImage, Range(-6, 6)), kFloatMath},
      {"HardSigmoid", Unary(kImage, Range(-6, 6)).Attr("alpha", 0.3f).Attr("beta", 0.4f),
       kFloatMath},
      {"HardSwish", Unary(kImage, Range(-6, 6)).Opset(14), kFloatMath},
      {"Elu", Unary(kImage, Range(-6, 6)).Attr("alpha", 0.3f), kFloatMath},
      {"Selu", Unary(kImage, Range(-6, 6)).Opset(6), kFloatMath},
      {"Selu", Unary(kImage, Range(-6, 6)).Attr("alpha", 2.f).Attr("gamma", 0.5f).Opset(22),
       kFloatMath},
      {"Celu", Unary(kImage, Range(-6, 6)).Attr("alpha", 0.5f).Opset(12), kFloatMath},
      {"Softsign", Unary(kImage, Range(-30, 30)).Opset(22), kFloatMath},
      {"Softplus", Unary(kImage, Range(-30, 30)).Opset(22), kFloatMath},
      {"Mish", Unary(kImage, Range(-30, 30)).Opset(18), kFloatMath},
      {"ThresholdedRelu", Unary(kImage, Range(-2, 2)).Attr("alpha", 0.5f).Opset(10), kExact},
      {"Gelu", Unary(kImage, Range(-6, 6)).Opset(20), kElementwise},
      {"Gelu", Unary(kImage, Range(-6, 6)).Attr("approximate", std::string("tanh")).Opset(20),
       kElementwise},
      {"Clip", Unary(kImage, Range(-3, 3)).Const(Scalar(-1)).Const(Scalar(2)), kExact},
      {"Clip", Unary(kImage, Range(-3, 3)).Omitted().Const(Scalar(0.5)).Label("max only"), kExact},
      {"Clip", Unary(kImage, Range(-8, 8)).Attr("min", 0.f).Attr("max", 6.f).Opset(6), kExact},
      {"PRelu", Binary(kImage, {6, 1, 1}, Range(-2, 2)).Opset(16), kExact},
      {"PRelu", Unary(kImage, Range(-2, 2)).Weight({7}).Opset(16).Label("constant slope"), kExact},
      // ---- Binary and variadic arithmetic ----
      {"Add", Binary(kImage, kImage).Opset(14), kElementwise},
      {"Add", Binary(kImage, {1, 6, 1, 1}).Opset(14).Label("per channel"), kElementwise},
      {"Add", Binary({}, kImage).Opset(14).Label("scalar"), kElementwise},
      {"Add", Binary({2, 1, 5, 1}, {1, 6, 1, 7}).Opset(14).Label("both broadcast"), kElementwise},
      {"Sub", Binary(kImage, kImage).Opset(14), kElementwise},
      {"Sub", Binary(kImage, {7}).Opset(14).Label("last axis"), kElementwise},
      {"Mul", Binary(kImage, kImage).Opset(14), kElementwise},
      {"Mul", Binary(kImage, {2, 6, 1, 1}).Opset(14).Label("per image channel"), kElementwise},
      {"Div", Binary(kImage, kImage, Range(-1, 1), positive).Opset(14), kElementwise},
      {"Div", Binary(kImage, {}, Range(-1, 1), positive).Opset(14).Label("scalar"), kElementwise},
      {"Pow", Binary(kImage, kImage, Range(0.1, 3), Range(-3, 3)).Opset(15), kFloatMath},
      {"Pow", Unary(kImage, Range(-3, 3)).Const(Scalar(2)).Opset(15).Label("square"), kFloatMath},
      {"Mod", Binary(kImage, kImage, Range(-10, 10), positive), kExact},
      {"Mod",
       Binary(kImage, {1, 6, 1, 1}, Range(-10, 10), Range(-3, -0.5))
           .Attr("fmod", int64_t{1})
           .Label("fmod"),
       kExact},
      {"Mod", Binary(kImage, {}, IntRange(-20, 20), IntRange(1, 5)).Label("int64"), kExact},
      {"Sum", Variadic({{1, 3, 1}, {2, 1, 4}, {}, {2, 3, 4}}), kFloatMath},
      {"Sum", Variadic({kImage}).Label("one input"), kExact},
      {"Mean", Variadic({{1, 3, 1}, {2, 1, 4}, {2, 3, 4}}), kFloatMath},
      {"Max", Variadic({{1, 3, 1}, {2, 1, 4}, {}, {2, 3, 4}}), kExact},
      {"Max", Variadic({kImage}).Label("one input"), kExact},
      {"Min", Variadic({{1, 3, 1}, {2, 1, 4}, {2, 3, 4}}), kExact},
      // ---- Comparisons and selection ----
      {"Equal", Binary(kImage, {1, 6, 1, 1}, Whole(-2, 2), Whole(-2, 2)), kExact},
      {"Equal", Binary({4, 9}, {9}, IntRange(-2, 2), IntRange(-2, 2)).Label("int64"), kExact},
      {"Greater", Binary(kImage, kImage, Whole(-2, 2), Whole(-2, 2)), kExact},
      {"Less", Binary(kImage, {}, Whole(-2, 2), Whole(-2, 2)), kExact},
      {"Where", NodeSpec().In(kImage, Bools()).In(kImage).In(kImage).Opset(16), kExact},
      {"Where", NodeSpec().In({1, 1, 5, 7}, Bools()).In(kImage).In({}).Opset(16).Label("broadcast"),
       kExact},
      // ---- Conv, ConvTranspose, Gemm, MatMul ----
      {"Conv", Conv({1, 4, 7, 7}, 6, {3, 3}).Attr("pads", Dims{1, 1, 1, 1}), DotTolerance(36)},
      {"Conv", Conv({2, 8, 6, 6}, 5, {1, 1}).Label("1x1"), DotTolerance(8)},
      {"Conv", Conv({1, 4, 9, 8}, 6, {3, 3}).Attr("strides", Dims{2, 2}).Label("stride 2"),
       DotTolerance(36)},
      {"Conv", Conv({1, 6, 8, 8}, 6, {3, 3}, 6).Attr("pads", Dims{1, 1, 1, 1}).Label("depthwise"),
       DotTolerance(9)},
      {"Conv",
       Conv({1, 6, 7, 7}, 4, {3, 3}, 2).Attr("dilations", Dims{2, 2}).Label("groups dilation"),
       DotTolerance(27)},
      {"Conv",
       Conv({1, 4, 6, 6}, 6, {3, 3})
           .Attr("auto_pad", std::string("SAME_UPPER"))
           .Fused(ActivationKind::kRelu)
           .Label("same upper relu"),
       DotTolerance(36)},
      {"Conv", Conv({1, 4, 6, 6}, 6, {3, 3}).Fused(ActivationKind::kClip, 0.f, 6.f).Label("relu6"),
       DotTolerance(36)},
      {"Conv",
       NodeSpec()
           .In({1, 4, 6, 6})
           .In({6, 4, 3, 3})
           .Attr("kernel_shape", Dims{3, 3})
           .Label("run time weights no bias"),
       DotTolerance(36)},
      {"Conv", Conv({2, 3, 11}, 4, {3}).Attr("pads", Dims{1, 0}).Label("1 D"), DotTolerance(9)},
      {"Conv", Conv({1, 2, 4, 5, 6}, 3, {3, 3, 3}).Label("3 D"), DotTolerance(54)},
      {"ConvTranspose",
       NodeSpec()
           .In({1, 4, 5, 5})
           .Weight({4, 3, 3, 3})
           .Weight({3})
           .Attr("strides", Dims{2, 2})
           .Attr("pads", Dims{1, 1, 1, 1})
           .Attr("output_padding", Dims{1, 1}),
       DotTolerance(36)},
      {"ConvTranspose",
       NodeSpec()
           .In({1, 4, 5, 5})
           .Weight({4, 2, 2, 2})
           .Attr("strides", Dims{2, 2})
           .Attr("group", int64_t{2})
           .Label("groups 2"),
       DotTolerance(8)},
      {"Gemm", NodeSpec().In({5, 12}).Weight({12, 7}).Weight({7}), DotTolerance(12)},
      {"Gemm",
       NodeSpec()
           .In({12, 5})
           .In({7, 12})
           .In({5, 1})
           .Attr("transA", int64_t{1})
           .Attr("transB", int64_t{1})
           .Attr("alpha", 0.5f)
           .Attr("beta", -0.75f)
           .Label("transposed"),
       DotTolerance(12)},
      {"MatMul", NodeSpec().In({3, 5, 16}).Weight({16, 9}), DotTolerance(16)},
      {"MatMul", Binary({2, 3, 5, 8}, {8, 6}).Label("batch"), DotTolerance(8)},
      {"MatMul",
       Binary({2, 1, 5, 8}, {1, 3, 8, 6})
           .Label("both broadcast")
           .NotOnCuda("one strided batched GEMM takes full or single batches only"),
       DotTolerance(8)},
      {"MatMul", Binary({16}, {16, 9}).Label("vector"), DotTolerance(16)},
      // ---- Normalisation, softmax ----
      {"BatchNormalization",
       Unary(kImage)
           .Weight({6})
           .Weight({6})
           .Weight({6})
           .Weight({6}, Range(0.1, 1))
           .Attr("epsilon", 1e-3f)
           .Opset(15),
       kFloatMath},
      {"BatchNormalization",
       Unary(kImage)
           .In({6})
           .In({6})
           .In({6})
           .In({6}, Range(0.1, 1))
           .Fused(ActivationKind::kRelu)
           .Opset(15)
           .Label("run time relu"),
       kFloatMath},
      {"LayerNormalization",
       Unary({2, 5, 16}, Range(-3, 5))
           .Weight({16}, positive)
           .Weight({16})
           .Attr("axis", int64_t{-1})
           .Opset(17),
       kFloatSums},
      {"LayerNormalization",
       Unary({2, 3, 4, 5}, Range(-3, 5))
           .Weight({4, 5}, positive)
           .Attr("axis", int64_t{2})
           .Attr("epsilon", 0.5f)
           .Outputs(3)
           .Opset(17)
           .Label("statistics"),
       kFloatSums},
      {"Softmax", Unary({4, 100}, Range(-5, 5)), kFloatMath},
      {"Softmax", Unary(kImage, Range(-5, 5)).Attr("axis", int64_t{1}).Label("axis 1"), kFloatMath},
      {"LogSoftmax", Unary({4, 100}, Range(-8, 8)), kFloatMath},
      {"LogSoftmax", Unary(kImage, Range(-8, 8)).Attr("axis", int64_t{1}).Label("axis 1"),
       kFloatMath},
      // ---- Pools ----
      {"MaxPool",
       Unary(kImage)
           .Attr("kernel_shape", Dims{3, 3})
           .Attr("strides", Dims{2, 2})
           .Attr("pads", Dims{1, 1, 1, 1}),
       kExact},
      {"MaxPool",
       Unary(kImage)
           .Attr("kernel_shape", Dims{2, 2})
           .Attr("strides", Dims{2, 2})
           .Attr("ceil_mode", int64_t{1})
           .Attr("dilations", Dims{1, 2})
           .Label("ceil dilation")
           .NotOnCuda("cuDNN pooling has no dilations"),
       kExact},
      {"AveragePool",
       Unary(kImage)
           .Attr("kernel_shape", Dims{3, 3})
           .Attr("strides", Dims{2, 2})
           .Attr("pads", Dims{1, 1, 1, 1}),
       kFloatMath},
      {"AveragePool",
       Unary(kImage)
           .Attr("kernel_shape", Dims{3, 2})
           .Attr("pads", Dims{1, 0, 1, 1})
           .Attr("ceil_mode", int64_t{1})
           .Attr("count_include_pad", int64_t{1})
           .Label("include pad"),
       kFloatMath},
      {"GlobalAveragePool", Unary(kImage), kFloatMath},
      {"GlobalMaxPool", Unary(kImage), kExact},
      // ---- Reductions ----
      {"ReduceMean", Reduce({2, 3}, 1, false), kFloatSums},
      {"ReduceMean", Reduce({1}, 0, true).Label("axes input"), kFloatSums},
      {"ReduceSum", Reduce({2, 3}, 1, false, 13), kFloatSums},
      {"ReduceSum", Reduce({0, 2}, 0, true, 13).Label("axes input"), kFloatSums},
      {"ReduceMax", Reduce({2, 3}, 1, false), kExact},
      {"ReduceMax", Reduce({-1}, 0, true).Label("axes input"), kExact},
      {"ReduceMin", Reduce({1}, 1, false), kExact},
      {"ReduceMin", Reduce({0, 1, 2, 3}, 0, true).Label("axes input"), kExact},
      {"ReduceProd", Reduce({2, 3}, 1, false, 18, Range(0.9, 1.1)), kFloatSums},
      {"ReduceProd", Reduce({1}, 0, true, 18, Range(0.9, 1.1)).Label("axes input"), kFloatSums},
      {"ReduceL1", Reduce({2, 3}, 1, false), kFloatSums},
      {"ReduceL1", Reduce({1}, 0, true).Label("axes input"), kFloatSums},
      {"ReduceL2", Reduce({2, 3}, 1, false), kFloatSums},
      {"ReduceL2", Reduce({1}, 0, true).Label("axes input"), kFloatSums},
      {"ReduceSumSquare", Reduce({2, 3}, 1, false), kFloatSums},
      {"ReduceSumSquare", Reduce({1}, 0, true).Label("axes input"), kFloatSums},
      {"ReduceLogSumExp", Reduce({2, 3}, 1, false, 18, Range(-4, 4)), kFloatSums},
      {"ReduceLogSumExp", Reduce({1}, 0, true, 18, Range(-4, 4)).Label("axes input"), kFloatSums},
      {"ArgMax", Unary(kImage, Whole(-3, 3)).Attr("axis", int64_t{1}), kExact},
      {"ArgMax",
       Unary(kImage, Whole(-3, 3))
           .Attr("axis", int64_t{-1})
           .Attr("keepdims", int64_t{0})
           .Attr("select_last_index", int64_t{1})
           .Label("last index"),
       kExact},
      {"ArgMin", Unary(kImage, Whole(-3, 3)).Attr("axis", int64_t{1}), kExact},
      {"ArgMin",
       Unary(kImage, Whole(-3, 3))
           .Attr("axis", int64_t{0})
           .Attr("select_last_index", int64_t{1})
           .Label("last index"),
       kExact},
      // ---- Data movement ----
      {"Identity", Unary(kImage), kExact},
      {"Dropout", Unary(kImage), kExact},
      {"Dropout", Unary(kImage).Outputs(2).Label("mask"), kExact},
      {"Cast", Unary(kImage, Range(-300, 300)).Attr("to", int64_t{7}).Label("to int64"), kExact},
      {"Cast", Unary(kImage, Range(-300, 300)).Attr("to", int64_t{10}).Label("to float16"), kExact},
      {"Cast", Unary(kImage, IntRange(-5, 5)).Attr("to", int64_t{1}).Label("int64 to float"),
       kExact},
      {"Concat", Variadic({{2, 3, 5, 7}, {2, 1, 5, 7}, {2, 4, 5, 7}}).Attr("axis", int64_t{1}),
       kExact},
      {"Concat", Variadic({{2, 6, 5, 3}, {2, 6, 5, 4}}).Attr("axis", int64_t{-1}).Label("last"),
       kExact},
      {"Split", Unary({2, 10, 3}).Const(I64({2, 5, 3})).Attr("axis", int64_t{1}).Outputs(3),
       kExact},
      {"Split", Unary({6, 4}).Attr("axis", int64_t{0}).Outputs(3).Label("equal parts"), kExact},
      {"Slice", Unary(kImage).Const(I64({0, 2})).Const(I64({6, 5})).Const(I64({1, 3})), kExact},
      {"Slice",
       Unary(kImage)
           .Const(I64({1, -1}))
           .Const(I64({100, -7}))
           .Const(I64({2, 3}))
           .Const(I64({2, -1}))
           .Label("steps"),
       kExact},
      {"Transpose", Unary(kImage).Attr("perm", Dims{0, 2, 3, 1}), kExact},
      {"Transpose", Unary({4, 7, 5}).Label("reverse"), kExact},
      {"Reshape", Unary(kImage).Const(I64({0, -1, 5})).Opset(14), kExact},
      {"Flatten", Unary(kImage).Attr("axis", int64_t{2}), kExact},
      {"Squeeze", Unary({1, 5, 1, 3}).Const(I64({0, 2})), kExact},
      {"Unsqueeze", Unary({5, 3}).Const(I64({0, 3})), kExact},
      {"Expand", Unary({1, 6, 1, 1}).Const(I64({2, 6, 5, 7})), kExact},
      {"Expand", Unary({3, 1}).Const(I64({2, 3, 4})).Label("higher rank"), kExact},
      {"Tile", Unary({2, 3, 4}).Const(I64({1, 2, 3})), kExact},
      {"Pad", Unary(kImage).Const(I64({0, 0, 1, 2, 0, 0, 3, 1})).Const(Scalar(0.75)), kExact},
      {"Pad",
       Unary(kImage)
           .Const(I64({0, 1, 0, 0, 1, 0, 2, 2}))
           .Attr("mode", std::string("reflect"))
           .Label("reflect"),
       kExact},
      {"Pad",
       Unary(kImage)
           .Const(I64({0, 0, -1, 2, 0, 0, 1, -2}))
           .Attr("mode", std::string("edge"))
           .Label("edge crop"),
       kExact},
      {"Gather", Unary({5, 4, 3}).Const(I64({4, 0, -1, 2})).Attr("axis", int64_t{0}), kExact},
      {"Gather",
       Unary({2, 6, 3})
           .Value(Tensor::FromInt64({5, -6, 2, 0}, {2, 2}))
           .Attr("axis", int64_t{1})
           .Label("run time indices"),
       kExact},
      {"ScatterND",
       Unary({4, 5, 6}).Const(Tensor::FromInt64({1, 3}, {2, 1})).In({2, 5, 6}).Opset(18), kExact},
      {"ScatterND",
       Unary({4, 5, 6})
           .Const(Tensor::FromInt64({2, 2, 0}, {3, 1}))
           .In({3, 5, 6})
           .Attr("reduction", std::string("add"))
           .Opset(18)
           .Label("add"),
       kExact},
      {"DepthToSpace", Unary({2, 8, 2, 3}).Attr("blocksize", int64_t{2}), kExact},
      {"DepthToSpace",
       Unary({2, 8, 2, 3})
           .Attr("blocksize", int64_t{2})
           .Attr("mode", std::string("CRD"))
           .Label("CRD"),
       kExact},
      {"SpaceToDepth", Unary({2, 3, 4, 6}).Attr("blocksize", int64_t{2}), kExact},
      // ---- Resize ----
      {"Resize", ResizeScales({1, 3, 4, 5}, {1, 1, 2, 2}, "nearest"), kExact},
      {"Resize",
       ResizeScales({1, 3, 4, 5}, {1, 1, 2, 1.5f}, "linear")
           .Attr("coordinate_transformation_mode", std::string("half_pixel"))
           .Label("linear"),
       kInterpolation},
      {"Resize",
       Unary({1, 2, 5, 6})
           .Omitted()
           .Omitted()
           .Const(I64({1, 2, 9, 4}))
           .Attr("mode", std::string("cubic"))
           .Label("cubic sizes"),
       kInterpolation},
      {"Upsample", Unary({1, 2, 3, 4}).Attr("scales", std::vector<float>{1, 1, 2, 3}).Opset(7),
       kExact},
      {"Upsample",
       Unary({1, 2, 3, 4})
           .Const(F32({1, 1, 2, 2}))
           .Attr("mode", std::string("linear"))
           .Opset(9)
           .Label("linear"),
       kInterpolation},
      // ---- Shapes and constants (folded when compiling) ----
      {"Shape", Unary(kImage), kExact},
      {"Constant", NodeSpec().Attr("value", Tensor::FromFloat({1, 2, 3, 4, 5, 6}, {2, 3})), kExact},
      {"ConstantOfShape",
       NodeSpec().Const(I64({2, 3})).Attr("value", Tensor::FromFloat({1.5f}, {1})).Opset(9),
       kExact},
      {"Range", NodeSpec().Const(Scalar(1)).Const(Scalar(10)).Const(Scalar(1.5)).Opset(11), kExact},
      {"Range",
       NodeSpec()
           .Const(Tensor::FromInt64({10}, {}))
           .Const(Tensor::FromInt64({-3}, {}))
           .Const(Tensor::FromInt64({-4}, {}))
           .Opset(11)
           .Label("int64 down"),
       kExact},
  };
  return cases;
}

}  // namespace

const std::vector<OpCase>& OpCases() {
  static const std::vector<OpCase> cases = MakeCases();
  return cases;
}

std::string CaseName(size_t index) {
  const std::vector<OpCase>& cases = OpCases();
  const OpCase& c = cases.at(index);
  size_t of_op = 0;
  for (size_t i = 0; i < index; ++i) of_op += cases[i].op == c.op;
  std::string name = c.op + "_" + std::to_string(of_op);
  if (!c.node.label().empty()) name += "_";
  for (char ch : c.node.label()) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

}  // namespace ios::op_cases
