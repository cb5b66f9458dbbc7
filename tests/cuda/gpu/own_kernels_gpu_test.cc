// ios's own CUDA kernels on a device against the reference kernels: one node at a time, random
// data from fixed seeds, outputs poisoned before the run so that an element never written shows
// up. Skips without a GPU (this project's machines have none) but is built everywhere.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "own_kernel_gpu_check.h"

namespace ios {
namespace {

using testing::CheckOnGpu;
using testing::Ints;
using testing::kExact;
using testing::kFloatMath;
using testing::OneNodeGraph;
using testing::Options;
using testing::RandomFloats;
using testing::Tolerance;

Tensor RandomInts(std::mt19937& rng, Dims dims) {
  Tensor t(DType::kInt64, std::move(dims));
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<int64_t>()[i] = static_cast<int64_t>(rng());
  return t;
}

TEST(OwnKernelsGpuTest, Activations) {
  std::mt19937 rng(1);
  const Dims dims = {2, 5, 33, 17};
  const std::vector<std::pair<const char*, std::vector<std::pair<std::string, float>>>> specs = {
      {"Relu", {}},
      {"LeakyRelu", {{"alpha", 0.2f}}},
      {"Sigmoid", {}},
      {"Tanh", {}},
      {"HardSigmoid", {}},
      {"HardSwish", {}},
      {"Elu", {{"alpha", 0.3f}}}};
  for (const auto& [op, attrs] : specs) {
    OneNodeGraph g(op, 14);
    g.Input(RandomFloats(rng, dims, -6.f, 6.f));
    for (const auto& [name, value] : attrs) g.Attr(name, value);
    CheckOnGpu(g, kFloatMath);
  }
  auto scalar = [](float v) { return Tensor::FromFloat({v}, {}); };
  OneNodeGraph constant_bounds("Clip", 13);
  constant_bounds.Input(RandomFloats(rng, dims, -3.f, 3.f))
      .Constant(scalar(0.f))
      .Constant(scalar(6.f));
  CheckOnGpu(constant_bounds, kExact);
  OneNodeGraph runtime_bounds("Clip", 13);
  runtime_bounds.Input(RandomFloats(rng, dims, -3.f, 3.f)).Constant(scalar(-1.f)).Omitted();
  CheckOnGpu(runtime_bounds, kExact, Options(/*through_graph=*/false, /*runtime_input=*/1));
  OneNodeGraph attribute_bounds("Clip", 6);
  attribute_bounds.Input(RandomFloats(rng, dims, -8.f, 8.f)).Attr("min", 0.f).Attr("max", 6.f);
  CheckOnGpu(attribute_bounds, kExact);
}

TEST(OwnKernelsGpuTest, BinaryBroadcasting) {
  std::mt19937 rng(2);
  const Dims full = {2, 6, 5, 7};
  const std::vector<std::pair<Dims, Dims>> shapes = {{full, full},
                                                     {full, {1, 6, 1, 1}},
                                                     {{6, 1, 1}, full},
                                                     {full, {}},
                                                     {full, {7}},
                                                     {full, {2, 6, 1, 1}},
                                                     {full, {2, 1, 5, 7}},
                                                     {{2, 1, 5, 1}, {1, 6, 1, 7}},
                                                     {{1, 300000}, {1, 300000}}};
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow"}) {
    for (const auto& [a, b] : shapes) {
      OneNodeGraph g(op, 14);
      g.Input(RandomFloats(rng, a, 0.1f, 2.f)).Input(RandomFloats(rng, b, 0.5f, 2.f));
      CheckOnGpu(g, kFloatMath);
    }
  }
  for (const char* op : {"Sum", "Max", "Min"}) {
    OneNodeGraph g(op, 13);
    g.Input(RandomFloats(rng, {1, 3, 1}))
        .Input(RandomFloats(rng, {2, 1, 4}))
        .Input(RandomFloats(rng, {}))
        .Input(RandomFloats(rng, {2, 3, 4}));
    CheckOnGpu(g, kFloatMath);
    OneNodeGraph single(op, 13);
    single.Input(RandomFloats(rng, {4, 4}));
    CheckOnGpu(single, kExact);
  }
  for (const char* op : {"Neg", "Abs", "Sqrt", "Exp", "Log", "Reciprocal", "Floor", "Ceil"}) {
    OneNodeGraph g(op, 13);
    g.Input(RandomFloats(rng, {3, 70, 11}, 0.01f, 4.f));
    CheckOnGpu(g, kFloatMath);
  }
}

TEST(OwnKernelsGpuTest, ConcatAndSplit) {
  std::mt19937 rng(3);
  for (int64_t axis : {0, 1, 2, 3}) {
    OneNodeGraph g("Concat", 13);
    for (int64_t size : {3, 1, 8}) {
      Dims dims = {2, 4, 5, 6};
      dims[axis] = size;
      g.Input(RandomFloats(rng, dims));
    }
    g.Attr("axis", axis);
    CheckOnGpu(g, kExact);
  }
  for (int64_t axis : {1, 2, 3}) {
    OneNodeGraph split("Split", 13);
    split.Input(RandomFloats(rng, {2, 12, 12, 12}))
        .Constant(Ints({3, 1, 8}))
        .Attr("axis", axis)
        .Outputs(3);
    CheckOnGpu(split, kExact);
  }
  OneNodeGraph shapes("Concat", 13);
  shapes.Input(RandomInts(rng, {2})).Input(RandomInts(rng, {3})).Attr("axis", int64_t{0});
  CheckOnGpu(shapes, kExact);
  OneNodeGraph equal("Split", 11);
  equal.Input(RandomFloats(rng, {2, 6, 7})).Attr("axis", int64_t{-1}).Outputs(1);
  CheckOnGpu(equal, kExact);
}

TEST(OwnKernelsGpuTest, SliceTransposeExpand) {
  std::mt19937 rng(4);
  OneNodeGraph slice("Slice", 13);
  slice.Input(RandomFloats(rng, {4, 9, 6}))
      .Constant(Ints({1, -1}))
      .Constant(Ints({3, -8}))
      .Constant(Ints({0, 1}))
      .Constant(Ints({1, -2}));
  CheckOnGpu(slice, kExact);
  OneNodeGraph old_slice("Slice", 9);
  old_slice.Input(RandomInts(rng, {10}))
      .Attr("starts", std::vector<int64_t>{2})
      .Attr("ends", std::vector<int64_t>{INT64_MAX});
  CheckOnGpu(old_slice, kExact);
  OneNodeGraph transpose("Transpose", 13);
  transpose.Input(RandomFloats(rng, {2, 3, 4, 5})).Attr("perm", std::vector<int64_t>{0, 2, 3, 1});
  CheckOnGpu(transpose, kExact);
  OneNodeGraph reverse("Transpose", 13);
  reverse.Input(RandomFloats(rng, {7, 3, 5}));
  CheckOnGpu(reverse, kExact);
  OneNodeGraph expand("Expand", 13);
  expand.Input(RandomFloats(rng, {3, 1})).Constant(Ints({2, 1, 4}));
  CheckOnGpu(expand, kExact);
}

TEST(OwnKernelsGpuTest, PadEveryMode) {
  std::mt19937 rng(5);
  // (The op registry refuses "wrap"; kernel_math_tensor_test checks its math.)
  for (const char* mode : {"constant", "reflect", "edge"}) {
    OneNodeGraph g("Pad", 13);
    g.Input(RandomFloats(rng, {1, 3, 5, 6}))
        .Constant(Ints({0, 0, 2, -1, 0, 0, 1, 2}))
        .Constant(Tensor::FromFloat({1.5f}, {}))
        .Attr("mode", std::string(mode));
    CheckOnGpu(g, kExact);
  }
  OneNodeGraph runtime_value("Pad", 13);
  runtime_value.Input(RandomFloats(rng, {2, 3}))
      .Constant(Ints({1, 1, 1, 1}))
      .Constant(Tensor::FromFloat({-7.f}, {}));
  CheckOnGpu(runtime_value, kExact, Options(/*through_graph=*/false, /*runtime_input=*/2));
  OneNodeGraph old("Pad", 2);
  old.Input(RandomFloats(rng, {2, 3}))
      .Attr("pads", std::vector<int64_t>{0, 1, 0, 2})
      .Attr("value", 3.f);
  CheckOnGpu(old, kExact);
}

TEST(OwnKernelsGpuTest, CopiesAndDropoutMask) {
  std::mt19937 rng(6);
  OneNodeGraph reshape("Reshape", 13);
  reshape.Input(RandomFloats(rng, {2, 3, 4})).Constant(Ints({6, -1}));
  CheckOnGpu(reshape, kExact, Options(/*through_graph=*/true));
  OneNodeGraph flatten("Flatten", 13);
  flatten.Input(RandomInts(rng, {2, 3, 4}));
  CheckOnGpu(flatten, kExact);
  OneNodeGraph dropout("Dropout", 13);
  dropout.Input(RandomFloats(rng, {5, 5})).Outputs(2);
  CheckOnGpu(dropout, kExact, Options(/*through_graph=*/true));
}

TEST(OwnKernelsGpuTest, SoftmaxReduceMeanBatchNorm) {
  std::mt19937 rng(7);
  struct SoftmaxSpec {
    int64_t opset;
    Dims dims;
    int64_t axis;
  };
  for (const SoftmaxSpec& spec : std::vector<SoftmaxSpec>{
           {13, {4, 1000}, -1}, {13, {2, 3, 5, 7}, 1}, {11, {2, 3, 5, 7}, 1}, {13, {3, 5000}, 1}}) {
    OneNodeGraph g("Softmax", spec.opset);
    g.Input(RandomFloats(rng, spec.dims, -8.f, 8.f)).Attr("axis", spec.axis);
    CheckOnGpu(g, kFloatMath);
  }
  OneNodeGraph mean("ReduceMean", 13);
  mean.Input(RandomFloats(rng, {2, 8, 7, 7})).Attr("axes", std::vector<int64_t>{2, 3});
  CheckOnGpu(mean, kFloatMath);
  OneNodeGraph long_mean("ReduceMean", 13);  // the block-per-output path
  long_mean.Input(RandomFloats(rng, {2, 4, 64, 64}))
      .Attr("axes", std::vector<int64_t>{-1, -2})
      .Attr("keepdims", int64_t{0});
  CheckOnGpu(long_mean, Tolerance{1e-5, 1e-4});
  OneNodeGraph middle("ReduceMean", 18);
  middle.Input(RandomFloats(rng, {3, 5, 4})).Constant(Ints({1}));
  CheckOnGpu(middle, kFloatMath);
  OneNodeGraph bn("BatchNormalization", 15);
  bn.Input(RandomFloats(rng, {2, 6, 9, 9}, -3.f, 3.f))
      .Constant(RandomFloats(rng, {6}, 0.5f, 2.f))
      .Constant(RandomFloats(rng, {6}))
      .Constant(RandomFloats(rng, {6}))
      .Constant(RandomFloats(rng, {6}, 0.1f, 2.f));
  CheckOnGpu(bn, kFloatMath, Options(/*through_graph=*/true));
}

}  // namespace
}  // namespace ios
