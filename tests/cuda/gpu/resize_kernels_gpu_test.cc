// The CUDA kernel for Resize and Upsample on a device against the reference kernel: random data
// from fixed seeds, outputs poisoned before the run, enqueued directly or captured into a CUDA
// Graph (own_kernel_gpu_check.h). Skips without a GPU; kernel creation is still checked
// everywhere.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "own_kernel_gpu_check.h"

namespace ios {
namespace {

using testing::CheckOnGpu;
using testing::Ints;
using testing::kExact;
using testing::kInterpolation;
using testing::OneNodeGraph;
using testing::Options;
using testing::RandomFloats;
using testing::Tolerance;

Tensor Scales(const std::vector<float>& values) {
  return Tensor::FromFloat(values, {static_cast<int64_t>(values.size())});
}

TEST(ResizeKernelsGpuTest, NearestEveryRounding) {
  std::mt19937 rng(41);
  // Exact scales and size ratios, so that ties agree with the reference's exact arithmetic.
  for (const char* coordinate : {"asymmetric", "half_pixel", "align_corners", "pytorch_half_pixel",
                                 "tf_half_pixel_for_nn"}) {
    for (const char* rounding : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
      SCOPED_TRACE(std::string(coordinate) + " " + rounding);
      OneNodeGraph up("Resize", 13);
      up.Input(RandomFloats(rng, {1, 8, 10, 12})).Omitted().Constant(Scales({1, 1, 2, 2}));
      up.Attr("coordinate_transformation_mode", std::string(coordinate))
          .Attr("nearest_mode", std::string(rounding));
      CheckOnGpu(up, kExact);
      OneNodeGraph sizes("Resize", 13);
      sizes.Input(RandomFloats(rng, {2, 3, 8, 6})).Omitted().Omitted().Constant(Ints({2, 3, 4, 9}));
      sizes.Attr("coordinate_transformation_mode", std::string(coordinate))
          .Attr("nearest_mode", std::string(rounding));
      CheckOnGpu(sizes, kExact, Options(/*through_graph=*/true));
    }
  }
  OneNodeGraph upsample("Upsample", 9);
  upsample.Input(RandomFloats(rng, {1, 4, 5, 6})).Constant(Scales({1, 1, 2, 3}));
  CheckOnGpu(upsample, kExact);
  OneNodeGraph nhwc("Resize", 10);
  nhwc.Input(RandomFloats(rng, {2, 5, 6, 3})).Constant(Scales({1, 3, 0.5f, 1}));
  CheckOnGpu(nhwc, kExact);
}

TEST(ResizeKernelsGpuTest, LinearAndCubic) {
  std::mt19937 rng(42);
  for (const char* mode : {"linear", "cubic"}) {
    for (const char* coordinate : {"half_pixel", "pytorch_half_pixel", "align_corners",
                                   "asymmetric", "half_pixel_symmetric"}) {
      SCOPED_TRACE(std::string(mode) + " " + coordinate);
      OneNodeGraph up("Resize", 19);
      up.Input(RandomFloats(rng, {1, 16, 20, 24})).Omitted().Constant(Scales({1, 1, 2, 2}));
      up.Attr("mode", std::string(mode))
          .Attr("coordinate_transformation_mode", std::string(coordinate));
      CheckOnGpu(up, kInterpolation);
      OneNodeGraph uneven("Resize", 19);
      uneven.Input(RandomFloats(rng, {2, 3, 13, 7}))
          .Omitted()
          .Omitted()
          .Constant(Ints({2, 3, 25, 5}));
      uneven.Attr("mode", std::string(mode))
          .Attr("coordinate_transformation_mode", std::string(coordinate));
      CheckOnGpu(uneven, kInterpolation, Options(/*through_graph=*/true));
    }
  }
  OneNodeGraph trilinear("Resize", 13);
  trilinear.Input(RandomFloats(rng, {1, 2, 4, 5, 6}))
      .Omitted()
      .Constant(Scales({1, 1, 2, 1.5f, 0.5f}));
  trilinear.Attr("mode", std::string("linear"));
  CheckOnGpu(trilinear, kInterpolation);
  OneNodeGraph cubic("Resize", 13);
  cubic.Input(RandomFloats(rng, {1, 3, 9, 11})).Omitted().Constant(Scales({1, 1, 2, 2}));
  cubic.Attr("mode", std::string("cubic"))
      .Attr("exclude_outside", int64_t{1})
      .Attr("cubic_coeff_a", -0.5f);
  CheckOnGpu(cubic, kInterpolation);
}

}  // namespace
}  // namespace ios
