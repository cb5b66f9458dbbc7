// The CPU kernels on channels-last tensors (ir/layout.h): the one-node harness hands each kernel
// its inputs stored in the given layouts and reads its outputs back, against the reference
// kernel on row-major tensors. The kernels that take channels-last tensors themselves (conv,
// pools, elementwise ops, channel Concat/Split) must do so without a layout adapter; the others
// must run behind one (layout_adapter_cpu.h) and still give the reference's results.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "cpu_kernel_case.h"
#include "ir/fused_activation.h"
#include "layout_shorthands.h"
#include "random_tensor.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"
#include "runtime/cpu/kernels/layout_adapter_cpu.h"

namespace ios {
namespace {

using namespace cpu_testing;  // NOLINT: the harness of cpu_kernel_case.h
using testing::RandomFloats;

using testing::kB8;
using testing::kCL;
using testing::kRM;

TEST(LayoutTest, StridesOfEachLayout) {
  EXPECT_EQ(LayoutStrides({2, 3, 4, 5}, kRM), Ints({60, 20, 5, 1}));
  EXPECT_EQ(LayoutStrides({2, 3, 4, 5}, kCL), Ints({60, 1, 15, 3}));
  EXPECT_EQ(LayoutStrides({2, 3, 7}, kCL), Ints({21, 1, 3}));
  EXPECT_EQ(LayoutStrides({2, 3, 4, 5, 6}, kCL), Ints({360, 1, 90, 18, 3}));
  // No channels-last form below rank 3 or above 5: row-major.
  EXPECT_EQ(LayoutStrides({4, 5}, kCL), Ints({5, 1}));
  EXPECT_FALSE(HasChannelsLastForm({4, 5}));
  EXPECT_TRUE(HasChannelsLastForm({1, 4, 5}));
  EXPECT_TRUE(ChannelsLastIsRowMajor({2, 64, 1, 1}));
  EXPECT_TRUE(ChannelsLastIsRowMajor({2, 1, 7, 7}));
  EXPECT_FALSE(ChannelsLastIsRowMajor({1, 2, 1, 3}));
  EXPECT_EQ(LayoutName(kCL), "channels-last");
}

TEST(LayoutTest, RelayoutRoundTrips) {
  std::mt19937 rng(1);
  const Tensor t = RandomFloats(rng, {2, 3, 4, 5});
  const Tensor stored = Relayout(t, kCL, false);
  // Element (n=1, c=2, h=3, w=4) lies at 1*60 + 3*15 + 4*3 + 2.
  EXPECT_EQ(stored.data<float>()[60 + 45 + 12 + 2], t.data<float>()[60 + 40 + 15 + 4]);
  testing::ExpectTensorsNear(Relayout(stored, kCL, true), t, 0, 0);
}

TEST(LayoutTest, ChannelsBlocked8) {
  EXPECT_EQ(LayoutName(kB8), "channels-blocked-8");
  EXPECT_EQ(LayoutTag(kB8), "b8");
  EXPECT_EQ(LayoutTag(kCL), "cl");
  EXPECT_EQ(LayoutTag(kRM), "");
  EXPECT_TRUE(HasChannelsBlocked8Form({2, 16, 4, 5}));
  EXPECT_FALSE(HasChannelsBlocked8Form({2, 12, 4, 5}));  // a block would hold padding
  EXPECT_FALSE(HasChannelsBlocked8Form({2, 16, 4}));     // 2-D images only (nChw8c)
  EXPECT_FALSE(HasChannelsBlocked8Form({2, 16, 4, 5, 6}));
  EXPECT_FALSE(HasChannelsBlocked8Form({2, 0, 4, 5}));
  std::mt19937 rng(3);
  const Tensor t = RandomFloats(rng, {2, 16, 4, 5});
  const Tensor stored = Relayout(t, kB8, false);
  // Element (n=1, c=10, h=2, w=3) lies in block 1 of batch item 1, lane 2: ((3 * 4 + 2) * 5 + 3)
  // * 8 + 2; row-major it is 320 + 200 + 10 + 3.
  EXPECT_EQ(stored.data<float>()[586], t.data<float>()[533]);
  testing::ExpectTensorsNear(Relayout(stored, kB8, true), t, 0, 0);
}

struct ConvCase {
  std::string name;
  Dims x;
  Dims w;
  Dims pads;
  Dims strides;
  int64_t group = 1;
  bool bias = true;
  bool constant_weights = true;
};

TEST(CpuLayoutKernelTest, ConvTakesEveryLayoutPair) {
  std::mt19937 rng(11);
  const std::vector<ConvCase> cases = {
      {"3x3 pad 1", {1, 8, 12, 10}, {16, 8, 3, 3}, {1, 1, 1, 1}, {}},
      {"1x1 batch 2", {2, 24, 9, 9}, {40, 24, 1, 1}, {}, {}},
      {"1x1 on [N, C, 1, 1]", {2, 24, 1, 1}, {40, 24, 1, 1}, {}, {}},
      {"depthwise 3x3 stride 2", {1, 32, 15, 15}, {32, 1, 3, 3}, {1, 1, 1, 1}, {2, 2}, 32},
      {"groups 4 asymmetric pads", {2, 16, 11, 13}, {8, 4, 3, 3}, {0, 1, 2, 1}, {}, 4},
      {"5x5 no bias", {1, 6, 14, 14}, {10, 6, 5, 5}, {2, 2, 2, 2}, {}, 1, false},
      {"run-time weights", {1, 8, 12, 12}, {8, 8, 3, 3}, {1, 1, 1, 1}, {}, 1, true, false},
      {"1-D", {2, 6, 30}, {9, 6, 3}, {1, 1}, {2}},
      {"3-D", {1, 4, 6, 7, 8}, {5, 4, 3, 3, 3}, {1, 1, 1, 1, 1, 1}, {}},
  };
  const std::vector<std::pair<Layout, Layout>> pairs = {{kCL, kCL}, {kRM, kCL}, {kCL, kRM}};
  for (const ConvCase& spec : cases) {
    for (const auto& [in, out] : pairs) {
      SCOPED_TRACE(spec.name + ": " + LayoutName(in) + " -> " + LayoutName(out));
      OneNodeCase c("Conv");
      c.Input(RandomFloats(rng, spec.x)).Input(RandomFloats(rng, spec.w), spec.constant_weights);
      if (spec.bias) c.Constant(RandomFloats(rng, {spec.w[0]}));
      c.Attr("kernel_shape", Dims(spec.w.begin() + 2, spec.w.end())).Attr("group", spec.group);
      if (!spec.pads.empty()) c.Attr("pads", spec.pads);
      if (!spec.strides.empty()) c.Attr("strides", spec.strides);
      c.Fused(ActivationKind::kRelu);
      c.Layouts({in}, {out});
      c.Check(DotTolerance(NumElements(spec.w) / spec.w[0]));
    }
  }
}

// Convs reading or writing channels-blocked-8 tensors (the layout assignment gives them to
// dense spatial convs, but any conv must run them): oneDNN's blocked conv on them as they are,
// with no layout adapter, whatever the other side's layout.
TEST(CpuLayoutKernelTest, ConvOnChannelsBlocked8) {
  std::mt19937 rng(21);
  const std::vector<ConvCase> cases = {
      {"3x3 pad 1", {1, 8, 12, 10}, {16, 8, 3, 3}, {1, 1, 1, 1}, {}},
      {"1x7 batch 2", {2, 16, 9, 9}, {16, 16, 1, 7}, {0, 3, 0, 3}, {}},
      {"3x3 stride 2", {1, 16, 15, 15}, {24, 16, 3, 3}, {}, {2, 2}},
      {"1x1", {2, 16, 7, 7}, {8, 16, 1, 1}, {}, {}},
      {"run-time weights", {1, 8, 12, 12}, {8, 8, 3, 3}, {1, 1, 1, 1}, {}, 1, true, false},
      {"no bias", {1, 16, 10, 10}, {16, 16, 3, 3}, {1, 1, 1, 1}, {}, 1, false},
  };
  const std::vector<std::pair<Layout, Layout>> pairs = {
      {kB8, kB8}, {kCL, kB8}, {kB8, kCL}, {kRM, kB8}, {kB8, kRM}};
  for (const ConvCase& spec : cases) {
    for (const auto& [in, out] : pairs) {
      const bool in_fits = in != kB8 || HasChannelsBlocked8Form(spec.x);
      const bool out_fits = out != kB8 || spec.w[0] % 8 == 0;
      if (!in_fits || !out_fits) continue;
      SCOPED_TRACE(spec.name + ": " + LayoutName(in) + " -> " + LayoutName(out));
      OneNodeCase c("Conv");
      c.Input(RandomFloats(rng, spec.x)).Input(RandomFloats(rng, spec.w), spec.constant_weights);
      if (spec.bias) c.Constant(RandomFloats(rng, {spec.w[0]}));
      c.Attr("kernel_shape", Dims(spec.w.begin() + 2, spec.w.end()));
      if (!spec.pads.empty()) c.Attr("pads", spec.pads);
      if (!spec.strides.empty()) c.Attr("strides", spec.strides);
      c.Fused(ActivationKind::kRelu);
      c.Layouts({in}, {out});
      c.Check(DotTolerance(NumElements(spec.w) / spec.w[0]));
    }
  }
}

// A 12 -> 16 channel k x k conv (same padding) at 9x7 with a fused residual input
// (passes/fuse_residual_add.h), with or without a bias.
OneNodeCase ResidualConv(std::mt19937& rng, int64_t batch, int64_t k, bool bias) {
  OneNodeCase c("Conv");
  c.Input(RandomFloats(rng, {batch, 12, 9, 7})).Constant(RandomFloats(rng, {16, 12, k, k}));
  if (bias) {
    c.Constant(RandomFloats(rng, {16}));
  } else {
    c.Omitted();
  }
  c.Input(RandomFloats(rng, {batch, 16, 9, 7}));
  c.Attr("kernel_shape", Dims{k, k}).Attr("pads", Dims{k / 2, k / 2, k / 2, k / 2});
  c.Attr(kFusedResidualAttr, int64_t{1});
  return c;
}

// A conv with a fused residual (passes/fuse_residual_add.h) in every layout: oneDNN's binary
// post-op where the primitive takes the residual's layout, the kernel's own add after it
// otherwise; with and without a bias, with the activation after the sum.
TEST(CpuLayoutKernelTest, ConvAddsItsResidualInEveryLayout) {
  std::mt19937 rng(18);
  struct Case {
    Layout x, residual, y;
  };
  // Blocked: the residual and Y both (the 12 channels of X have no blocked form).
  const std::vector<Case> cases = {{kCL, kCL, kCL}, {kCL, kRM, kCL}, {kRM, kRM, kRM},
                                   {kCL, kCL, kRM}, {kRM, kCL, kRM}, {kCL, kB8, kB8}};
  for (const Case& layouts : cases) {
    for (bool bias : {true, false}) {
      for (int64_t k : {int64_t{1}, int64_t{3}}) {
        SCOPED_TRACE(LayoutName(layouts.x) + " x, " + LayoutName(layouts.residual) +
                     " residual, " + LayoutName(layouts.y) + " y, k " + std::to_string(k) +
                     (bias ? "" : ", no bias"));
        const int64_t batch = RandomInt(rng, 1, 2);
        OneNodeCase c = ResidualConv(rng, batch, k, bias);
        c.Fused(ActivationKind::kRelu);
        c.Layouts({layouts.x, kRM, kRM, layouts.residual}, {layouts.y});
        c.Check(DotTolerance(12 * k * k));
      }
    }
  }
}

// The same conv writing its output over the residual, as an in-place memory plan places it
// (plan/in_place.h): oneDNN's sum post-op where the primitive writes Y itself, a copy of the
// residual otherwise (a row-major Y, which oneDNN here wants blocked); every kernel size, with
// and without a bias and a fused activation.
TEST(CpuLayoutKernelTest, ConvAddsItsResidualInPlace) {
  std::mt19937 rng(19);
  for (Layout layout : {kCL, kRM, kB8}) {
    for (bool bias : {true, false}) {
      for (int64_t k : {int64_t{1}, int64_t{3}}) {
        for (bool relu : {true, false}) {
          SCOPED_TRACE(LayoutName(layout) + ", k " + std::to_string(k) + (bias ? "" : ", no bias") +
                       (relu ? ", relu" : ""));
          const int64_t batch = RandomInt(rng, 1, 3);
          OneNodeCase c = ResidualConv(rng, batch, k, bias);
          if (relu) c.Fused(ActivationKind::kRelu);
          // X's 12 channels have no blocked form: channels-last beside a blocked Y.
          c.Layouts({layout == kB8 ? kCL : layout, kRM, kRM, layout}, {layout});
          c.OutputOver(3);
          c.Check(DotTolerance(12 * k * k));
        }
      }
    }
  }
}

struct PoolCase {
  std::string name;
  Dims x, kernel, strides, pads;
  int64_t ceil_mode = 0;
  Dims dilations = {};  // MaxPool's; none: 1
};

// MaxPool and AveragePool (both count_include_pad modes) of each case with X and Y stored in
// `layout`, against the reference, at each vector width the kernels have that this CPU runs.
void CheckWindowPools(std::mt19937& rng, const std::vector<PoolCase>& cases, Layout layout,
                      const std::vector<int>& vector_widths) {
  for (int vector_bytes : vector_widths) {  // 0: the CPU's own, the widest
    if (vector_bytes > NativeVectorBytes()) continue;
    LimitVectorBytesForTesting(vector_bytes);
    for (const PoolCase& spec : cases) {
      for (const char* op : {"MaxPool", "AveragePool"}) {
        for (int64_t include_pad : {int64_t{0}, int64_t{1}}) {
          const bool is_max = std::string(op) == "MaxPool";
          if (is_max && include_pad == 1) continue;
          SCOPED_TRACE(spec.name + " " + op + " include_pad " + std::to_string(include_pad) +
                       " vector bytes " + std::to_string(NativeVectorBytes()));
          OneNodeCase c(op, 13);
          c.Input(RandomFloats(rng, spec.x)).Attr("kernel_shape", spec.kernel);
          c.Attr("strides", spec.strides).Attr("pads", spec.pads);
          c.Attr("ceil_mode", spec.ceil_mode);
          if (is_max && !spec.dilations.empty()) c.Attr("dilations", spec.dilations);
          if (!is_max) c.Attr("count_include_pad", include_pad);
          c.Layouts({layout}, {layout});
          c.Check(is_max ? kExact : kElementwise);
        }
      }
    }
  }
  LimitVectorBytesForTesting(0);
}

TEST(CpuLayoutKernelTest, WindowPoolsOnChannelsLast) {
  std::mt19937 rng(12);
  const std::vector<PoolCase> cases = {
      {"3x3 s2", {1, 19, 17, 17}, {3, 3}, {2, 2}, {0, 0, 0, 0}},
      {"3x3 s1 pad 1", {2, 5, 9, 11}, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {"3x3 s2 pad 1 ceil", {2, 7, 10, 12}, {3, 3}, {2, 2}, {1, 1, 1, 1}, 1},
      {"2x3 asymmetric pads ceil", {1, 33, 13, 11}, {2, 3}, {2, 3}, {0, 1, 1, 2}, 1},
      {"1-D", {2, 5, 23}, {4}, {3}, {1, 2}, 1},
      {"3-D", {1, 4, 7, 8, 9}, {2, 3, 3}, {2, 2, 1}, {0, 1, 1, 1, 1, 0}},
      {"150 channels: two full blocks and a tail", {2, 150, 9, 8}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
  };
  CheckWindowPools(rng, cases, kCL, {0, 32, 16});
  // One side channels-last and the other not: the adapter.
  OneNodeCase mixed("MaxPool", 13);
  mixed.Input(RandomFloats(rng, {1, 6, 9, 9})).Attr("kernel_shape", Ints({3, 3}));
  mixed.Layouts({kCL}, {kRM}, /*adapted=*/true);
  mixed.Check(kExact);
}

TEST(CpuLayoutKernelTest, GlobalPoolsReadChannelsLast) {
  std::mt19937 rng(13);
  // [1, 20, 64, 64]: two threads each reduce half the pixels into a row of their own, 20
  // channels in a 32-float (cache-line) stride.
  for (const Dims& x : {Ints({1, 2048, 8, 8}), Ints({1, 20, 64, 64}), Ints({2, 5, 7, 3}),
                        Ints({2, 37, 17}), Ints({1, 2, 3, 4, 5})}) {
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
      SCOPED_TRACE(std::string(op) + " " + DimsToString(x));
      OneNodeCase c(op, 13);
      c.Input(RandomFloats(rng, x));
      c.Layouts({kCL}, {kRM});
      c.Check(std::string(op) == "GlobalMaxPool" ? kExact : kElementwise);
    }
  }
}

TEST(CpuLayoutKernelTest, ElementwiseOnAnyLayouts) {
  std::mt19937 rng(14);
  const Dims full = {2, 6, 5, 7};
  struct Case {
    Dims a, b;
    Layout la, lb, out;
  };
  const std::vector<Case> cases = {
      {full, full, kCL, kCL, kCL},                      // a residual Add
      {full, {1, 6, 1, 1}, kCL, kRM, kCL},              // per channel
      {full, {2, 6, 1, 1}, kCL, kRM, kCL},              // squeeze-and-excitation scale
      {full, {2, 1, 5, 7}, kCL, kRM, kCL},              // per pixel
      {full, {6, 1, 1}, kCL, kRM, kCL},                 // lower rank
      {full, {}, kCL, kRM, kCL},                        // scalar
      {full, full, kCL, kRM, kRM},                      // mixed layouts
      {full, full, kRM, kCL, kCL},
      {full, full, kRM, kRM, kCL},
      {{1, 64, 28, 28}, {1, 64, 28, 28}, kCL, kCL, kCL},  // several threads
      {{2, 40, 30, 30}, {2, 40, 1, 1}, kCL, kRM, kCL},    // threads over short rows of C
  };
  for (const char* op : {"Add", "Mul", "Div", "Max"}) {
    for (const Case& spec : cases) {
      SCOPED_TRACE(std::string(op) + " " + DimsToString(spec.a) + " " + LayoutName(spec.la) +
                   ", " + DimsToString(spec.b) + " " + LayoutName(spec.lb) + " -> " +
                   LayoutName(spec.out));
      OneNodeCase c(op, 14);
      c.Input(RandomFloats(rng, spec.a)).Input(RandomFloats(rng, spec.b, 0.5f, 2.f));
      c.Layouts({spec.la, spec.lb}, {spec.out});
      c.Check(kElementwise);
    }
  }
  {  // Sum of three, PRelu with a per-channel slope.
    OneNodeCase sum("Sum", 13);
    for (int i = 0; i < 3; ++i) sum.Input(RandomFloats(rng, full));
    sum.Layouts({kCL, kRM, kCL}, {kCL});
    sum.Check(kElementwise);
    OneNodeCase prelu("PRelu", 16);
    prelu.Input(RandomFloats(rng, full)).Constant(RandomFloats(rng, {6, 1, 1}));
    prelu.Layouts({kCL}, {kCL});
    prelu.Check(kElementwise);
  }
  {  // A one-input Sum is a copy: between two layouts it needs the adapter's reorder.
    OneNodeCase copy("Sum", 13);
    copy.Input(RandomFloats(rng, full));
    copy.Layouts({kCL}, {kRM}, /*adapted=*/true);
    copy.Check(kExact);
  }
}

TEST(CpuLayoutKernelTest, ActivationsKeepTheirLayout) {
  std::mt19937 rng(15);
  for (const char* op : {"Relu", "Sigmoid", "HardSwish", "Elu"}) {
    for (bool adapted : {false, true}) {
      SCOPED_TRACE(std::string(op) + (adapted ? " to row-major" : ""));
      OneNodeCase c(op, 14);
      c.Input(RandomFloats(rng, {2, 9, 6, 5}));
      c.Layouts({kCL}, {adapted ? kRM : kCL}, adapted);
      c.Check(kElementwise);
    }
  }
  OneNodeCase clip("Clip", 13);  // bounds as scalar inputs
  clip.Input(RandomFloats(rng, {1, 8, 7, 7}))
      .Constant(Tensor::FromFloat({-0.25f}, {}))
      .Constant(Tensor::FromFloat({0.5f}, {}));
  clip.Layouts({kCL}, {kCL});
  clip.Check(kExact);
}

// An inference BatchNormalization with its fused Relu (DenseNet's pre-activation, as the CPU
// lowering writes it) in each layout, X and Y alike, in place too; X and Y stored differently
// run behind the adapter.
TEST(CpuLayoutKernelTest, BatchNormTakesEveryLayout) {
  std::mt19937 rng(18);
  for (const Layout layout : {kCL, kB8}) {
    for (bool over_input : {false, true}) {
      SCOPED_TRACE(LayoutName(layout) + (over_input ? " in place" : ""));
      OneNodeCase c("BatchNormalization", 15);
      c.Input(RandomFloats(rng, {2, 24, 7, 9}));
      for (int i = 0; i < 4; ++i) {
        Tensor p = RandomFloats(rng, {24});
        if (i == 3)
          for (int64_t k = 0; k < 24; ++k)
            p.data<float>()[k] = 0.5f + std::fabs(p.data<float>()[k]);
        c.Constant(p);
      }
      c.Fused(ActivationKind::kRelu).Layouts({layout}, {layout});
      if (over_input) c.OutputOver(0);
      c.Check(kElementwise);
    }
  }
  OneNodeCase c("BatchNormalization", 15);
  c.Input(RandomFloats(rng, {1, 16, 5, 6}));
  for (int i = 0; i < 4; ++i) c.Constant(Tensor::FromFloat(std::vector<float>(16, 1.f), {16}));
  c.Layouts({kCL}, {kB8}, /*adapted=*/true);
  c.Check(kElementwise);
}

// A Gather of channels (the CPU's channel shuffle, passes/channel_shuffle.h) moves each pixel's
// channels of NHWC tensors as they are; any other gather of them runs behind the adapter.
TEST(CpuLayoutKernelTest, GatherOfChannelsTakesChannelsLast) {
  std::mt19937 rng(17);
  // Shuffles: channel j * g + i from i * C/g + j. ShuffleNetV2's (2 groups of 116, large enough
  // for 2 threads), 3 groups and 4 groups of one channel each.
  for (const auto& [groups, per_group] :
       std::vector<std::pair<int64_t, int64_t>>{{2, 116}, {2, 3}, {3, 4}, {4, 1}}) {
    SCOPED_TRACE("shuffle of " + std::to_string(groups) + " groups");
    const int64_t channels = groups * per_group;
    std::vector<int64_t> indices;
    for (int64_t j = 0; j < per_group; ++j)
      for (int64_t i = 0; i < groups; ++i) indices.push_back(i * per_group + j);
    OneNodeCase c("Gather", 13);
    c.Input(RandomFloats(rng, {2, channels, per_group > 100 ? 28 : 5, 7}))
        .Constant(Tensor::FromInt64(indices, {channels}))
        .Attr("axis", int64_t{1});
    c.Layouts({kCL}, {kCL});
    c.Check(kExact);
  }
  {  // Fewer channels out than in, repeated and negative indices, run-time indices.
    OneNodeCase c("Gather", 13);
    c.Input(RandomFloats(rng, {1, 9, 6, 4}))
        .Input(Tensor::FromInt64({8, -1, 0, 3, 3}, {5}))
        .Attr("axis", int64_t{-3});
    c.Layouts({kCL}, {kCL});
    c.Check(kExact);
  }
  {  // Enough pixels for 2 threads.
    std::vector<int64_t> reversed(40);
    for (int64_t i = 0; i < 40; ++i) reversed[i] = 39 - i;
    OneNodeCase c("Gather", 13);
    c.Input(RandomFloats(rng, {2, 40, 32, 32}))
        .Constant(Tensor::FromInt64(reversed, {40}))
        .Attr("axis", int64_t{1});
    c.Layouts({kCL}, {kCL});
    c.Check(kExact);
  }
  {  // Along the height: not a gather of channels.
    OneNodeCase c("Gather", 13);
    c.Input(RandomFloats(rng, {1, 8, 6, 5}))
        .Constant(Tensor::FromInt64({5, 0}, {2}))
        .Attr("axis", int64_t{2});
    c.Layouts({kCL}, {kCL}, /*adapted=*/true);
    c.Check(kExact);
  }
  {  // Channels-last in, row-major out.
    OneNodeCase c("Gather", 13);
    c.Input(RandomFloats(rng, {1, 8, 6, 5}))
        .Constant(Tensor::FromInt64({7, 1, 2}, {3}))
        .Attr("axis", int64_t{1});
    c.Layouts({kCL}, {kRM}, /*adapted=*/true);
    c.Check(kExact);
  }
  {  // Blocked.
    OneNodeCase c("Gather", 13);
    c.Input(RandomFloats(rng, {1, 16, 6, 5}))
        .Constant(Tensor::FromInt64({15, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0}, {16}))
        .Attr("axis", int64_t{1});
    c.Layouts({kB8}, {kB8}, /*adapted=*/true);
    c.Check(kExact);
  }
}

TEST(CpuLayoutKernelTest, ChannelConcatAndSplitOfChannelsLast) {
  std::mt19937 rng(16);
  {
    OneNodeCase c("Concat", 13);
    for (int64_t channels : {3, 1, 5}) c.Input(RandomFloats(rng, {2, channels, 4, 5}));
    c.Attr("axis", int64_t{1});
    c.Layouts({kCL, kCL, kCL}, {kCL});
    c.Check(kExact);
  }
  {  // Axis -3 of a rank-3 tensor is its channels too.
    OneNodeCase c("Concat", 13);
    c.Input(RandomFloats(rng, {1, 64, 35})).Input(RandomFloats(rng, {1, 96, 35}));
    c.Attr("axis", int64_t{-2});
    c.Layouts({kCL, kCL}, {kCL});
    c.Check(kExact);
  }
  {  // Another axis, or a row-major slice: the adapter.
    OneNodeCase other_axis("Concat", 13);
    other_axis.Input(RandomFloats(rng, {1, 4, 3, 5})).Input(RandomFloats(rng, {1, 4, 2, 5}));
    other_axis.Attr("axis", int64_t{2});
    other_axis.Layouts({kCL, kCL}, {kCL}, /*adapted=*/true);
    other_axis.Check(kExact);
    OneNodeCase mixed("Concat", 13);
    mixed.Input(RandomFloats(rng, {2, 4, 3, 5})).Input(RandomFloats(rng, {2, 6, 3, 5}));
    mixed.Attr("axis", int64_t{1});
    mixed.Layouts({kCL, kRM}, {kCL}, /*adapted=*/true);
    mixed.Check(kExact);
  }
  {
    OneNodeCase split("Split", 13);
    split.Input(RandomFloats(rng, {2, 10, 3, 4})).Constant(Tensor::FromInt64({2, 5, 3}, {3}));
    split.Attr("axis", int64_t{1}).Outputs(3);
    split.Layouts({kCL}, {kCL, kCL, kCL});
    split.Check(kExact);
    OneNodeCase mixed("Split", 13);
    mixed.Input(RandomFloats(rng, {1, 6, 3, 4})).Attr("axis", int64_t{1}).Outputs(2);
    mixed.Layouts({kCL}, {kCL, kRM}, /*adapted=*/true);
    mixed.Check(kExact);
  }
}

TEST(CpuLayoutKernelTest, OtherOpsRunBehindTheAdapter) {
  std::mt19937 rng(17);
  {  // A fast kernel that takes row-major tensors only.
    OneNodeCase softmax("Softmax", 13);
    softmax.Input(RandomFloats(rng, {2, 7, 3, 4})).Attr("axis", int64_t{1});
    softmax.Layouts({kCL}, {kCL}, /*adapted=*/true);
    softmax.Check(kElementwise);
    OneNodeCase transpose("Transpose", 13);
    transpose.Input(RandomFloats(rng, {2, 7, 3, 4})).Attr("perm", Ints({0, 2, 3, 1}));
    transpose.Layouts({kCL}, {kRM}, /*adapted=*/true);
    transpose.Check(kExact);
    OneNodeCase flatten("Flatten", 13);
    flatten.Input(RandomFloats(rng, {2, 7, 3, 4})).Attr("axis", int64_t{1});
    flatten.Layouts({kCL}, {kRM}, /*adapted=*/true);
    flatten.Check(kExact);
    // A reduction over H alone of NHWC: neither rows nor columns of the stored order (over the
    // channels, or over H and W, it takes NHWC: CpuMoreOpsTest.ReductionsAlongTheStoredOrder).
    OneNodeCase reduce("ReduceMean", 13);
    reduce.Input(RandomFloats(rng, {1, 16, 5, 5})).Attr("axes", Ints({2}));
    reduce.Layouts({kCL}, {kRM}, /*adapted=*/true);
    reduce.Check(kElementwise);
    OneNodeCase taken("ReduceMean", 13);
    taken.Input(RandomFloats(rng, {1, 16, 5, 5})).Attr("axes", Ints({1}));
    taken.Layouts({kCL}, {kRM}, /*adapted=*/false);
    taken.Check(kElementwise);
  }
  {  // The reference kernel, behind the adapter: BatchNormalization in training mode (the batch's
     // own statistics), which its own kernel leaves to the reference.
    OneNodeCase bn("BatchNormalization", 15);
    bn.Input(RandomFloats(rng, {2, 5, 4, 3}));
    for (int i = 0; i < 4; ++i) bn.Constant(RandomFloats(rng, {5}, 0.5f, 1.5f));
    bn.Attr("training_mode", int64_t{1});
    bn.Layouts({kCL}, {kCL}, /*adapted=*/true);
    bn.Check(kElementwise, /*expect_fast=*/false);
  }
}

// The kernels that take channels-blocked-8 tensors as they are, all of them blocked: window and
// global pools, activations, same-shape elementwise ops, channel Concat and Split.
TEST(CpuLayoutKernelTest, KernelsOnChannelsBlocked8) {
  std::mt19937 rng(23);
  const std::vector<PoolCase> pools = {
      {"3x3 s2", {1, 16, 17, 17}, {3, 3}, {2, 2}, {0, 0, 0, 0}},
      {"3x3 s1 pad 1", {2, 24, 9, 11}, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {"3x3 s2 pad 1 ceil", {2, 8, 10, 12}, {3, 3}, {2, 2}, {1, 1, 1, 1}, 1},
      {"2x3 asymmetric pads ceil", {1, 32, 13, 11}, {2, 3}, {2, 3}, {0, 1, 1, 2}, 1},
      {"3x3 dilated", {1, 16, 12, 13}, {3, 3}, {1, 2}, {2, 2, 2, 2}, 0, {2, 2}},
      {"4x4 s3 ceil: windows past the input", {1, 8, 8, 8}, {4, 4}, {3, 3}, {0, 0, 0, 0}, 1},
  };
  CheckWindowPools(rng, pools, kB8, {0, 16});
  for (const Dims& x : {Ints({1, 2048, 8, 8}), Ints({2, 16, 7, 3}), Ints({1, 8, 1, 1})}) {
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
      SCOPED_TRACE(std::string(op) + " " + DimsToString(x));
      OneNodeCase c(op, 13);
      c.Input(RandomFloats(rng, x));
      c.Layouts({kB8}, {kRM});
      c.Check(std::string(op) == "GlobalMaxPool" ? kExact : kElementwise);
    }
  }
  for (const char* op : {"Relu", "Sigmoid"}) {
    SCOPED_TRACE(op);
    OneNodeCase c(op, 14);
    c.Input(RandomFloats(rng, {2, 16, 5, 6}, -1.f, 1.f));
    c.Layouts({kB8}, {kB8});
    c.Check(kElementwise);
  }
  for (const char* op : {"Add", "Mul", "Max"}) {
    SCOPED_TRACE(op);
    OneNodeCase c(op, 14);
    c.Input(RandomFloats(rng, {2, 16, 5, 6})).Input(RandomFloats(rng, {2, 16, 5, 6}));
    c.Layouts({kB8, kB8}, {kB8});
    c.Check(kElementwise);
  }
  {
    OneNodeCase sum("Sum", 13);
    for (int i = 0; i < 3; ++i) sum.Input(RandomFloats(rng, {1, 8, 4, 4}));
    sum.Layouts({kB8, kB8, kB8}, {kB8});
    sum.Check(kElementwise);
  }
  {
    OneNodeCase c("Concat", 13);
    for (int64_t channels : {8, 24, 16}) c.Input(RandomFloats(rng, {2, channels, 4, 5}));
    c.Attr("axis", int64_t{1});
    c.Layouts({kB8, kB8, kB8}, {kB8});
    c.Check(kExact);
    OneNodeCase split("Split", 13);
    split.Input(RandomFloats(rng, {2, 32, 3, 4})).Constant(Tensor::FromInt64({8, 16, 8}, {3}));
    split.Attr("axis", int64_t{1}).Outputs(3);
    split.Layouts({kB8}, {kB8, kB8, kB8});
    split.Check(kExact);
  }
}

// Every other kernel, a kernel given a blocked tensor beside one of another layout, a
// broadcasting elementwise op, and the conv that would add a residual to a blocked output, run
// behind the adapter.
TEST(CpuLayoutKernelTest, BlockedTensorsReachOtherKernelsThroughTheAdapter) {
  std::mt19937 rng(22);
  OneNodeCase relu("Relu", 14);
  relu.Input(RandomFloats(rng, {2, 16, 5, 6}, -1.f, 1.f));
  relu.Layouts({kB8}, {kRM}, /*adapted=*/true);
  relu.Check(kExact);
  OneNodeCase softmax("Softmax", 13);
  softmax.Input(RandomFloats(rng, {1, 16, 3, 4})).Attr("axis", int64_t{1});
  softmax.Layouts({kB8}, {kB8}, /*adapted=*/true);
  softmax.Check(kElementwise);
  OneNodeCase scale("Mul", 14);
  scale.Input(RandomFloats(rng, {1, 16, 4, 4})).Input(RandomFloats(rng, {1, 16, 1, 1}));
  scale.Layouts({kB8, kRM}, {kB8}, /*adapted=*/true);
  scale.Check(kElementwise);
  OneNodeCase concat("Concat", 13);
  concat.Input(RandomFloats(rng, {1, 8, 3, 3})).Input(RandomFloats(rng, {1, 8, 3, 3}));
  concat.Attr("axis", int64_t{1});
  concat.Layouts({kB8, kCL}, {kB8}, /*adapted=*/true);
  concat.Check(kExact);
  OneNodeCase pool("MaxPool", 12);
  pool.Input(RandomFloats(rng, {1, 8, 9, 9})).Attr("kernel_shape", Ints({3, 3}));
  pool.Layouts({kB8}, {kCL}, /*adapted=*/true);
  pool.Check(kExact);
  OneNodeCase add("Add", 14);
  add.Input(RandomFloats(rng, {1, 16, 4, 4})).Input(RandomFloats(rng, {1, 16, 4, 4}));
  add.Layouts({kB8, kCL}, {kRM}, /*adapted=*/true);
  add.Check(kElementwise);
  OneNodeCase residual = ResidualConv(rng, 2, 3, true);
  residual.Layouts({kCL, kRM, kRM, kCL}, {kB8}, /*adapted=*/true);
  residual.Check(DotTolerance(12 * 9), /*expect_fast=*/false);
}

TEST(CpuLayoutKernelTest, AdapterRefusesABlockedTensorThatCannotBeOne) {
  Node node;
  node.name = "soft";
  node.op_type = "Softmax";
  CpuKernelContext context;
  context.node = &node;
  context.input_types = {TensorType{DType::kFloat32, {1, 12, 4, 4}}};  // 12: not whole blocks
  context.output_types = {TensorType{DType::kFloat32, {1, 12, 4, 4}}};
  context.constants = {nullptr};
  context.input_layouts = {kB8};
  context.output_layouts = {kRM};
  StatusOr<std::unique_ptr<CpuKernel>> kernel = CreateCpuKernel(context);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("cannot be channels-blocked-8"), std::string::npos)
      << kernel.status().message();
}

TEST(CpuLayoutKernelTest, AdapterRefusesAChannelsLastTensorThatCannotBeOne) {
  // Only float32 tensors of rank 3 to 5 have a channels-last form (the plan validator's rule).
  Node node;
  node.name = "cast";
  node.op_type = "Cast";
  CpuKernelContext context;
  context.node = &node;
  context.input_types = {TensorType{DType::kInt64, {1, 3, 4, 4}}};
  context.output_types = {TensorType{DType::kFloat32, {1, 3, 4, 4}}};
  context.constants = {nullptr};
  context.input_layouts = {kCL};
  context.output_layouts = {kRM};
  StatusOr<std::unique_ptr<CpuKernel>> kernel = CreateCpuKernel(context);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("cannot be channels-last"), std::string::npos)
      << kernel.status().message();
  EXPECT_NE(kernel.status().message().find("Cast 'cast'"), std::string::npos)
      << kernel.status().message();
}

}  // namespace
}  // namespace ios
