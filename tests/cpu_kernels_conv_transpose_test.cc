// ConvTranspose's CPU kernel (runtime/cpu/kernels/conv_transpose_cpu.cc) against the reference kernel,
// through the one-node harness (cpu_kernel_case.h): both of its ways (GEMMs for windows that
// tile the output, oneDNN's deconvolution for the rest) over every attribute ONNX has, every
// layout pair the CPU plans use, bias and fused activations, 1 and 2 threads.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cpu_kernel_case.h"
#include "ir/fused_activation.h"
#include "layout_shorthands.h"
#include "random_tensor.h"
#include "runtime/cpu/kernels/cpu_kernel.h"

namespace ios {
namespace {

using namespace cpu_testing;  // NOLINT: the harness of cpu_kernel_case.h
using testing::kB8;
using testing::kCL;
using testing::kRM;
using testing::RandomFloats;

struct TransposeCase {
  std::string name;
  Dims x;  // [N, C, in...]
  Dims w;  // [C, M/group, k...]
  std::vector<std::pair<std::string, AttributeValue>> attrs;
  bool bias = true;
  bool constant_weights = true;
};

OneNodeCase MakeCase(std::mt19937& rng, const TransposeCase& spec) {
  OneNodeCase c("ConvTranspose", 17);
  c.Input(RandomFloats(rng, spec.x)).Input(RandomFloats(rng, spec.w), spec.constant_weights);
  int64_t group = 1;
  for (const auto& [name, value] : spec.attrs) {
    c.Attr(name, value);
    if (name == "group") group = std::get<int64_t>(value);
  }
  if (spec.bias) c.Constant(RandomFloats(rng, {spec.w[1] * group}));
  return c;
}

// Products per output element: at most C/group · the taps.
Tolerance TransposeTolerance(const TransposeCase& spec) {
  return DotTolerance(NumElements(spec.w) / spec.w[1]);
}

// Windows that tile the output: the GEMM way, in every layout pair of a CPU plan.
TEST(CpuConvTransposeTest, TilingWindowsInEveryLayout) {
  std::mt19937 rng(501);
  const std::vector<TransposeCase> cases = {
      {"2x2 stride 2", {1, 16, 7, 9}, {16, 8, 2, 2}, {{"strides", Dims{2, 2}}}},
      {"2x2 stride 2 batch 2 no bias", {2, 8, 5, 6}, {8, 24, 2, 2}, {{"strides", Dims{2, 2}}},
       false},
      {"3x3 stride 3", {1, 5, 4, 6}, {5, 16, 3, 3}, {{"strides", Dims{3, 3}}}},
      {"explicit kernel_shape and zero pads", {2, 16, 6, 5}, {16, 16, 2, 2},
       {{"strides", Dims{2, 2}}, {"kernel_shape", Dims{2, 2}}, {"pads", Dims{0, 0, 0, 0}}}},
      {"SAME_UPPER resolves to no pads", {1, 8, 5, 5}, {8, 8, 2, 2},
       {{"strides", Dims{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}},
  };
  const std::vector<std::pair<Layout, Layout>> pairs = {
      {kRM, kRM}, {kCL, kCL}, {kRM, kCL}, {kCL, kRM}, {kCL, kB8}};
  for (const TransposeCase& spec : cases) {
    for (const auto& [in, out] : pairs) {
      const int64_t m = spec.w[1];
      if (out == kB8 && m % 8 != 0) continue;
      SCOPED_TRACE(spec.name + ": " + LayoutName(in) + " -> " + LayoutName(out));
      OneNodeCase c = MakeCase(rng, spec);
      c.Fused(ActivationKind::kRelu);
      c.Layouts({in}, {out});
      c.Check(TransposeTolerance(spec));
    }
  }
}

// Everything else: oneDNN's deconvolution, over the attributes ONNX has.
TEST(CpuConvTransposeTest, EveryAttribute) {
  std::mt19937 rng(502);
  const std::vector<TransposeCase> cases = {
      {"3x3 stride 2 pads 1 output_padding 1", {1, 8, 9, 7}, {8, 6, 3, 3},
       {{"strides", Dims{2, 2}}, {"pads", Dims{1, 1, 1, 1}}, {"output_padding", Dims{1, 1}}}},
      {"4x4 stride 2 pads 1", {2, 12, 6, 5}, {12, 10, 4, 4},
       {{"strides", Dims{2, 2}}, {"pads", Dims{1, 1, 1, 1}}}},
      {"asymmetric pads", {1, 6, 7, 8}, {6, 5, 3, 3},
       {{"strides", Dims{2, 1}}, {"pads", Dims{0, 2, 1, 0}}}},
      {"stride 1 (a padded conv)", {1, 7, 8, 8}, {7, 9, 3, 3}, {{"pads", Dims{1, 1, 1, 1}}}},
      {"dilations 2", {1, 6, 7, 6}, {6, 4, 3, 3},
       {{"dilations", Dims{2, 2}}, {"strides", Dims{2, 2}}, {"output_padding", Dims{1, 0}}}},
      {"groups 2", {2, 8, 6, 6}, {8, 3, 3, 3},
       {{"group", int64_t{2}}, {"strides", Dims{2, 2}}, {"pads", Dims{1, 1, 1, 1}}}},
      {"depthwise", {1, 12, 7, 7}, {12, 1, 4, 4},
       {{"group", int64_t{12}}, {"strides", Dims{2, 2}}, {"pads", Dims{1, 1, 1, 1}}}},
      {"2x2 stride 2 groups 4", {1, 8, 5, 5}, {8, 2, 2, 2},
       {{"group", int64_t{4}}, {"strides", Dims{2, 2}}}},
      {"2x2 stride 2 with pads", {1, 8, 5, 6}, {8, 8, 2, 2},
       {{"strides", Dims{2, 2}}, {"pads", Dims{1, 0, 0, 1}}}},
      {"SAME_UPPER", {1, 5, 6, 7}, {5, 6, 3, 3},
       {{"strides", Dims{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}},
      {"SAME_LOWER", {1, 5, 6, 7}, {5, 6, 4, 4},
       {{"strides", Dims{2, 2}}, {"auto_pad", std::string("SAME_LOWER")}}},
      {"VALID", {1, 5, 4, 5}, {5, 3, 3, 3},
       {{"strides", Dims{2, 2}}, {"auto_pad", std::string("VALID")}, {"pads", Dims{1, 1, 1, 1}}}},
      {"output_shape spatial", {1, 6, 5, 5}, {6, 4, 3, 3},
       {{"strides", Dims{2, 2}}, {"output_shape", Dims{10, 9}}}},
      {"output_shape whole, larger than the extent at the end", {1, 6, 4, 4}, {6, 4, 3, 3},
       {{"strides", Dims{2, 2}}, {"output_shape", Dims{1, 4, 9, 10}}}},
      {"run-time weights", {1, 8, 6, 6}, {8, 8, 3, 3},
       {{"strides", Dims{2, 2}}, {"pads", Dims{1, 1, 1, 1}}}, true, false},
      {"run-time weights tiling", {1, 8, 6, 6}, {8, 8, 2, 2}, {{"strides", Dims{2, 2}}}, true,
       false},
      {"no bias", {1, 9, 6, 5}, {9, 7, 3, 3}, {{"strides", Dims{2, 2}}}, false},
      {"1-D", {2, 6, 11}, {6, 5, 4}, {{"strides", Dims{2}}, {"pads", Dims{1, 2}}}},
      {"1-D tiling", {2, 6, 11}, {6, 5, 2}, {{"strides", Dims{2}}}},
      {"3-D", {1, 4, 4, 5, 3}, {4, 3, 3, 3, 2},
       {{"strides", Dims{2, 2, 1}}, {"pads", Dims{1, 1, 0, 1, 0, 0}}}},
  };
  for (const TransposeCase& spec : cases) {
    const std::vector<std::pair<Layout, Layout>> pairs = {{kRM, kRM}, {kCL, kCL}, {kRM, kCL}};
    for (const auto& [in, out] : pairs) {
      SCOPED_TRACE(spec.name + ": " + LayoutName(in) + " -> " + LayoutName(out));
      OneNodeCase c = MakeCase(rng, spec);
      c.Layouts({in}, {out});
      c.Check(TransposeTolerance(spec));
    }
  }
}

TEST(CpuConvTransposeTest, ChannelsBlocked8) {
  std::mt19937 rng(503);
  const std::vector<TransposeCase> cases = {
      {"4x4 stride 2 pads 1", {1, 16, 6, 5}, {16, 8, 4, 4},
       {{"strides", Dims{2, 2}}, {"pads", Dims{1, 1, 1, 1}}}},
      {"2x2 stride 2 from blocked", {2, 8, 5, 4}, {8, 16, 2, 2}, {{"strides", Dims{2, 2}}}},
  };
  for (const TransposeCase& spec : cases) {
    for (const auto& [in, out] : std::vector<std::pair<Layout, Layout>>{
             {kB8, kB8}, {kB8, kCL}, {kCL, kB8}, {kB8, kRM}}) {
      SCOPED_TRACE(spec.name + ": " + LayoutName(in) + " -> " + LayoutName(out));
      OneNodeCase c = MakeCase(rng, spec);
      c.Fused(ActivationKind::kRelu);
      c.Layouts({in}, {out});
      c.Check(TransposeTolerance(spec));
    }
  }
}

TEST(CpuConvTransposeTest, FusedActivations) {
  std::mt19937 rng(504);
  const TransposeCase tiling = {"tiling", {1, 8, 5, 6}, {8, 8, 2, 2}, {{"strides", Dims{2, 2}}}};
  const TransposeCase general = {"general",
                                 {1, 8, 5, 6},
                                 {8, 8, 3, 3},
                                 {{"strides", Dims{2, 2}}, {"pads", Dims{1, 1, 1, 1}}}};
  const std::vector<Activation> acts = {
      {ActivationKind::kRelu},        {ActivationKind::kLeakyRelu, 0.1f},
      {ActivationKind::kClip, 0.f, 6.f}, {ActivationKind::kSigmoid},
      {ActivationKind::kSilu},        {ActivationKind::kHardSwish},
      {ActivationKind::kTanh},        {ActivationKind::kElu, 1.f},
  };
  for (const TransposeCase& spec : {tiling, general}) {
    for (const Activation& act : acts) {
      SCOPED_TRACE(spec.name + " " + std::to_string(static_cast<int>(act.kind)));
      OneNodeCase c = MakeCase(rng, spec);
      c.Fused(act.kind, act.alpha, act.beta);
      c.Layouts({kCL}, {kCL});
      c.Check(Tolerance{TransposeTolerance(spec).abs, 1e-4});
    }
  }
}

// oneDNN takes no negative left padding (an output_shape larger than the extent, its extra
// split to the front): the reference runs that node.
TEST(CpuConvTransposeTest, NegativeLeftPaddingRunsTheReference) {
  std::mt19937 rng(505);
  const TransposeCase spec = {"SAME_UPPER, output larger than the extent",
                              {1, 4, 3, 3},
                              {4, 2, 1, 1},
                              {{"strides", Dims{3, 3}}, {"auto_pad", std::string("SAME_UPPER")}}};
  // full = 3·2 + 1 = 7 < out = 9: the total padding is -2, its SAME_UPPER half -1 at the front.
  OneNodeCase c = MakeCase(rng, spec);
  c.Check(kExact, /*expect_fast=*/false);
}

TEST(CpuConvTransposeTest, ConcurrentCallers) {
  std::mt19937 rng(506);
  for (const TransposeCase& spec :
       {TransposeCase{"tiling", {1, 16, 6, 6}, {16, 8, 2, 2}, {{"strides", Dims{2, 2}}}},
        TransposeCase{"general",
                      {1, 16, 6, 6},
                      {16, 8, 3, 3},
                      {{"strides", Dims{2, 2}}, {"pads", Dims{1, 1, 1, 1}}}}}) {
    SCOPED_TRACE(spec.name);
    OneNodeCase c = MakeCase(rng, spec);
    c.CheckConcurrent(TransposeTolerance(spec), 6);
  }
}

}  // namespace
}  // namespace ios
