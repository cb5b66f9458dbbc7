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
using testing::OneNodeGraph;
using testing::RandomFloats;
using testing::Tolerance;

// Float math against the reference's double formula: a few ulps.
constexpr Tolerance kFloatMath{1e-6, 2e-5};

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

}  // namespace
}  // namespace ios
