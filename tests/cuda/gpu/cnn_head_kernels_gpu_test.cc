// The own CUDA kernels of the ops that recent CNN exports brought (one test per op family) on a
// device against the reference kernels (own_kernel_gpu_check.h). Skips without a GPU (this
// project's machines have none) but is built everywhere, and the kernels' creation is checked
// everywhere.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "own_kernel_gpu_check.h"

namespace ios {
namespace {

using testing::CheckOnGpu;
using testing::kExact;
using testing::kFloatMath;
using testing::kFloatSums;
using testing::OneNodeGraph;
using testing::RandomFloats;
using testing::Tolerance;

TEST(CnnHeadKernelsGpuTest, Activations) {
  std::mt19937 rng(11);
  const Dims dims = {2, 5, 33, 17};
  const std::vector<std::pair<const char*, std::vector<std::pair<std::string, float>>>> specs = {
      {"Softplus", {}}, {"Mish", {}},     {"Selu", {{"alpha", 2.f}, {"gamma", 0.5f}}},
      {"Celu", {}},     {"Softsign", {}}, {"ThresholdedRelu", {{"alpha", 0.5f}}}};
  for (const auto& [op, attrs] : specs) {
    OneNodeGraph g(op, 22);
    g.Input(RandomFloats(rng, dims, -30.f, 30.f));
    for (const auto& [name, value] : attrs) g.Attr(name, value);
    CheckOnGpu(g, kFloatMath);
  }
}

TEST(CnnHeadKernelsGpuTest, PRelu) {
  std::mt19937 rng(16);
  const Dims dims = {2, 5, 33, 17};
  for (const Dims& slope : {Dims{5, 1, 1}, Dims{1}, Dims{17}, dims}) {
    OneNodeGraph g("PRelu", 16);
    g.Input(RandomFloats(rng, dims, -2.f, 2.f)).Constant(RandomFloats(rng, slope));
    CheckOnGpu(g, kExact);
  }
}

Tensor Axes(std::vector<int64_t> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return Tensor::FromInt64(values, {n});
}

TEST(CnnHeadKernelsGpuTest, LogSoftmax) {
  std::mt19937 rng(12);
  OneNodeGraph rows("LogSoftmax", 13);
  rows.Input(RandomFloats(rng, {4, 1000}, -8.f, 8.f));
  CheckOnGpu(rows, Tolerance{1e-5, 1e-5});
  OneNodeGraph strided("LogSoftmax", 13);
  strided.Input(RandomFloats(rng, {2, 7, 5, 6}, -8.f, 8.f)).Attr("axis", int64_t{1});
  CheckOnGpu(strided, Tolerance{1e-5, 1e-5}, testing::Options(/*through_graph=*/true));
  OneNodeGraph coerced("LogSoftmax", 11);
  coerced.Input(RandomFloats(rng, {2, 7, 5, 6}, -8.f, 8.f)).Attr("axis", int64_t{1});
  CheckOnGpu(coerced, Tolerance{1e-5, 1e-5});
}

TEST(CnnHeadKernelsGpuTest, Reductions) {
  std::mt19937 rng(13);
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                         "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp"}) {
    const bool prod = std::string(op) == "ReduceProd";
    // Short reductions (a thread per output) and long ones (a block per output).
    for (const Dims& dims : {Dims{2, 6, 5, 7}, Dims{2, 3, 40, 40}}) {
      OneNodeGraph g(op, 18);
      g.Input(RandomFloats(rng, dims, prod ? 0.99f : -3.f, prod ? 1.01f : 3.f))
          .Constant(Axes({2, 3}));
      CheckOnGpu(g, kFloatSums);
    }
    OneNodeGraph channels(op, 18);
    channels.Input(RandomFloats(rng, {2, 16, 5, 5}, prod ? 0.9f : -3.f, prod ? 1.1f : 3.f))
        .Constant(Axes({1}))
        .Attr("keepdims", int64_t{0});
    CheckOnGpu(channels, kFloatSums, testing::Options(/*through_graph=*/true));
  }
}

TEST(CnnHeadKernelsGpuTest, ArgMaxAndArgMin) {
  std::mt19937 rng(14);
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (int64_t last : {0, 1}) {
      OneNodeGraph g(op, 13);
      Tensor x(DType::kFloat32, {2, 10, 6, 5});
      for (int64_t i = 0; i < x.num_elements(); ++i)
        x.data<float>()[i] = static_cast<float>(rng() % 4);  // ties
      g.Input(x).Attr("axis", int64_t{1}).Attr("select_last_index", last);
      CheckOnGpu(g, kExact);
    }
  }
}

TEST(CnnHeadKernelsGpuTest, DepthToSpaceAndSpaceToDepth) {
  std::mt19937 rng(15);
  for (const char* mode : {"DCR", "CRD"}) {
    OneNodeGraph to_space("DepthToSpace", 13);
    to_space.Input(RandomFloats(rng, {2, 36, 5, 4}))
        .Attr("blocksize", int64_t{3})
        .Attr("mode", std::string(mode));
    CheckOnGpu(to_space, kExact);
    OneNodeGraph to_depth("SpaceToDepth", 28);
    to_depth.Input(RandomFloats(rng, {2, 3, 8, 6}))
        .Attr("blocksize", int64_t{2})
        .Attr("mode", std::string(mode));
    CheckOnGpu(to_depth, kExact);
  }
}

}  // namespace
}  // namespace ios
