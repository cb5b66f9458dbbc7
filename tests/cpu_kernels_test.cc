// The one-node harness for the CPU backend: every op with a fast CPU kernel runs on random data
// (fixed seeds) through CreateCpuKernel and through the reference kernel (the oracle), with 1
// and 2 threads, and the results must agree within a per-op tolerance. Each case also checks
// that the fast kernel (not the reference fallback) was the one that ran.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpu_kernel_case.h"
#include "ir/fused_activation.h"
#include "kernels/reference/reference_kernels.h"
#include "one_node_graph.h"
#include "ops/op_registry.h"
#include "random_tensor.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "tensor_compare.h"

namespace ios {
namespace {

using namespace cpu_testing;  // NOLINT: the harness of cpu_kernel_case.h
using testing::RandomFloats;

// ---- Conv ----------------------------------------------------------------------------------

struct ConvSpec {
  std::string name;
  int64_t spatial = 2;  // 1, 2 or 3 spatial dims
  Dims kernel = {3, 3};
  int64_t group = 1;     // -1: depthwise (group = channels)
  Dims strides;          // default 1s
  Dims dilations;        // default 1s
  Dims pads;             // default 0s
  std::string auto_pad;  // empty: NOTSET
  bool bias = true;
  bool constant_weights = true;
  int64_t min_size = 5;  // spatial sizes drawn from [min_size, max_size]
  int64_t max_size = 14;
  Activation act;
};

void CheckConv(std::mt19937& rng, const ConvSpec& spec) {
  SCOPED_TRACE(spec.name);
  const int64_t batch = RandomInt(rng, 1, 2);
  int64_t group = spec.group;
  int64_t in_channels, out_channels;
  if (group == -1) {
    group = in_channels = out_channels = RandomInt(rng, 3, 20);
  } else {
    in_channels = group * RandomInt(rng, 1, 11);
    out_channels = group * RandomInt(rng, 1, 9);
  }
  Dims x_dims = {batch, in_channels};
  Dims w_dims = {out_channels, in_channels / group};
  for (int64_t d = 0; d < spec.spatial; ++d) {
    x_dims.push_back(RandomInt(rng, spec.min_size, spec.max_size));
    w_dims.push_back(spec.kernel[d]);
  }
  OneNodeCase c("Conv");
  c.Input(RandomFloats(rng, x_dims)).Input(RandomFloats(rng, w_dims), spec.constant_weights);
  if (spec.bias) c.Constant(RandomFloats(rng, {out_channels}));
  c.Attr("kernel_shape", spec.kernel).Attr("group", group);
  if (!spec.strides.empty()) c.Attr("strides", spec.strides);
  if (!spec.dilations.empty()) c.Attr("dilations", spec.dilations);
  if (!spec.pads.empty()) c.Attr("pads", spec.pads);
  if (!spec.auto_pad.empty()) c.Attr("auto_pad", spec.auto_pad);
  if (spec.act.kind != ActivationKind::kNone) c.Fused(spec.act.kind, spec.act.alpha, spec.act.beta);
  c.Check(DotTolerance(NumElements(w_dims) / out_channels));
}

TEST(CpuKernelTest, ConvShapes) {
  std::mt19937 rng(101);
  const std::vector<ConvSpec> specs = {
      {"3x3 pad 1", 2, {3, 3}, 1, {}, {}, {1, 1, 1, 1}},
      {"1x1", 2, {1, 1}},
      {"1x1 large output (plain layout)", 2, {1, 1}, 1, {}, {}, {}, "", true, true, 14, 20},
      {"1x1 tiny output (blocked layout)", 2, {1, 1}, 1, {}, {}, {}, "", true, true, 4, 8},
      {"3x3 tiny output (plain layout)", 2, {3, 3}, 1, {}, {}, {1, 1, 1, 1}, "", true, true, 3, 6},
      {"3x3 large output (blocked layout)",
       2,
       {3, 3},
       1,
       {},
       {},
       {1, 1, 1, 1},
       "",
       true,
       true,
       16,
       24},
      {"groups 3", 2, {3, 3}, 3, {}, {}, {1, 1, 1, 1}},
      {"groups 2 large", 2, {3, 3}, 2, {}, {}, {1, 1, 1, 1}, "", true, true, 16, 20},
      {"depthwise 3x3", 2, {3, 3}, -1, {}, {}, {1, 1, 1, 1}, "", true, true, 8, 20},
      {"depthwise 5x5 stride 2", 2, {5, 5}, -1, {2, 2}, {}, {2, 2, 2, 2}, "", true, true, 8, 20},
      {"dilation 2", 2, {3, 3}, 1, {}, {2, 2}, {2, 2, 2, 2}},
      {"dilation 2x3 large", 2, {3, 3}, 1, {}, {2, 3}, {1, 2, 3, 0}, "", true, true, 14, 20},
      {"stride 2", 2, {3, 3}, 1, {2, 2}, {}, {0, 0, 0, 0}, "", true, true, 7, 25},
      {"stride 2x1 asymmetric pads", 2, {3, 3}, 1, {2, 1}, {}, {0, 1, 2, 1}},
      {"asymmetric pads large", 2, {3, 3}, 1, {}, {}, {0, 2, 1, 0}, "", true, true, 14, 20},
      {"SAME_UPPER stride 2", 2, {3, 3}, 1, {2, 2}, {}, {}, "SAME_UPPER", true, true, 6, 20},
      {"SAME_LOWER 4x4", 2, {4, 4}, 1, {}, {}, {}, "SAME_LOWER"},
      {"VALID", 2, {3, 3}, 1, {}, {}, {}, "VALID"},
      {"1x7", 2, {1, 7}, 1, {}, {}, {0, 3, 0, 3}, "", true, true, 8, 18},
      {"7x1", 2, {7, 1}, 1, {}, {}, {3, 0, 3, 0}, "", true, true, 8, 18},
      {"5x5 pad 2", 2, {5, 5}, 1, {}, {}, {2, 2, 2, 2}, "", true, true, 10, 18},
      {"no bias", 2, {3, 3}, 1, {}, {}, {1, 1, 1, 1}, "", false},
      {"run-time weights", 2, {3, 3}, 1, {}, {}, {1, 1, 1, 1}, "", true, false, 12, 18},
      {"run-time weights 1x1", 2, {1, 1}, 1, {}, {}, {}, "", true, false},
      {"1-D", 1, {3}, 1, {2}, {}, {1, 0}, "", true, true, 5, 30},
      {"1-D depthwise", 1, {5}, -1, {}, {}, {2, 2}, "", true, true, 5, 30},
      {"3-D", 3, {3, 3, 3}, 1, {}, {}, {1, 1, 1, 1, 1, 1}, "", true, true, 3, 7},
      {"3-D stride 2 groups 2",
       3,
       {2, 3, 1},
       2,
       {2, 1, 2},
       {},
       {0, 1, 0, 1, 0, 0},
       "",
       true,
       true,
       4,
       8},
  };
  for (const ConvSpec& spec : specs)
    for (int repeat = 0; repeat < 2; ++repeat) CheckConv(rng, spec);
}

TEST(CpuKernelTest, ConvFusedActivations) {
  std::mt19937 rng(202);
  const std::vector<Activation> acts = {
      {ActivationKind::kRelu},
      {ActivationKind::kLeakyRelu, 0.1f},
      {ActivationKind::kClip, 0.f, 6.f},
      {ActivationKind::kClip, -0.5f, 0.25f},
      {ActivationKind::kClip, 0.5f, -0.5f},  // min > max: ApplyActivation after the primitive
      {ActivationKind::kSigmoid},
      {ActivationKind::kTanh},
      {ActivationKind::kHardSigmoid, 0.2f, 0.5f},
      {ActivationKind::kHardSigmoid, 0.7f, 0.1f},
      {ActivationKind::kHardSwish},
      {ActivationKind::kElu, 1.f},
      {ActivationKind::kElu, 0.5f},
      {ActivationKind::kSilu},
  };
  for (const Activation& act : acts) {
    SCOPED_TRACE(ActivationOpType(act.kind) + " alpha " + std::to_string(act.alpha) + " beta " +
                 std::to_string(act.beta));
    // One tiny (plain layout, gemm) and one large (blocked layout, jit) conv per activation.
    ConvSpec small{"small", 2, {3, 3}, 1, {}, {}, {1, 1, 1, 1}, "", true, true, 4, 8, act};
    ConvSpec large{"large", 2, {3, 3}, 1, {}, {}, {1, 1, 1, 1}, "", true, true, 14, 18, act};
    ConvSpec depthwise{"depthwise", 2,    {3, 3}, -1, {}, {}, {1, 1, 1, 1},
                       "",          true, true,   8,  16, act};
    CheckConv(rng, small);
    CheckConv(rng, large);
    CheckConv(rng, depthwise);
  }
}

TEST(CpuKernelTest, ConvInceptionSizes) {
  // Inception-v3's channel counts and kernels (one image): channels that are not multiples of
  // the 8-wide blocks, long accumulations. Spatial sizes and output channels are cut down to keep
  // the double-precision reference fast, but stay on the same side of the layout choice.
  std::mt19937 rng(303);
  struct Shape {
    Dims x, w, strides, pads;
  };
  const std::vector<Shape> shapes = {
      {{1, 3, 65, 65}, {32, 3, 3, 3}, {2, 2}, {0, 0, 0, 0}},
      {{1, 192, 20, 20}, {64, 192, 1, 1}, {1, 1}, {0, 0, 0, 0}},
      {{1, 48, 16, 16}, {64, 48, 5, 5}, {1, 1}, {2, 2, 2, 2}},
      {{1, 288, 25, 25}, {64, 288, 3, 3}, {2, 2}, {0, 0, 0, 0}},
      {{1, 160, 17, 17}, {64, 160, 7, 1}, {1, 1}, {3, 0, 3, 0}},
      {{1, 448, 8, 8}, {48, 448, 3, 3}, {1, 1}, {1, 1, 1, 1}},
      {{1, 2048, 8, 8}, {32, 2048, 1, 1}, {1, 1}, {0, 0, 0, 0}},
  };
  // (Every one of these has enough multiply-adds for the kernel to really use 2 threads.)
  for (const Shape& s : shapes) {
    OneNodeCase c("Conv");
    c.Input(RandomFloats(rng, s.x))
        .Constant(RandomFloats(rng, s.w))
        .Constant(RandomFloats(rng, {s.w[0]}))
        .Attr("kernel_shape", Dims(s.w.begin() + 2, s.w.end()))
        .Attr("strides", s.strides)
        .Attr("pads", s.pads)
        .Fused(ActivationKind::kRelu);
    c.Check(DotTolerance(NumElements(s.w) / s.w[0]));
  }
  // Depthwise and grouped convs large enough for 2 threads.
  struct Grouped {
    int64_t channels, group, size;
  };
  for (const Grouped& g : {Grouped{96, 96, 56}, Grouped{32, 4, 40}}) {
    OneNodeCase c("Conv");
    c.Input(RandomFloats(rng, {1, g.channels, g.size, g.size}))
        .Constant(RandomFloats(rng, {g.channels, g.channels / g.group, 3, 3}))
        .Constant(RandomFloats(rng, {g.channels}))
        .Attr("kernel_shape", Ints({3, 3}))
        .Attr("pads", Ints({1, 1, 1, 1}))
        .Attr("group", g.group)
        .Fused(ActivationKind::kClip, 0.f, 6.f);
    c.Check(DotTolerance(g.channels / g.group * 9));
  }
}

TEST(CpuKernelTest, ConvConcurrentCallers) {
  // Four callers at once, alternating 1 and 2 threads: the per-thread-count primitives are
  // created on first use under a lock and the scratch buffers are per thread. (Both convs
  // are large enough to use 2 threads.)
  std::mt19937 rng(404);
  for (const Dims& kernel : {Ints({3, 3}), Ints({1, 1})}) {
    OneNodeCase c("Conv");
    c.Input(RandomFloats(rng, {1, 64, 28, 28}))
        .Constant(RandomFloats(rng, {48, 64, kernel[0], kernel[1]}))
        .Constant(RandomFloats(rng, {48}))
        .Attr("kernel_shape", kernel)
        .Attr("pads", kernel[0] == 3 ? Ints({1, 1, 1, 1}) : Ints({0, 0, 0, 0}))
        .Fused(ActivationKind::kRelu);
    c.CheckConcurrent(DotTolerance(64 * kernel[0] * kernel[1]), 4);
  }
}

// ---- Gemm, MatMul --------------------------------------------------------------------------

TEST(CpuKernelTest, Gemm) {
  std::mt19937 rng(505);
  const std::vector<std::vector<int64_t>> c_shapes_rel = {{},       {-1},   {1, -1}, {-2, 1},
                                                          {-2, -1}, {1, 1}, {1}};  // -1: N, -2: M
  int case_index = 0;
  for (int trans_a = 0; trans_a < 2; ++trans_a) {
    for (int trans_b = 0; trans_b < 2; ++trans_b) {
      for (size_t ci = 0; ci <= c_shapes_rel.size(); ++ci) {
        const int64_t m = RandomInt(rng, 1, 40);
        const int64_t k = RandomInt(rng, 1, 300);
        const int64_t n = RandomInt(rng, 1, 70);
        const bool with_c = ci < c_shapes_rel.size();
        const float alpha = case_index % 3 == 0 ? 1.f : 0.5f + case_index % 4;
        const float beta = case_index % 4 == 0 ? 1.f : -0.75f;
        const bool constant_b = case_index % 5 != 1;
        const bool constant_c = case_index % 2 == 0;
        ++case_index;
        OneNodeCase c("Gemm", 13);
        c.Input(RandomFloats(rng, trans_a ? Dims{k, m} : Dims{m, k}))
            .Input(RandomFloats(rng, trans_b ? Dims{n, k} : Dims{k, n}), constant_b);
        if (with_c) {
          Dims c_dims;
          for (int64_t d : c_shapes_rel[ci]) c_dims.push_back(d == -1 ? n : d == -2 ? m : d);
          c.Input(RandomFloats(rng, c_dims), constant_c);
        }
        c.Attr("transA", int64_t{trans_a}).Attr("transB", int64_t{trans_b});
        c.Attr("alpha", alpha).Attr("beta", beta);
        c.Check(DotTolerance(k));
      }
    }
  }
  // Large enough for 2 threads.
  OneNodeCase c("Gemm", 13);
  c.Input(RandomFloats(rng, {64, 512})).Constant(RandomFloats(rng, {128, 512}));
  c.Constant(RandomFloats(rng, {128})).Attr("transB", int64_t{1});
  c.Check(DotTolerance(512));
}

TEST(CpuKernelTest, MatMul) {
  std::mt19937 rng(606);
  struct Shapes {
    Dims a, b;
    bool constant_b;
  };
  const std::vector<Shapes> cases = {
      {{7, 33}, {33, 12}, true},
      {{7, 33}, {33, 12}, false},
      {{2, 3, 5, 16}, {2, 3, 16, 9}, false},
      {{3, 5, 16}, {16, 9}, true},          // B broadcast over the batch
      {{4, 16}, {2, 16, 9}, false},         // A broadcast over the batch
      {{2, 1, 5, 8}, {1, 3, 8, 6}, false},  // both broadcast
      {{16}, {16, 9}, true},                // 1-D A
      {{5, 16}, {16}, false},               // 1-D B
      {{16}, {16}, false},                  // dot product
      {{1, 2048}, {2048, 100}, true},       // a classifier
      {{64, 256}, {256, 128}, true},        // large enough for 2 threads
      {{8, 32, 128}, {8, 128, 64}, false},
  };
  for (const Shapes& s : cases) {
    OneNodeCase c("MatMul", 13);
    c.Input(RandomFloats(rng, s.a)).Input(RandomFloats(rng, s.b), s.constant_b);
    c.Check(DotTolerance(s.a.back()));
  }
}

// ---- Pools ---------------------------------------------------------------------------------

TEST(CpuKernelTest, Pools) {
  std::mt19937 rng(707);
  struct PoolSpec {
    std::string name;
    Dims kernel, strides, pads;
    int64_t ceil_mode = 0;
    Dims dilations = {};
    std::string auto_pad = "";
  };
  const std::vector<PoolSpec> specs = {
      {"3x3 s2", {3, 3}, {2, 2}, {0, 0, 0, 0}},
      {"3x3 s1 pad 1", {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {"2x2 s2", {2, 2}, {2, 2}, {0, 0, 0, 0}},
      {"3x3 s2 ceil", {3, 3}, {2, 2}, {0, 0, 0, 0}, 1},
      {"3x3 s2 pad 1 ceil", {3, 3}, {2, 2}, {1, 1, 1, 1}, 1},
      {"2x3 s(2,3) asymmetric pads ceil", {2, 3}, {2, 3}, {0, 1, 1, 2}, 1},
      {"5x5 s3 pad 2", {5, 5}, {3, 3}, {2, 2, 2, 2}},
      {"1x7", {1, 7}, {1, 1}, {0, 3, 0, 3}},
      {"dilation 2", {3, 3}, {1, 1}, {2, 2, 2, 2}, 0, {2, 2}},
      {"dilation 2 stride 2 ceil", {2, 2}, {2, 2}, {1, 0, 1, 0}, 1, {2, 2}},
      {"SAME_UPPER s2", {3, 3}, {2, 2}, {}, 0, {}, "SAME_UPPER"},
      {"SAME_LOWER", {4, 4}, {1, 1}, {}, 0, {}, "SAME_LOWER"},
      // Stride 1 with rows as wide as the input's (the kernel's plane-at-a-time path): a window
      // taller than small planes (no row whose window lies whole in the input), and a row whose
      // window holds one input row.
      {"7x7 s1 pad 3", {7, 7}, {1, 1}, {3, 3, 3, 3}},
      {"3x3 s1 pads (2, 1, 0, 1)", {3, 3}, {1, 1}, {2, 1, 0, 1}},
  };
  for (const PoolSpec& spec : specs) {
    SCOPED_TRACE(spec.name);
    for (int repeat = 0; repeat < 2; ++repeat) {
      const Dims x = {RandomInt(rng, 1, 2), RandomInt(rng, 1, 9), RandomInt(rng, 6, 20),
                      RandomInt(rng, 6, 20)};
      const Tensor input = RandomFloats(rng, x);
      for (const char* op : {"MaxPool", "AveragePool"}) {
        for (int64_t include_pad : {int64_t{0}, int64_t{1}}) {
          if (std::string(op) == "MaxPool" && include_pad == 1) continue;
          if (std::string(op) == "AveragePool" && !spec.dilations.empty()) continue;  // opset 19
          OneNodeCase c(op, 13);
          c.Input(input).Attr("kernel_shape", spec.kernel);
          if (!spec.strides.empty()) c.Attr("strides", spec.strides);
          if (!spec.pads.empty()) c.Attr("pads", spec.pads);
          if (!spec.dilations.empty()) c.Attr("dilations", spec.dilations);
          if (!spec.auto_pad.empty()) c.Attr("auto_pad", spec.auto_pad);
          c.Attr("ceil_mode", spec.ceil_mode);
          if (std::string(op) == "AveragePool") c.Attr("count_include_pad", include_pad);
          c.Check(std::string(op) == "MaxPool" ? kExact : kElementwise);
        }
      }
    }
  }
  // AveragePool with dilations (opset 19), 1-D and 3-D pools.
  {
    OneNodeCase c("AveragePool", 19);
    c.Input(RandomFloats(rng, {2, 3, 13, 11}))
        .Attr("kernel_shape", Ints({3, 2}))
        .Attr("dilations", Ints({2, 3}))
        .Attr("pads", Ints({1, 1, 2, 0}))
        .Attr("strides", Ints({2, 1}))
        .Attr("ceil_mode", int64_t{1})
        .Attr("count_include_pad", int64_t{1});
    c.Check(kElementwise);
  }
  for (const char* op : {"MaxPool", "AveragePool"}) {
    OneNodeCase one_d(op, 13);
    one_d.Input(RandomFloats(rng, {2, 5, 23}))
        .Attr("kernel_shape", Ints({4}))
        .Attr("strides", Ints({3}))
        .Attr("pads", Ints({1, 2}))
        .Attr("ceil_mode", int64_t{1});
    one_d.Check(kElementwise);
    OneNodeCase three_d(op, 13);
    three_d.Input(RandomFloats(rng, {1, 4, 7, 8, 9}))
        .Attr("kernel_shape", Ints({2, 3, 3}))
        .Attr("strides", Ints({2, 2, 1}))
        .Attr("pads", Ints({0, 1, 1, 1, 1, 0}));
    three_d.Check(kElementwise);
  }
}

TEST(CpuKernelTest, GlobalPools) {
  std::mt19937 rng(808);
  for (const Dims& x : {Ints({1, 2048, 8, 8}), Ints({2, 5, 7, 3}), Ints({3, 4, 1, 1}),
                        Ints({2, 3, 17}), Ints({1, 2, 3, 4, 5})}) {
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
      OneNodeCase c(op, 13);
      c.Input(RandomFloats(rng, x));
      c.Check(std::string(op) == "GlobalMaxPool" ? kExact : kElementwise);
    }
  }
}

// ---- Elementwise ---------------------------------------------------------------------------

TEST(CpuKernelTest, BinaryBroadcasting) {
  std::mt19937 rng(909);
  const Dims full = {2, 6, 5, 7};
  const std::vector<std::pair<Dims, Dims>> shapes = {
      {full, full},          // same shape
      {full, {1, 6, 1, 1}},  // per channel
      {full, {6, 1, 1}},     // per channel, lower rank
      {{1, 6, 1, 1}, full},  // per channel on the left
      {full, {}},            // scalar
      {{}, full},
      {full, {7}},                   // last axis
      {full, {2, 6, 1, 1}},          // per (n, c): squeeze-and-excitation
      {full, {2, 1, 5, 7}},          // per (n, spatial)
      {{2, 1, 5, 1}, {1, 6, 1, 7}},  // both sides broadcast
      {{1, 1}, {1}},                 // single elements
      {{3, 1}, {1, 4}},
      {{1, 100000}, {1, 100000}},  // large enough for several threads
      {{64, 3000}, {64, 1}},
      {{2, 6, 75, 101}, {2, 1, 75, 101}},  // two threads, each over rows of two outer dims
  };
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    for (const auto& [a, b] : shapes) {
      OneNodeCase c(op, 14);
      // Divisors away from 0, so that the quotients stay moderate.
      c.Input(RandomFloats(rng, a)).Input(RandomFloats(rng, b, 0.5f, 2.f));
      c.Check(kElementwise);
    }
  }
}

TEST(CpuKernelTest, VariadicElementwise) {
  std::mt19937 rng(1010);
  const std::vector<std::vector<Dims>> shapes = {
      {{2, 3, 4}},
      {{2, 3, 4}, {2, 3, 4}},
      {{2, 3, 4}, {3, 1}, {4}},
      {{1, 3, 1}, {2, 1, 4}, {}, {2, 3, 4}},
      {{1, 8, 1, 1}, {2, 8, 6, 6}},
  };
  for (const char* op : {"Sum", "Max", "Min"}) {
    for (const std::vector<Dims>& inputs : shapes) {
      OneNodeCase c(op, 13);
      for (const Dims& dims : inputs) c.Input(RandomFloats(rng, dims));
      c.Check(std::string(op) == "Sum" ? kElementwise : kExact);
    }
  }
}

// ---- Activations ---------------------------------------------------------------------------

TEST(CpuKernelTest, Activations) {
  std::mt19937 rng(1111);
  const Dims dims = {2, 5, 33, 17};
  struct Spec {
    const char* op;
    std::vector<std::pair<std::string, float>> attrs;
  };
  const std::vector<Spec> specs = {
      {"Relu", {}},
      {"LeakyRelu", {}},
      {"LeakyRelu", {{"alpha", 0.2f}}},
      {"Sigmoid", {}},
      {"Tanh", {}},
      {"HardSigmoid", {}},
      {"HardSigmoid", {{"alpha", 0.3f}, {"beta", 0.4f}}},
      {"HardSwish", {}},
      {"Elu", {}},
      {"Elu", {{"alpha", 0.3f}}},
  };
  for (const Spec& spec : specs) {
    OneNodeCase c(spec.op, 14);
    c.Input(RandomFloats(rng, dims, -6.f, 6.f));
    for (const auto& [name, value] : spec.attrs) c.Attr(name, value);
    c.Check(kElementwise);
  }
  auto scalar = [](float v) { return Tensor::FromFloat({v}, {}); };
  {  // Clip since opset 11: bounds as inputs.
    OneNodeCase both("Clip", 13);
    both.Input(RandomFloats(rng, dims, -3.f, 3.f)).Constant(scalar(-1.f)).Constant(scalar(2.f));
    both.Check(kExact);
    OneNodeCase max_only("Clip", 13);
    max_only.Input(RandomFloats(rng, dims, -3.f, 3.f)).Omitted().Constant(scalar(0.5f));
    max_only.Check(kExact);
    OneNodeCase none("Clip", 13);
    none.Input(RandomFloats(rng, dims, -3.f, 3.f));
    none.Check(kExact);
    OneNodeCase inverted("Clip", 13);
    inverted.Input(RandomFloats(rng, dims, -3.f, 3.f)).Constant(scalar(1.f)).Constant(scalar(-1.f));
    inverted.Check(kExact);
  }
  {  // Clip before opset 11: bounds as attributes.
    OneNodeCase c("Clip", 6);
    c.Input(RandomFloats(rng, dims, -8.f, 8.f)).Attr("min", 0.f).Attr("max", 6.f);
    c.Check(kExact);
  }
  {  // Large enough to split over two threads.
    OneNodeCase c("Relu", 14);
    c.Input(RandomFloats(rng, {1, 64, 56, 56}));
    c.Check(kExact);
  }
}

// Activations writing over their input, as an in-place memory plan places them
// (plan/in_place.h): the own loops, the vectorised Sigmoid, oneDNN's eltwise primitive (Tanh,
// Elu, Mish) and Clip with its bounds as inputs; sizes split over one and two threads.
TEST(CpuKernelTest, ActivationsInPlace) {
  std::mt19937 rng(1112);
  for (const Dims& dims : {Dims{2, 5, 33, 17}, Dims{1, 64, 56, 56}}) {
    for (const char* op : {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSwish", "Elu", "Softplus",
                           "Mish"}) {
      SCOPED_TRACE(std::string(op) + " " + DimsToString(dims));
      OneNodeCase c(op, 18);
      c.Input(RandomFloats(rng, dims, -6.f, 6.f)).OutputOver(0);
      c.Check(kElementwise);
    }
    OneNodeCase clip("Clip", 13);
    clip.Input(RandomFloats(rng, dims, -3.f, 3.f))
        .Constant(Tensor::FromFloat({-1.f}, {}))
        .Constant(Tensor::FromFloat({2.f}, {}))
        .OutputOver(0);
    clip.Check(kExact);
  }
}

// ---- Softmax -------------------------------------------------------------------------------

TEST(CpuKernelTest, Softmax) {
  std::mt19937 rng(1212);
  struct Spec {
    int64_t opset;
    Dims dims;
    std::optional<int64_t> axis;
  };
  const std::vector<Spec> specs = {
      {13, {4, 1000}, std::nullopt},
      {13, {2, 3, 5, 7}, 1},
      {13, {2, 3, 5, 7}, -1},
      {13, {2, 3, 5, 7}, 0},
      {11, {2, 3, 5, 7}, std::nullopt},
      {11, {2, 3, 5, 7}, 2},
      {1, {6, 10}, 0},
  };
  for (const Spec& spec : specs) {
    OneNodeCase c("Softmax", spec.opset);
    c.Input(RandomFloats(rng, spec.dims, -5.f, 5.f));
    if (spec.axis) c.Attr("axis", *spec.axis);
    c.Check(kElementwise);
  }
}

// ---- Erf, Gelu, LayerNormalization --------------------------------------------------------

TEST(CpuKernelTest, ErfAndGelu) {
  std::mt19937 rng(1250);
  for (const Dims& dims : {Ints({2, 5, 33, 17}), Ints({7}), Ints({1, 64, 56, 56})}) {
    OneNodeCase erf("Erf", 13);
    erf.Input(RandomFloats(rng, dims, -4.f, 4.f));
    erf.Check(kElementwise);
    for (const char* approximate : {"none", "tanh"}) {
      OneNodeCase gelu("Gelu", 20);
      gelu.Input(RandomFloats(rng, dims, -6.f, 6.f)).Attr("approximate", std::string(approximate));
      // oneDNN's erf and tanh polynomials against double libm: a few float ulps, and ~1e-7 of
      // absolute error where 1 + erf(x / sqrt(2)) cancels (x < -3).
      gelu.Check(Tolerance{1e-6, 1e-5});
    }
  }
  {  // The default form (no attribute).
    OneNodeCase gelu("Gelu", 20);
    gelu.Input(RandomFloats(rng, {3, 100}, -3.f, 3.f));
    gelu.Check(Tolerance{1e-6, 1e-5});
  }
}

TEST(CpuKernelTest, LayerNormalization) {
  std::mt19937 rng(1260);
  struct Spec {
    std::string name;
    Dims x;
    int64_t axis;
    Dims scale;
    bool bias;
    bool constant_params;
    int outputs;
    bool fast;
  };
  const std::vector<Spec> specs = {
      {"tokens, last axis", {2, 50, 96}, -1, {96}, true, true, 1, true},
      {"runtime scale and bias", {2, 50, 96}, -1, {96}, true, false, 1, true},
      {"no bias", {3, 40}, 1, {40}, false, true, 1, true},
      {"axis 1 over C, H, W", {2, 3, 5, 7}, 1, {3, 5, 7}, true, true, 1, true},
      {"per-channel scale, expanded", {2, 8, 6, 6}, 1, {8, 1, 1}, true, true, 1, true},
      {"scalar scale", {4, 30}, -1, {}, true, true, 1, true},
      {"whole tensor", {3, 4, 5}, 0, {3, 4, 5}, false, true, 1, true},
      {"Mean and InvStdDev", {4, 6, 96}, -1, {96}, true, true, 3, true},
      {"Mean and InvStdDev, axis 1", {2, 16, 7}, 1, {16, 7}, false, false, 3, true},
      {"large enough for 2 threads", {1, 3136, 96}, 2, {96}, true, true, 1, true},
      // A broadcast scale known only at run time: the reference kernel runs it.
      {"runtime per-channel scale", {2, 8, 6, 6}, 1, {8, 1, 1}, true, false, 1, false},
  };
  for (const Spec& spec : specs) {
    SCOPED_TRACE(spec.name);
    OneNodeCase c("LayerNormalization", 17);
    c.Input(RandomFloats(rng, spec.x, -3.f, 5.f));
    c.Input(RandomFloats(rng, spec.scale, 0.5f, 2.f), spec.constant_params);
    if (spec.bias) c.Input(RandomFloats(rng, spec.scale), spec.constant_params);
    // A large epsilon where the statistics are checked, so that InvStdDev depends on it.
    c.Attr("axis", spec.axis).Attr("epsilon", spec.outputs > 1 ? 0.5f : 1e-5f);
    c.Outputs(spec.outputs);
    // Float sums of up to a few thousand terms against double ones.
    c.Check(Tolerance{2e-5, 1e-5}, spec.fast);
  }
}

// ---- Resize and Upsample -------------------------------------------------------------------

// A Resize node of `opset` with constant scales (or sizes, when `sizes` is not empty) on
// `axes` of an input of `dims`.
OneNodeCase ResizeCase(std::mt19937& rng, int64_t opset, const Dims& dims,
                       const std::vector<float>& scales, const Dims& sizes = {}) {
  OneNodeCase c("Resize", opset);
  c.Input(RandomFloats(rng, dims));
  if (opset >= 11) c.Omitted();
  if (!sizes.empty()) {
    c.Omitted().Constant(Tensor::FromInt64(sizes, {static_cast<int64_t>(sizes.size())}));
  } else {
    c.Constant(Tensor::FromFloat(scales, {static_cast<int64_t>(scales.size())}));
  }
  return c;
}

TEST(CpuKernelTest, ResizeNearest) {
  std::mt19937 rng(1270);
  // Scales and size ratios that float represents exactly, so that rounding ties agree with the
  // reference's exact arithmetic (kernel_math_resize_test.cc covers the float/double split).
  for (const char* coordinate : {"asymmetric", "half_pixel", "align_corners", "pytorch_half_pixel",
                                 "tf_half_pixel_for_nn"}) {
    for (const char* rounding : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
      SCOPED_TRACE(std::string(coordinate) + " " + rounding);
      OneNodeCase up = ResizeCase(rng, 13, {1, 16, 20, 24}, {1, 1, 2, 2});
      up.Attr("coordinate_transformation_mode", std::string(coordinate))
          .Attr("nearest_mode", std::string(rounding));
      up.Check(kExact);
      OneNodeCase mixed = ResizeCase(rng, 13, {2, 3, 8, 6}, {}, {2, 3, 4, 9});
      mixed.Attr("coordinate_transformation_mode", std::string(coordinate))
          .Attr("nearest_mode", std::string(rounding));
      mixed.Check(kExact);
    }
  }
  {  // NHWC: H and W resized, C moves as a vector.
    OneNodeCase c = ResizeCase(rng, 13, {2, 5, 6, 3}, {1, 3, 0.5f, 1});
    c.Check(kExact);
  }
  {  // 3x along W alone: each column repeated three times (the kernel's repeat path).
    OneNodeCase c = ResizeCase(rng, 13, {1, 2, 5, 7}, {1, 1, 1, 3});
    c.Check(kExact);
  }
  {  // Only the channel axis (an inner vector of H x W).
    OneNodeCase c = ResizeCase(rng, 13, {1, 3, 4, 5}, {1, 2, 1, 1});
    c.Check(kExact);
  }
  {  // opset 18 axes, 3-D.
    OneNodeCase c = ResizeCase(rng, 18, {1, 2, 3, 4, 5}, {2, 1.5f, 2});
    c.Attr("axes", Ints({2, 3, 4}));
    c.Check(kExact);
  }
  {  // Resize 10 (asymmetric, onnxruntime's rounding) shrinking and growing; Upsample 7 and 9.
    OneNodeCase r10 = ResizeCase(rng, 10, {1, 2, 9, 8}, {1, 1, 0.5f, 1.5f});
    r10.Check(kExact);
    OneNodeCase u7("Upsample", 7);
    u7.Input(RandomFloats(rng, {1, 4, 5, 6})).Attr("scales", std::vector<float>{1, 1, 2, 3});
    u7.Check(kExact);
    OneNodeCase u9("Upsample", 9);
    u9.Input(RandomFloats(rng, {1, 4, 5, 6})).Constant(Tensor::FromFloat({1, 1, 2, 2}, {4}));
    u9.Check(kExact);
  }
  {  // Nothing resized: a copy.
    OneNodeCase c = ResizeCase(rng, 13, {2, 3, 4}, {1, 1, 1});
    c.Check(kExact);
  }
  {  // int64 runs the reference.
    OneNodeCase c("Resize", 13);
    c.Input(Tensor::FromInt64({1, 2, 3, 4}, {1, 4})).Omitted();
    c.Constant(Tensor::FromFloat({1, 2}, {2}));
    c.Check(kExact, /*expect_fast=*/false);
  }
}

TEST(CpuKernelTest, ResizeLinearAndCubic) {
  std::mt19937 rng(1280);
  // Float weights and sums against the reference's double: a few ulps of values in [-1, 1].
  constexpr Tolerance kLinear{2e-6, 1e-5};
  constexpr Tolerance kCubic{5e-6, 1e-5};
  for (const char* coordinate : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                 "half_pixel_symmetric"}) {
    SCOPED_TRACE(coordinate);
    OneNodeCase up = ResizeCase(rng, 19, {1, 16, 20, 24}, {1, 1, 2, 2});
    up.Attr("mode", std::string("linear"))
        .Attr("coordinate_transformation_mode", std::string(coordinate));
    up.Check(kLinear);
    // Uneven sizes (13 -> 25 matches a stride-2 lateral of odd size), and shrinking.
    OneNodeCase uneven = ResizeCase(rng, 19, {2, 3, 13, 7}, {}, {2, 3, 25, 5});
    uneven.Attr("mode", std::string("linear"))
        .Attr("coordinate_transformation_mode", std::string(coordinate));
    uneven.Check(kLinear);
    // Scales whose product floor() cuts short (half_pixel_symmetric then shifts the grid).
    OneNodeCase cut = ResizeCase(rng, 19, {1, 2, 7, 9}, {1, 1, 1.7f, 0.6f});
    cut.Attr("mode", std::string("cubic"))
        .Attr("coordinate_transformation_mode", std::string(coordinate));
    cut.Check(kCubic);
  }
  {  // NHWC bilinear, trilinear, and cubic with exclude_outside and a = -0.5.
    OneNodeCase nhwc = ResizeCase(rng, 13, {1, 6, 5, 8}, {1, 2, 2, 1});
    nhwc.Attr("mode", std::string("linear"));
    nhwc.Check(kLinear);
    OneNodeCase tri = ResizeCase(rng, 13, {1, 2, 4, 5, 6}, {1, 1, 2, 1.5f, 0.5f});
    tri.Attr("mode", std::string("linear"));
    tri.Check(kLinear);
    OneNodeCase cubic = ResizeCase(rng, 13, {1, 3, 9, 11}, {1, 1, 2, 2});
    cubic.Attr("mode", std::string("cubic"))
        .Attr("exclude_outside", int64_t{1})
        .Attr("cubic_coeff_a", -0.5f);
    cubic.Check(kCubic);
  }
  {  // Upsample 9 linear (asymmetric), and a detection neck's size at 2 threads' worth of work.
    OneNodeCase u9("Upsample", 9);
    u9.Input(RandomFloats(rng, {1, 4, 5, 6})).Constant(Tensor::FromFloat({1, 1, 2, 2}, {4}));
    u9.Attr("mode", std::string("linear"));
    u9.Check(kLinear);
    OneNodeCase neck = ResizeCase(rng, 13, {1, 64, 40, 40}, {1, 1, 2, 2});
    neck.Attr("mode", std::string("linear"));
    neck.Check(kLinear);
  }
}

// ---- Data movement -------------------------------------------------------------------------

TEST(CpuKernelTest, ConcatAndSplit) {
  std::mt19937 rng(1313);
  for (int64_t axis : {0, 1, 2, 3, -1}) {
    OneNodeCase c("Concat", 13);
    const int64_t a = axis < 0 ? 3 : axis;
    for (int64_t size : {3, 1, 5}) {
      Dims dims = {2, 4, 3, 5};
      dims[a] = size;
      c.Input(RandomFloats(rng, dims));
    }
    c.Attr("axis", axis);
    c.Check(kExact);
  }
  {  // Not float: any element type is copied.
    OneNodeCase c("Concat", 13);
    c.Input(Tensor::FromInt64({1, 2, 3}, {3})).Input(Tensor::FromInt64({4, 5}, {2}));
    c.Attr("axis", int64_t{0});
    c.Check(kExact);
  }
  {  // A large channel concat (one block per input).
    OneNodeCase c("Concat", 13);
    c.Input(RandomFloats(rng, {1, 64, 35, 35})).Input(RandomFloats(rng, {1, 96, 35, 35}));
    c.Attr("axis", int64_t{1});
    c.Check(kExact);
  }
  {  // Split since opset 13: sizes as an input.
    OneNodeCase c("Split", 13);
    c.Input(RandomFloats(rng, {2, 10, 3})).Constant(Tensor::FromInt64({2, 5, 3}, {3}));
    c.Attr("axis", int64_t{1}).Outputs(3);
    c.Check(kExact);
  }
  {  // Split before opset 13: sizes as an attribute, on the last axis.
    OneNodeCase c("Split", 11);
    c.Input(RandomFloats(rng, {2, 3, 7})).Attr("axis", int64_t{-1}).Attr("split", Ints({4, 3}));
    c.Outputs(2);
    c.Check(kExact);
  }
  {  // Equal parts.
    OneNodeCase c("Split", 13);
    c.Input(RandomFloats(rng, {6, 4})).Attr("axis", int64_t{0}).Outputs(3);
    c.Check(kExact);
  }
  {  // opset 18: num_outputs with a smaller last part.
    OneNodeCase c("Split", 18);
    c.Input(RandomFloats(rng, {2, 7})).Attr("axis", int64_t{1}).Attr("num_outputs", int64_t{3});
    c.Outputs(3);
    c.Check(kExact);
  }
}

TEST(CpuKernelTest, SliceTransposeReshapes) {
  std::mt19937 rng(1414);
  const Tensor x = RandomFloats(rng, {3, 8, 6, 10});
  struct SliceSpec {
    std::vector<int64_t> starts, ends, axes, steps;
  };
  const std::vector<SliceSpec> slices = {
      {{1}, {3}, {0}, {}},
      {{0, 2}, {8, 5}, {1, 3}, {}},
      {{1, -1}, {100, -7}, {2, 3}, {2, -1}},
      {{-2}, {-100}, {1}, {-3}},
      {{0, 0, 0, 1}, {3, 8, 6, 10}, {0, 1, 2, 3}, {1, 1, 1, 2}},
      {{5}, {2}, {3}, {}},  // empty
  };
  for (const SliceSpec& s : slices) {
    OneNodeCase c("Slice", 13);
    const int64_t n = static_cast<int64_t>(s.starts.size());
    c.Input(x).Constant(Tensor::FromInt64(s.starts, {n})).Constant(Tensor::FromInt64(s.ends, {n}));
    c.Constant(Tensor::FromInt64(s.axes, {n}));
    if (!s.steps.empty()) c.Constant(Tensor::FromInt64(s.steps, {n}));
    c.Check(kExact);
  }
  {  // Slice before opset 10: attributes.
    OneNodeCase c("Slice", 9);
    c.Input(x).Attr("starts", Ints({1, 2})).Attr("ends", Ints({3, -1})).Attr("axes", Ints({1, 3}));
    c.Check(kExact);
  }
  for (const Dims& perm : {Ints({0, 2, 3, 1}), Ints({0, 3, 1, 2}), Ints({3, 2, 1, 0}),
                           Ints({1, 0, 2, 3}), Ints({0, 1, 3, 2})}) {
    OneNodeCase c("Transpose", 13);
    c.Input(x).Attr("perm", perm);
    c.Check(kExact);
  }
  {
    OneNodeCase c("Transpose", 13);  // default: reverse
    c.Input(RandomFloats(rng, {4, 7, 5}));
    c.Check(kExact);
  }
  {
    OneNodeCase c("Reshape", 14);
    c.Input(x).Constant(Tensor::FromInt64({0, -1, 5}, {3}));
    c.Check(kExact);
  }
  {
    OneNodeCase c("Flatten", 13);
    c.Input(x).Attr("axis", int64_t{2});
    c.Check(kExact);
  }
  {
    OneNodeCase c("Squeeze", 13);
    c.Input(RandomFloats(rng, {1, 5, 1, 3})).Constant(Tensor::FromInt64({0, 2}, {2}));
    c.Check(kExact);
  }
  {
    OneNodeCase c("Unsqueeze", 13);
    c.Input(RandomFloats(rng, {5, 3})).Constant(Tensor::FromInt64({0, 3}, {2}));
    c.Check(kExact);
  }
}

TEST(CpuKernelTest, Pad) {
  std::mt19937 rng(1515);
  const Tensor x = RandomFloats(rng, {2, 3, 5, 6});
  const std::vector<std::vector<int64_t>> pads = {
      {0, 0, 1, 2, 0, 0, 3, 1},
      {0, 1, 0, 0, 1, 0, 2, 2},
      {0, 0, -1, 2, 0, 0, 1, -2},  // crops too
      {1, 0, 0, 0, 0, 0, 0, 0},
  };
  // ("wrap" is in the kernels but not in the op schema yet.)
  for (const char* mode : {"constant", "reflect", "edge"}) {
    for (const std::vector<int64_t>& p : pads) {
      OneNodeCase c("Pad", 19);
      c.Input(x).Constant(Tensor::FromInt64(p, {8}));
      if (std::string(mode) == "constant") c.Constant(Tensor::FromFloat({0.75f}, {}));
      c.Attr("mode", std::string(mode));
      c.Check(kExact);
    }
  }
  {  // opset 18 axes input.
    OneNodeCase c("Pad", 18);
    c.Input(x).Constant(Tensor::FromInt64({1, 2, 0, 3}, {4})).Omitted();
    c.Constant(Tensor::FromInt64({1, -1}, {2}));
    c.Check(kExact);
  }
  {  // Before opset 11: attributes.
    OneNodeCase c("Pad", 2);
    c.Input(x).Attr("pads", std::vector<int64_t>{0, 0, 2, 1, 0, 0, 0, 3}).Attr("value", -2.f);
    c.Check(kExact);
  }
}

// ---- The reference fallback ----------------------------------------------------------------

bool HasOwnCpuKernel(const char* op) { return CpuKernelCaps().Find(op) != nullptr; }

TEST(CpuKernelTest, FallsBackToTheReference) {
  EXPECT_TRUE(HasOwnCpuKernel("Conv"));
  EXPECT_TRUE(HasOwnCpuKernel("Concat"));
  for (const char* op : {"Erf", "Gelu", "LayerNormalization", "Resize", "Upsample", "ConvTranspose",
                         "Tile", "Where", "Cast"})
    EXPECT_TRUE(HasOwnCpuKernel(op)) << op;
  // The ops that only move shapes and constants: compiling folds them (docs/operators.md).
  for (const char* op : {"Shape", "Constant", "ConstantOfShape", "Range"})
    EXPECT_FALSE(HasOwnCpuKernel(op)) << op;
  std::mt19937 rng(1616);
  {
    OneNodeCase c("Shape", 13);
    c.Input(RandomFloats(rng, {5, 4}));
    c.Check(kExact, /*expect_fast=*/false);
  }
  {  // A fast op on a dtype its kernel does not cover.
    Tensor a(DType::kInt64, {3});
    Tensor b(DType::kInt64, {3});
    for (int i = 0; i < 3; ++i) {
      a.data<int64_t>()[i] = 10 * i;
      b.data<int64_t>()[i] = i + 1;
    }
    OneNodeCase c("Div", 14);
    c.Input(a).Input(b);
    c.Check(kExact, /*expect_fast=*/false);
  }
}

// Gather's own kernel: any axis, constant or run-time int32/int64 indices (negative ones count
// from the end), indices of any rank, any element type.
TEST(CpuKernelTest, GatherOwnKernel) {
  std::mt19937 rng(1717);
  {
    OneNodeCase c("Gather", 13);
    c.Input(RandomFloats(rng, {5, 4})).Input(Tensor::FromInt64({4, 0, -1, 2}, {2, 2}));
    c.Attr("axis", int64_t{0});
    c.Check(kExact);
  }
  {
    Tensor indices(DType::kInt32, {3});
    const int32_t values[] = {5, -6, 2};
    std::memcpy(indices.raw(), values, sizeof(values));
    OneNodeCase c("Gather", 13);
    c.Input(RandomFloats(rng, {2, 6, 3})).Constant(indices).Attr("axis", int64_t{1});
    c.Check(kExact);
  }
  {
    OneNodeCase c("Gather", 13);
    c.Input(RandomFloats(rng, {3, 4, 5})).Constant(Tensor::FromInt64({4, 0, 4}, {3}));
    c.Attr("axis", int64_t{-1});
    c.Check(kExact);
  }
  {  // int64 data, a scalar index: the axis goes away.
    OneNodeCase c("Gather", 13);
    c.Input(Tensor::FromInt64({1, 2, 3, 4, 5, 6}, {3, 2})).Constant(Tensor::FromInt64({2}, {}));
    c.Check(kExact);
  }
  {  // Enough to split over 2 threads: a permutation of 64 channels.
    std::vector<int64_t> perm(64);
    for (int64_t i = 0; i < 64; ++i) perm[i] = (i * 37) % 64;
    OneNodeCase c("Gather", 13);
    c.Input(RandomFloats(rng, {2, 64, 24, 24})).Constant(Tensor::FromInt64(perm, {64}));
    c.Attr("axis", int64_t{1});
    c.Check(kExact);
  }
}

TEST(CpuKernelTest, GatherRefusesARunTimeIndexOutOfRange) {
  Node node;
  node.name = "pick";
  node.op_type = "Gather";
  node.opset = 13;
  CpuKernelContext context;
  context.node = &node;
  context.input_types = {TensorType{DType::kFloat32, {3, 2}}, TensorType{DType::kInt64, {2}}};
  context.constants = {nullptr, nullptr};
  context.output_types = {TensorType{DType::kFloat32, {2, 2}}};
  StatusOr<std::unique_ptr<CpuKernel>> kernel = CreateCpuKernel(context);
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  EXPECT_FALSE(IsReferenceFallbackCpuKernel(*kernel.value()));
  const float data[] = {0, 1, 2, 3, 4, 5};
  float out[4] = {};
  const int64_t bad[] = {1, 3};
  Status run = kernel.value()->Run({data, bad}, {out}, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.message().find("Gather 'pick': index 3 is out of range"), std::string::npos)
      << run.message();
  const int64_t good[] = {-3, 2};
  ASSERT_TRUE(kernel.value()->Run({data, good}, {out}, 1).ok());
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{0, 1, 4, 5}));
}

// Inference BatchNormalization's own kernel: constant or run-time parameters, a fused activation
// (the CPU lowering's, passes/fuse_activation.h), rank 2 to 5, in place; training mode runs the
// reference.
TEST(CpuKernelTest, BatchNormOwnKernel) {
  std::mt19937 rng(1818);
  auto params = [&](OneNodeCase& c, int64_t channels, bool constant) {
    for (int i = 0; i < 3; ++i) c.Input(RandomFloats(rng, {channels}), constant);
    Tensor var = RandomFloats(rng, {channels});
    for (int64_t i = 0; i < channels; ++i) var.data<float>()[i] = std::fabs(var.data<float>()[i]);
    c.Input(var, constant);
  };
  const std::vector<Activation> acts = {
      {ActivationKind::kNone}, {ActivationKind::kRelu}, {ActivationKind::kLeakyRelu, 0.1f}};
  for (const Activation& act : acts) {
    for (const Dims& dims : std::vector<Dims>{{2, 5}, {2, 6, 7}, {1, 16, 9, 11}, {1, 3, 2, 4, 5}}) {
      for (bool constant : {true, false}) {
        SCOPED_TRACE(ActivationOpType(act.kind) + " " + DimsToString(dims) +
                     (constant ? " constant" : " run-time"));
        OneNodeCase c("BatchNormalization", 15);
        c.Input(RandomFloats(rng, dims));
        params(c, dims[1], constant);
        c.Attr("epsilon", 1e-3f).Fused(act.kind, act.alpha);
        c.Check(kElementwise);
      }
    }
  }
  {  // Large enough for 2 threads, written over its input.
    OneNodeCase c("BatchNormalization", 15);
    c.Input(RandomFloats(rng, {2, 32, 40, 40}));
    params(c, 32, true);
    c.Fused(ActivationKind::kRelu).OutputOver(0);
    c.Check(kElementwise);
  }
  {  // Training mode: the batch's own statistics, the reference kernel's.
    OneNodeCase c("BatchNormalization", 15);
    c.Input(RandomFloats(rng, {2, 4, 3, 3}));
    params(c, 4, true);
    c.Attr("training_mode", int64_t{1});
    c.Check(kElementwise, /*expect_fast=*/false);
  }
}

TEST(CpuKernelTest, ReportsInvalidNodes) {
  // A kernel_shape that disagrees with the weight is an error, not a crash.
  Node node;
  node.name = "bad";
  node.op_type = "Conv";
  node.attrs.Set("kernel_shape", Ints({5, 5}));
  CpuKernelContext context;
  context.node = &node;
  context.input_types = {TensorType{DType::kFloat32, {1, 2, 8, 8}},
                         TensorType{DType::kFloat32, {4, 2, 3, 3}}};
  context.output_types = {TensorType{DType::kFloat32, {1, 4, 6, 6}}};
  context.constants = {nullptr, nullptr};
  StatusOr<std::unique_ptr<CpuKernel>> kernel = CreateCpuKernel(context);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("kernel_shape"), std::string::npos)
      << kernel.status().message();
}

}  // namespace
}  // namespace ios
