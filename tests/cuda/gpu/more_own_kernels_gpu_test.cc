// The CUDA kernels for Cast, Equal, Less, Greater, Not, Where, Mean, Gather, Tile and
// ConvTranspose on a device against the reference kernels: one node at a time, random data from
// fixed seeds, outputs poisoned before the run so that an element never written shows up, the
// kernel enqueued on a stream of a CudaStreamSet (with its cuDNN handle and workspace) directly
// or captured into a CUDA Graph. Skips without a GPU (this project's machines have none); what
// needs no device (kernel creation of the own kernels) is still checked everywhere.
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
using testing::kConvMath;
using testing::kExact;
using testing::OneNodeGraph;
using testing::Options;
using testing::RandomFloats;
using testing::RandomIntegers;
using testing::Tolerance;

// Float values of a coarse grid (so that comparisons see equal pairs), as float32.
Tensor GridFloats(std::mt19937& rng, Dims dims) {
  Tensor t(DType::kFloat32, std::move(dims));
  std::uniform_int_distribution<int> dist(-4, 4);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = 0.5f * dist(rng);
  return t;
}

TEST(MoreOwnKernelsGpuTest, Cast) {
  std::mt19937 rng(11);
  const Dims dims = {2, 3, 33, 17};
  struct Case {
    Tensor x;
    int64_t to;  // ONNX TensorProto.DataType
  };
  std::vector<Case> cases;
  cases.push_back({RandomFloats(rng, dims, -300.f, 300.f), 7});       // float32 -> int64
  cases.push_back({RandomFloats(rng, dims, -300.f, 300.f), 6});       // float32 -> int32
  cases.push_back({RandomFloats(rng, dims, -300.f, 300.f), 2});       // float32 -> uint8 (wraps)
  cases.push_back({RandomFloats(rng, dims, -3.f, 3.f), 9});           // float32 -> bool
  cases.push_back({RandomFloats(rng, dims, -70000.f, 70000.f), 10});  // float32 -> float16
  cases.push_back({RandomFloats(rng, dims, -2.f, 2.f), 11});          // float32 -> float64
  cases.push_back({RandomIntegers(rng, DType::kInt64, dims, -(int64_t{1} << 40), int64_t{1} << 40),
                   1});  // int64 -> float32
  cases.push_back({RandomIntegers(rng, DType::kInt64, dims, -100000, 100000), 6});  // -> int32
  cases.push_back({RandomIntegers(rng, DType::kInt32, dims, -5, 5), 9});            // int32 -> bool
  cases.push_back({RandomIntegers(rng, DType::kBool, dims, 0, 1), 1});     // bool -> float32
  cases.push_back({RandomIntegers(rng, DType::kUint8, dims, 0, 255), 3});  // uint8 -> int8
  for (Case& c : cases) {
    const DType from = c.x.dtype();
    OneNodeGraph g("Cast", 13);
    g.Input(std::move(c.x)).Attr("to", c.to);
    SCOPED_TRACE(DTypeName(from) + " -> ONNX type " + std::to_string(c.to));
    CheckOnGpu(g, kExact);
  }
  {  // float16 -> float32 and the same-type copy, captured.
    std::vector<Tensor> half(1);
    OneNodeGraph to_half("Cast", 13);
    to_half.Input(RandomFloats(rng, dims, -100.f, 100.f)).Attr("to", int64_t{10});
    ASSERT_TRUE(to_half.Build().ok());
    const Tensor* in = &to_half.values()[0];
    ASSERT_TRUE(EvaluateReference(to_half.node(), {in}, &half).ok());
    OneNodeGraph g("Cast", 13);
    g.Input(half[0]).Attr("to", int64_t{1});
    CheckOnGpu(g, kExact, Options(true));
    OneNodeGraph same("Cast", 13);
    same.Input(RandomFloats(rng, dims)).Attr("to", int64_t{1});
    CheckOnGpu(same, kExact, Options(true));
  }
}

TEST(MoreOwnKernelsGpuTest, ComparisonsAndNot) {
  std::mt19937 rng(12);
  const Dims full = {2, 6, 5, 7};
  const std::vector<std::pair<Dims, Dims>> shapes = {{full, full},
                                                     {full, {1, 6, 1, 1}},
                                                     {{6, 1, 1}, full},
                                                     {full, {}},
                                                     {{2, 1, 5, 1}, {1, 6, 1, 7}}};
  for (const char* op : {"Equal", "Less", "Greater"}) {
    for (const auto& [a, b] : shapes) {
      OneNodeGraph g(op, 13);
      g.Input(GridFloats(rng, a)).Input(GridFloats(rng, b));
      CheckOnGpu(g, kExact);
    }
    OneNodeGraph ints(op, 13);
    ints.Input(RandomIntegers(rng, DType::kInt64, {3, 40}, -3, 3))
        .Constant(RandomIntegers(rng, DType::kInt64, {40}, -3, 3));
    CheckOnGpu(ints, kExact, Options(true));
  }
  OneNodeGraph bools("Equal", 13);
  bools.Input(RandomIntegers(rng, DType::kBool, {4, 9}, 0, 1))
      .Input(RandomIntegers(rng, DType::kBool, {9}, 0, 1));
  CheckOnGpu(bools, kExact);
  OneNodeGraph negation("Not", 13);
  negation.Input(RandomIntegers(rng, DType::kBool, {3, 70, 11}, 0, 1));
  CheckOnGpu(negation, kExact);
}

TEST(MoreOwnKernelsGpuTest, Where) {
  std::mt19937 rng(13);
  OneNodeGraph g("Where", 16);
  g.Input(RandomIntegers(rng, DType::kBool, {2, 1, 5, 7}, 0, 1))
      .Input(RandomFloats(rng, {6, 1, 1}))
      .Input(RandomFloats(rng, {2, 6, 5, 7}));
  CheckOnGpu(g, kExact);
  OneNodeGraph ints("Where", 16);
  ints.Input(RandomIntegers(rng, DType::kBool, {4, 1}, 0, 1))
      .Constant(RandomIntegers(rng, DType::kInt64, {1, 3}, -9, 9))
      .Constant(Tensor::FromInt64({-1}, {}));
  CheckOnGpu(ints, kExact, Options(true));
}

TEST(MoreOwnKernelsGpuTest, Mean) {
  std::mt19937 rng(14);
  OneNodeGraph g("Mean", 13);
  g.Input(RandomFloats(rng, {1, 3, 1}))
      .Input(RandomFloats(rng, {2, 1, 4}))
      .Input(RandomFloats(rng, {}))
      .Input(RandomFloats(rng, {2, 3, 4}));
  CheckOnGpu(g, kExact);
  OneNodeGraph pair("Mean", 13);
  pair.Input(RandomFloats(rng, {2, 8, 9, 9})).Constant(RandomFloats(rng, {8, 1, 1}));
  CheckOnGpu(pair, kExact, Options(true));
  OneNodeGraph single("Mean", 13);
  single.Input(RandomFloats(rng, {4, 4}));
  CheckOnGpu(single, kExact);
}

TEST(MoreOwnKernelsGpuTest, GatherAndTile) {
  std::mt19937 rng(15);
  // The exporters' Shape -> Gather(-1) on a runtime int64 vector.
  OneNodeGraph last("Gather", 13);
  last.Input(RandomIntegers(rng, DType::kInt64, {4}, 1, 64)).Constant(Tensor::FromInt64({-1}, {}));
  CheckOnGpu(last, kExact);
  // Channel selection with int32 indices (negative ones too), constant or read at run time.
  Tensor indices(DType::kInt32, {2, 3});
  const int32_t values[] = {0, -1, 3, 2, -6, 5};
  for (int i = 0; i < 6; ++i) indices.data<int32_t>()[i] = values[i];
  for (int runtime : {-1, 1}) {
    OneNodeGraph g("Gather", 13);
    g.Input(RandomFloats(rng, {2, 6, 5, 7})).Constant(indices).Attr("axis", int64_t{1});
    CheckOnGpu(g, kExact, Options(runtime >= 0, runtime));
  }
  OneNodeGraph inner("Gather", 13);
  inner.Input(RandomFloats(rng, {3, 4, 9})).Constant(Ints({8, 0, -9, 4})).Attr("axis", int64_t{-1});
  CheckOnGpu(inner, kExact);

  OneNodeGraph tile("Tile", 13);
  tile.Input(RandomFloats(rng, {1, 3, 4, 5})).Constant(Ints({2, 1, 3, 2}));
  CheckOnGpu(tile, kExact);
  OneNodeGraph tile_ints("Tile", 13);
  tile_ints.Input(RandomIntegers(rng, DType::kInt64, {2, 3}, -5, 5)).Constant(Ints({3, 1}));
  CheckOnGpu(tile_ints, kExact, Options(true, 1));
}

struct TransposeCase {
  Dims x;
  Dims w;
  bool bias;
  std::vector<std::pair<std::string, std::vector<int64_t>>> attrs;
  int64_t group = 1;
  std::string auto_pad;
};

TEST(MoreOwnKernelsGpuTest, ConvTranspose) {
  std::mt19937 rng(16);
  const std::vector<TransposeCase> cases = {
      {{2, 8, 5, 6}, {8, 4, 4, 4}, true, {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}},
      {{1, 6, 7, 7},
       {6, 3, 3, 3},
       true,
       {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 1}}}},
      {{1, 4, 6, 5}, {4, 5, 2, 2}, false, {{"strides", {2, 2}}}},
      {{1, 6, 5, 5}, {6, 1, 3, 3}, true, {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}, 6},
      {{2, 8, 4, 4}, {8, 3, 3, 3}, true, {{"pads", {1, 1, 1, 1}}}, 2},
      {{1, 3, 6, 6}, {3, 2, 3, 3}, true, {{"dilations", {2, 2}}, {"pads", {2, 2, 2, 2}}}},
      {{1, 4, 6, 7}, {4, 3, 3, 3}, true, {{"strides", {2, 2}}, {"pads", {0, 1, 2, 0}}}},
      {{1, 4, 5, 5},
       {4, 3, 3, 3},
       true,
       {{"strides", {2, 3}}, {"pads", {1, 0, 2, 2}}, {"output_padding", {1, 2}}}},
      {{1, 4, 5, 6}, {4, 2, 3, 3}, true, {{"strides", {2, 2}}}, 1, "SAME_UPPER"},
      {{1, 4, 5, 5}, {4, 2, 3, 3}, true, {{"strides", {2, 2}}, {"output_shape", {10, 11}}}},
      {{2, 3, 9}, {3, 4, 4}, true, {{"strides", {2}}, {"pads", {1, 2}}}},
      {{1, 2, 3, 4, 5},
       {2, 2, 3, 3, 3},
       true,
       {{"strides", {2, 2, 1}}, {"pads", {1, 1, 0, 1, 0, 1}}, {"output_padding", {1, 0, 0}}}},
  };
  for (const TransposeCase& c : cases) {
    OneNodeGraph g("ConvTranspose", 13);
    g.Input(RandomFloats(rng, c.x)).Constant(RandomFloats(rng, c.w));
    if (c.bias) g.Constant(RandomFloats(rng, {c.w[1] * c.group}));
    for (const auto& [name, values] : c.attrs) g.Attr(name, values);
    g.Attr("group", c.group);
    if (!c.auto_pad.empty()) g.Attr("auto_pad", c.auto_pad);
    SCOPED_TRACE("x " + DimsToString(c.x) + " w " + DimsToString(c.w));
    CheckOnGpu(g, kConvMath, Options(c.x.size() == 5, -1, true));
  }
}

}  // namespace
}  // namespace ios
