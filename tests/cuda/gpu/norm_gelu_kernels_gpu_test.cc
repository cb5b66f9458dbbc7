// The CUDA kernels for Erf, Gelu and LayerNormalization on a device against the reference
// kernels: random data from fixed seeds, outputs poisoned before the run, enqueued directly or
// captured into a CUDA Graph (own_kernel_gpu_check.h). Skips without a GPU; kernel creation is
// still checked everywhere.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "own_kernel_gpu_check.h"

namespace ios {
namespace {

using testing::CheckOnGpu;
using testing::kElementwise;
using testing::kFloatSums;
using testing::OneNodeGraph;
using testing::Options;
using testing::RandomFloats;
using testing::Tolerance;

TEST(NormGeluKernelsGpuTest, ErfAndGelu) {
  std::mt19937 rng(31);
  for (const Dims& dims : {Dims{2, 5, 33, 17}, Dims{7}}) {
    OneNodeGraph erf("Erf", 13);
    erf.Input(RandomFloats(rng, dims, -4.f, 4.f));
    CheckOnGpu(erf, kElementwise);
    for (const char* approximate : {"none", "tanh"}) {
      OneNodeGraph gelu("Gelu", 20);
      gelu.Input(RandomFloats(rng, dims, -6.f, 6.f)).Attr("approximate", std::string(approximate));
      CheckOnGpu(gelu, kElementwise, Options(/*through_graph=*/true));
    }
  }
}

TEST(NormGeluKernelsGpuTest, LayerNormalization) {
  std::mt19937 rng(32);
  struct Spec {
    Dims x;
    int64_t axis;
    Dims scale;
    bool bias;
    int outputs;
    float epsilon;
  };
  const std::vector<Spec> specs = {
      {{2, 50, 96}, -1, {96}, true, 1, 1e-5f},         // tokens: one block per row
      {{2, 50, 96}, -1, {96}, true, 3, 0.5f},          // with Mean and InvStdDev
      {{3, 40}, 1, {40}, false, 1, 1e-5f},             // no bias
      {{2, 8, 6, 6}, 1, {8, 1, 1}, true, 1, 1e-5f},    // a per-channel (broadcast) scale
      {{2, 3, 5, 7}, 1, {3, 5, 7}, false, 3, 0.25f},   // rows of 105
      {{4, 30}, -1, {}, true, 1, 1e-5f},               // a scalar scale
      {{1, 3, 4, 3000}, 2, {4, 3000}, true, 1, 1e-5f}  // long rows: 1024 threads
  };
  for (const Spec& spec : specs) {
    SCOPED_TRACE(DimsToString(spec.x) + " axis " + std::to_string(spec.axis));
    OneNodeGraph g("LayerNormalization", 17);
    g.Input(RandomFloats(rng, spec.x, -3.f, 5.f))
        .Constant(RandomFloats(rng, spec.scale, 0.5f, 2.f));
    if (spec.bias) g.Constant(RandomFloats(rng, spec.scale));
    g.Attr("axis", spec.axis).Attr("epsilon", spec.epsilon).Outputs(spec.outputs);
    CheckOnGpu(g, kFloatSums, Options(/*through_graph=*/spec.outputs > 1));
  }
}

}  // namespace
}  // namespace ios
