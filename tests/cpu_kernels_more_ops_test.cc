// The CPU kernels of the ops that ran on the reference kernel until issue 50: Pow, Mod, Mean,
// the unary math ops, comparisons, Not, Where, Cast, Expand, Tile and ScatterND (Dropout's cases
// are the op case table's, op_cases/op_case_table.cc). Each case runs through the one-node
// harness (cpu_kernel_case.h): the fast kernel (not the reference fallback) on one and two
// threads against the reference kernel, in the layouts plans give them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cpu_kernel_case.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "layout_shorthands.h"
#include "random_tensor.h"

namespace ios {
namespace {

using namespace cpu_testing;  // NOLINT: the harness of cpu_kernel_case.h
using testing::kCL;
using testing::kRM;
using testing::RandomFloats;

// The broadcasting pairs of the binary ops (as CpuKernelTest.BinaryBroadcasting).
const std::vector<std::pair<Dims, Dims>>& BroadcastShapes() {
  static const std::vector<std::pair<Dims, Dims>> shapes = {
      {{2, 6, 5, 7}, {2, 6, 5, 7}}, {{2, 6, 5, 7}, {1, 6, 1, 1}}, {{2, 6, 5, 7}, {}},
      {{}, {2, 6, 5, 7}},           {{2, 1, 5, 1}, {1, 6, 1, 7}}, {{1, 100000}, {1, 100000}},
      {{64, 3000}, {64, 1}},
  };
  return shapes;
}

TEST(CpuMoreOpsTest, Pow) {
  std::mt19937 rng(1101);
  for (const auto& [a, b] : BroadcastShapes()) {
    OneNodeCase c("Pow", 15);
    // Positive bases: a negative base to a fractional power is NaN on both sides.
    c.Input(RandomFloats(rng, a, 0.1f, 3.f)).Input(RandomFloats(rng, b, -3.f, 3.f));
    c.Check(Tolerance{1e-6, 1e-5});
  }
  for (float exponent : {2.f, 3.f, 0.5f}) {  // a constant scalar exponent; 2 runs as x * x
    OneNodeCase c("Pow", 15);
    const float lo = exponent == 0.5f ? 0.f : -3.f;  // a square root of a negative is NaN
    c.Input(RandomFloats(rng, {2, 6, 5, 7}, lo, 3.f)).Constant(Tensor::FromFloat({exponent}, {}));
    c.Check(exponent == 2.f ? kExact : Tolerance{1e-6, 1e-5});
  }
}

TEST(CpuMoreOpsTest, ModOnFloats) {
  std::mt19937 rng(1102);
  for (int64_t fmod : {0, 1}) {
    for (const auto& [a, b] : BroadcastShapes()) {
      OneNodeCase c("Mod", 13);
      c.Input(RandomFloats(rng, a, -10.f, 10.f)).Input(RandomFloats(rng, b, -3.f, 3.f));
      c.Attr("fmod", fmod);
      c.Check(kExact);
    }
  }
  // Signs, zeros, infinities and NaN, as numpy's mod (fmod 0) and C's fmod (fmod 1).
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {5.f, -5.f, 5.f, -5.f, 0.f, -0.f, 3.f, 3.f, -3.f, inf, nan, 4.f};
  const std::vector<float> y = {3.f, 3.f, -3.f, -3.f, 2.f, -2.f, 0.f, inf, inf, 2.f, 2.f, -2.f};
  for (int64_t fmod : {0, 1}) {
    OneNodeCase c("Mod", 13);
    c.Input(Tensor::FromFloat(x, {12})).Input(Tensor::FromFloat(y, {12})).Attr("fmod", fmod);
    c.Check(kExact);
  }
}

TEST(CpuMoreOpsTest, Mean) {
  std::mt19937 rng(1103);
  const std::vector<std::vector<Dims>> shapes = {
      {{2, 3, 4}},
      {{2, 3, 4}, {2, 3, 4}},
      {{2, 3, 4}, {3, 1}, {4}},
      {{1, 8, 1, 1}, {2, 8, 6, 6}, {2, 8, 6, 6}},
      {{1, 64, 30, 30}, {1, 64, 30, 30}, {1, 64, 30, 30}},  // two threads
  };
  for (const std::vector<Dims>& inputs : shapes) {
    OneNodeCase c("Mean", 13);
    for (const Dims& dims : inputs) c.Input(RandomFloats(rng, dims));
    c.Check(kElementwise);
  }
  // Channels-last, as after convs.
  OneNodeCase c("Mean", 13);
  c.Input(RandomFloats(rng, {1, 8, 5, 6})).Input(RandomFloats(rng, {1, 8, 5, 6}));
  c.Layouts({kCL, kCL}, {kCL});
  c.Check(kElementwise);
}

TEST(CpuMoreOpsTest, UnaryMath) {
  std::mt19937 rng(1104);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Special values: zeros of both signs, halves (Floor/Ceil), infinities, NaN.
  const Tensor special = Tensor::FromFloat(
      {0.f, -0.f, 0.5f, -0.5f, 1.5f, -1.5f, 2.f, 1e-30f, -1e30f, inf, -inf, nan}, {12});
  for (const char* op : {"Abs", "Neg", "Sqrt", "Exp", "Log", "Reciprocal", "Floor", "Ceil", "Erf"}) {
    const std::string name = op;
    // Sqrt and Log of negatives are NaN on both sides; Exp stays finite below 88.
    const bool positive = name == "Sqrt" || name == "Log";
    const float lo = positive ? 0.01f : -20.f;
    const Tolerance tolerance = name == "Exp" || name == "Log" || name == "Erf"
                                    ? Tolerance{1e-6, 1e-5}
                                    : kExact;
    for (const Dims& dims : {Dims{2, 6, 5, 7}, Dims{1, 100000}, Dims{}}) {
      OneNodeCase c(op, 13);
      c.Input(RandomFloats(rng, dims, lo, 20.f));
      c.Check(tolerance);
    }
    {  // channels-last, as after a conv
      OneNodeCase c(op, 13);
      c.Input(RandomFloats(rng, {1, 8, 5, 6}, lo, 20.f));
      c.Layouts({kCL}, {kCL});
      c.Check(tolerance);
    }
    {
      OneNodeCase c(op, 13);
      c.Input(special);
      c.Check(tolerance);
    }
  }
}

TEST(CpuMoreOpsTest, Not) {
  std::mt19937 rng(1105);
  for (const Dims& dims : {Dims{2, 6, 5, 7}, Dims{1, 100000}}) {
    Tensor x(DType::kBool, dims);
    for (int64_t i = 0; i < x.num_elements(); ++i) x.data<uint8_t>()[i] = rng() % 2;
    OneNodeCase c("Not", 13);
    c.Input(x);
    c.Check(kExact);
  }
}

// Random values of `dtype`: floats in [-3, 3], integers in [-5, 5] (uint8 in [0, 10]), bools.
Tensor RandomOf(std::mt19937& rng, DType dtype, const Dims& dims) {
  if (dtype == DType::kFloat32) return RandomFloats(rng, dims, -3.f, 3.f);
  Tensor t(dtype, dims);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const int64_t v = static_cast<int64_t>(rng() % 11) - 5;
    switch (dtype) {
      case DType::kFloat64: t.data<double>()[i] = static_cast<double>(v) / 2; break;
      case DType::kInt64: t.data<int64_t>()[i] = v; break;
      case DType::kInt32: t.data<int32_t>()[i] = static_cast<int32_t>(v); break;
      case DType::kInt8: t.data<int8_t>()[i] = static_cast<int8_t>(v); break;
      case DType::kUint8: t.data<uint8_t>()[i] = static_cast<uint8_t>(v + 5); break;
      case DType::kBool: t.data<uint8_t>()[i] = static_cast<uint8_t>(v > 0); break;
      default: break;
    }
  }
  return t;
}

TEST(CpuMoreOpsTest, Comparisons) {
  std::mt19937 rng(1106);
  for (const char* op : {"Equal", "Greater", "Less"}) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kInt64, DType::kInt32,
                        DType::kInt8, DType::kUint8}) {
      for (const auto& [a, b] : BroadcastShapes()) {
        OneNodeCase c(op, 13);
        // Few distinct values, so that Equal is true often.
        c.Input(RandomOf(rng, dtype == DType::kFloat32 ? DType::kFloat64 : dtype, a))
            .Input(RandomOf(rng, dtype == DType::kFloat32 ? DType::kFloat64 : dtype, b));
        if (dtype == DType::kFloat32) {
          c = OneNodeCase(op, 13);
          Tensor x = RandomFloats(rng, a), y = RandomFloats(rng, b);
          for (int64_t i = 0; i < x.num_elements(); i += 3) x.data<float>()[i] = 0.5f;
          for (int64_t i = 0; i < y.num_elements(); i += 2) y.data<float>()[i] = 0.5f;
          c.Input(x).Input(y);
        }
        c.Check(kExact);
      }
    }
  }
  {  // Equal on bools; NaN compares false
    OneNodeCase c("Equal", 13);
    c.Input(RandomOf(rng, DType::kBool, {4, 9})).Input(RandomOf(rng, DType::kBool, {9}));
    c.Check(kExact);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const char* op : {"Equal", "Greater", "Less"}) {
      OneNodeCase n(op, 13);
      n.Input(Tensor::FromFloat({nan, 1.f, nan}, {3})).Input(Tensor::FromFloat({nan, nan, 1.f}, {3}));
      n.Check(kExact);
    }
  }
  {  // a channels-last float against a row-major one, as after a conv
    OneNodeCase c("Greater", 13);
    c.Input(RandomFloats(rng, {1, 8, 5, 6})).Input(RandomFloats(rng, {1, 8, 5, 6}));
    c.Layouts({kCL, kRM}, {kRM});
    c.Check(kExact);
  }
}

TEST(CpuMoreOpsTest, ModOnIntegers) {
  std::mt19937 rng(1107);
  for (DType dtype : {DType::kInt64, DType::kInt32}) {
    for (int64_t fmod : {0, 1}) {
      for (const auto& [a, b] : BroadcastShapes()) {
        Tensor y = RandomOf(rng, dtype, b);
        for (int64_t i = 0; i < y.num_elements(); ++i) {  // no remainder by zero
          if (dtype == DType::kInt64 && y.data<int64_t>()[i] == 0) y.data<int64_t>()[i] = -3;
          if (dtype == DType::kInt32 && y.data<int32_t>()[i] == 0) y.data<int32_t>()[i] = 4;
        }
        OneNodeCase c("Mod", 13);
        c.Input(RandomOf(rng, dtype, a)).Input(y).Attr("fmod", fmod);
        c.Check(kExact);
      }
    }
  }
}

// A remainder by zero is the reference's error, when the run meets it.
TEST(CpuMoreOpsTest, IntegerModByZeroFailsTheRun) {
  Graph graph;
  graph.opset = 13;
  auto add = [&](const std::string& name, DType dtype, Dims dims) {
    Value v;
    v.name = name;
    v.dtype = dtype;
    v.dims = std::move(dims);
    v.has_shape = true;
    return graph.AddValue(std::move(v));
  };
  Node node;
  node.name = "m";
  node.op_type = "Mod";
  node.opset = 13;
  node.inputs = {add("x", DType::kInt64, {3}), add("y", DType::kInt64, {3})};
  node.outputs = {add("z", DType::kInt64, {3})};
  const NodeId id = graph.AddNode(node);
  StatusOr<std::unique_ptr<CpuKernel>> kernel = CreateCpuKernel(MakeCpuKernelContext(graph, graph.nodes[id]));
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  ASSERT_FALSE(IsReferenceFallbackCpuKernel(*kernel.value()));
  const int64_t x[3] = {7, 8, 9}, y[3] = {2, 0, 4};
  int64_t z[3] = {};
  Status run = kernel.value()->Run({x, y}, {z}, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.code(), StatusCode::kInvalidInput);
  EXPECT_NE(run.message().find("remainder by zero"), std::string::npos) << run.message();
}

TEST(CpuMoreOpsTest, Where) {
  std::mt19937 rng(1108);
  const std::vector<std::vector<Dims>> shapes = {
      {{2, 6, 5, 7}, {2, 6, 5, 7}, {2, 6, 5, 7}},
      {{1, 1, 5, 7}, {2, 6, 5, 7}, {}},  // a mask over the pixels, a scalar fill
      {{2, 6, 1, 1}, {1, 6, 5, 7}, {2, 1, 5, 7}},
      {{1, 100000}, {1, 100000}, {1}},
  };
  for (DType dtype : {DType::kFloat32, DType::kInt64, DType::kInt32, DType::kUint8, DType::kBool}) {
    for (const std::vector<Dims>& dims : shapes) {
      OneNodeCase c("Where", 16);
      c.Input(RandomOf(rng, DType::kBool, dims[0]))
          .Input(RandomOf(rng, dtype, dims[1]))
          .Input(RandomOf(rng, dtype, dims[2]));
      c.Check(kExact);
    }
  }
  OneNodeCase c("Where", 16);  // channels-last values, a row-major mask
  c.Input(RandomOf(rng, DType::kBool, {1, 8, 5, 6}))
      .Input(RandomFloats(rng, {1, 8, 5, 6}))
      .Input(RandomFloats(rng, {1, 8, 5, 6}));
  c.Layouts({kRM, kCL, kCL}, {kCL});
  c.Check(kExact);
}

TEST(CpuMoreOpsTest, Cast) {
  std::mt19937 rng(1109);
  const std::vector<DType> types = {DType::kFloat32, DType::kFloat64, DType::kInt64, DType::kInt32,
                                    DType::kInt8,    DType::kUint8,   DType::kBool};
  for (DType from : types) {
    for (DType to : types) {
      OneNodeCase c("Cast", 13);
      Tensor x = RandomOf(rng, from, {3, 50});
      if (from == DType::kFloat32) {  // fractions, large values, NaN and infinities
        x = RandomFloats(rng, {3, 50}, -300.f, 300.f);
        x.data<float>()[0] = std::numeric_limits<float>::quiet_NaN();
        x.data<float>()[1] = std::numeric_limits<float>::infinity();
        x.data<float>()[2] = 3e10f;
        x.data<float>()[3] = -0.7f;
      }
      c.Input(x).Attr("to", static_cast<int64_t>(to));
      c.Check(kExact);
    }
  }
  {  // to and from float16, and a large tensor on two threads
    OneNodeCase c("Cast", 13);
    c.Input(RandomFloats(rng, {1, 100000}, -70000.f, 70000.f)).Attr("to", int64_t{10});
    c.Check(kExact);
  }
}

TEST(CpuMoreOpsTest, ExpandAndTile) {
  std::mt19937 rng(1110);
  const std::vector<std::pair<Dims, Dims>> expands = {
      {{1, 8, 1, 1}, {2, 8, 5, 7}}, {{5, 1}, {3, 5, 4}}, {{}, {4, 3}}, {{3, 1}, {3, 100000}},
  };
  for (DType dtype : {DType::kFloat32, DType::kInt64, DType::kBool}) {
    for (const auto& [in, out] : expands) {
      OneNodeCase c("Expand", 13);
      c.Input(RandomOf(rng, dtype, in)).Constant(Tensor::FromInt64(out, {static_cast<int64_t>(out.size())}));
      c.Check(kExact);
    }
    const std::vector<std::pair<Dims, Dims>> tiles = {
        {{2, 3, 4}, {1, 2, 3}}, {{1, 8, 5, 5}, {2, 1, 2, 2}}, {{7}, {5}}, {{3, 1}, {1, 40000}},
        {{2, 0, 3}, {2, 2, 2}},
    };
    for (const auto& [in, repeats] : tiles) {
      OneNodeCase c("Tile", 13);
      c.Input(RandomOf(rng, dtype, in)).Constant(Tensor::FromInt64(repeats, {static_cast<int64_t>(repeats.size())}));
      c.Check(kExact);
    }
  }
  OneNodeCase c("Expand", 13);  // a per-channel value to a channels-last tensor
  c.Input(RandomFloats(rng, {1, 8, 1, 1})).Constant(Tensor::FromInt64({1, 8, 5, 6}, {4}));
  c.Layouts({kRM}, {kCL});
  c.Check(kExact);
}

TEST(CpuMoreOpsTest, ScatterND) {
  std::mt19937 rng(1111);
  struct Spec {
    Dims data;
    Tensor indices;
    const char* reduction;
    bool constant_indices;
  };
  const std::vector<Spec> specs = {
      {{4, 5, 6}, Tensor::FromInt64({1, 3}, {2, 1}), "none", true},
      {{4, 5, 6}, Tensor::FromInt64({0, 2, -1, -5}, {2, 2}), "none", false},
      {{4, 5, 6}, Tensor::FromInt64({1, 1, 2, 3, 2, 5}, {2, 3}), "none", true},
      {{4, 5, 6}, Tensor::FromInt64({2, 2, 0}, {3, 1}), "add", true},  // duplicates accumulate
      {{4, 5, 6}, Tensor::FromInt64({3, 1}, {2, 1}), "mul", false},
      {{4, 5, 6}, Tensor::FromInt64({0, 0}, {2, 1}), "max", true},
      {{4, 5, 6}, Tensor::FromInt64({1, 1}, {2, 1}), "min", true},
  };
  for (const Spec& spec : specs) {
    const int64_t k = spec.indices.dims().back();
    Dims updates(spec.indices.dims().begin(), spec.indices.dims().end() - 1);
    updates.insert(updates.end(), spec.data.begin() + k, spec.data.end());
    OneNodeCase c("ScatterND", 18);
    c.Input(RandomFloats(rng, spec.data)).Input(spec.indices, spec.constant_indices)
        .Input(RandomFloats(rng, updates)).Attr("reduction", std::string(spec.reduction));
    c.Check(kExact);
  }
}

// Reductions as rows or columns of the input's stored order (reduction_cpu.cc), channels-last
// inputs taken as they are, and the shapes that walk per output element.
TEST(CpuMoreOpsTest, ReductionsAlongTheStoredOrder) {
  std::mt19937 rng(1113);
  struct Spec {
    Dims x;
    Dims axes;
    int64_t keepdims;
    Layout layout;
  };
  const std::vector<Spec> specs = {
      {{2, 16, 7, 9}, {2, 3}, 1, kRM},    // rows: H and W of NCHW
      {{2, 16, 7, 9}, {2, 3}, 1, kCL},    // columns: H and W of NHWC (squeeze-excite)
      {{2, 16, 7, 9}, {2, 3}, 0, kCL},
      {{2, 16, 7, 9}, {1}, 1, kCL},       // rows: C of NHWC
      {{2, 16, 7, 9}, {1}, 1, kRM},       // columns: C of NCHW
      {{4, 33, 70}, {2}, 1, kRM},         // the last axis, not a multiple of the lanes
      {{4, 33, 70}, {0, 2}, 0, kRM},      // two runs: per output element
      {{3, 600, 300}, {1, 2}, 1, kRM},    // large rows, two threads
      {{1, 300, 5, 5}, {2, 3}, 1, kCL},   // more columns than a block
      {{2, 16, 7, 9}, {0, 1, 2, 3}, 0, kRM},  // everything
  };
  for (const Spec& spec : specs) {
    for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceL1",
                           "ReduceL2", "ReduceSumSquare", "ReduceProd"}) {
      SCOPED_TRACE(std::string(op) + " " + DimsToString(spec.x) + " axes " +
                   DimsToString(spec.axes) + " " + LayoutName(spec.layout));
      OneNodeCase c(op, 13);
      // Prod of many values in [0.9, 1.1] stays finite.
      const bool prod = std::string(op) == "ReduceProd";
      c.Input(RandomFloats(rng, spec.x, prod ? 0.9f : -1.f, prod ? 1.1f : 1.f));
      if (std::string(op) == "ReduceSum") {
        c.Constant(Tensor::FromInt64(spec.axes, {static_cast<int64_t>(spec.axes.size())}));
      } else {
        c.Attr("axes", spec.axes);
      }
      c.Attr("keepdims", spec.keepdims);
      if (spec.layout == kCL) c.Layouts({kCL}, {kRM});
      const bool exact = std::string(op) == "ReduceMax" || std::string(op) == "ReduceMin";
      c.Check(exact ? kExact : Tolerance{1e-5, 1e-5});
    }
  }
}

}  // namespace
}  // namespace ios
