// Device-free checks of the own CUDA kernels for Cast, Equal, Less, Greater, Not, Where, Mean,
// Gather and Tile: the table lists them, and CreateCudaKernel accepts the cases they cover and
// refuses the rest with Unsupported (or InvalidInput for a malformed node) naming the node and op.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "own_kernel_test_graph.h"
#include "runtime/cuda/kernels/cuda_kernel.h"

namespace ios {
namespace {

using testing::ExpectAccepted;
using testing::ExpectRefused;
using testing::Ints;
using testing::OneNodeGraph;

Tensor Filled(DType dtype, Dims dims) {
  Tensor t(dtype, std::move(dims));
  for (size_t b = 0; b < t.num_bytes(); ++b) t.raw()[b] = static_cast<uint8_t>(b % 2);
  return t;
}

TEST(MoreOwnCudaKernelsTest, TheTableListsTheNewOps) {
  for (const char* op : {"Cast", "Equal", "Less", "Greater", "Not", "Where", "Mean", "Gather",
                         "Tile", "ConvTranspose"}) {
    EXPECT_TRUE(CudaSupportsOp(op)) << op;
  }
  // Folded at compile time: no kernel.
  for (const char* op : {"Constant", "ConstantOfShape", "Shape", "Range"})
    EXPECT_FALSE(CudaSupportsOp(op)) << op;
}

TEST(MoreOwnCudaKernelsTest, CastAcceptsEveryReferencePairAndCopiesSameTypes) {
  const std::vector<std::pair<DType, int64_t>> types = {
      {DType::kFloat32, 1}, {DType::kFloat64, 11}, {DType::kFloat16, 10}, {DType::kInt64, 7},
      {DType::kInt32, 6},   {DType::kInt8, 3},     {DType::kUint8, 2},    {DType::kBool, 9}};
  for (const auto& [from, unused] : types) {
    for (const auto& [to, onnx] : types) {
      OneNodeGraph g("Cast", 13);
      g.Input(Filled(from, {2, 3})).Attr("to", onnx);
      SCOPED_TRACE(DTypeName(from) + " -> " + DTypeName(to));
      ExpectAccepted(g);
    }
  }
}

TEST(MoreOwnCudaKernelsTest, ComparisonsNotAndWhere) {
  for (const char* op : {"Equal", "Less", "Greater"}) {
    for (DType dtype : {DType::kFloat32, DType::kInt64, DType::kInt32, DType::kUint8}) {
      OneNodeGraph g(op, 13);
      g.Input(Filled(dtype, {2, 3, 4})).Constant(Filled(dtype, {3, 1}));
      ExpectAccepted(g);
    }
  }
  {
    OneNodeGraph g("Equal", 13);
    g.Input(Filled(DType::kBool, {4})).Input(Filled(DType::kBool, {1}));
    ExpectAccepted(g);
  }
  {  // Less on bool: the reference has no such comparison either.
    OneNodeGraph g("Less", 13);
    g.Input(Filled(DType::kBool, {4})).Input(Filled(DType::kBool, {4}));
    ExpectRefused(g, StatusCode::kUnsupported, "input type bool");
  }
  {  // float16 comparisons are not covered.
    OneNodeGraph g("Greater", 13);
    g.Input(Filled(DType::kFloat16, {4})).Input(Filled(DType::kFloat16, {4}));
    ExpectRefused(g, StatusCode::kUnsupported, "float16");
  }
  {
    OneNodeGraph g("Not", 13);
    g.Input(Filled(DType::kBool, {3, 5}));
    ExpectAccepted(g);
  }
  for (DType dtype : {DType::kFloat32, DType::kInt64, DType::kUint8, DType::kFloat16}) {
    OneNodeGraph g("Where", 16);
    g.Input(Filled(DType::kBool, {2, 1, 4}))
        .Input(Filled(dtype, {3, 1}))
        .Constant(Filled(dtype, {}));
    ExpectAccepted(g);
  }
  {  // Broadcasting over more dims than an index map holds.
    OneNodeGraph g("Equal", 13);
    g.Input(Filled(DType::kFloat32, {2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2}))
        .Input(Filled(DType::kFloat32, {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1}));
    ExpectRefused(g, StatusCode::kUnsupported, "broadcasting over more than");
  }
}

TEST(MoreOwnCudaKernelsTest, MeanIsFloat32) {
  {
    OneNodeGraph g("Mean", 13);
    g.Input(Filled(DType::kFloat32, {2, 3, 1}))
        .Input(Filled(DType::kFloat32, {4}))
        .Constant(Filled(DType::kFloat32, {3, 1}));
    ExpectAccepted(g);
  }
  {
    OneNodeGraph g("Mean", 13);
    g.Input(Filled(DType::kFloat32, {5}));
    ExpectAccepted(g);
  }
  {
    OneNodeGraph g("Mean", 13);
    g.Input(Filled(DType::kFloat64, {5})).Input(Filled(DType::kFloat64, {5}));
    ExpectRefused(g, StatusCode::kUnsupported, "float64");
  }
}

TEST(MoreOwnCudaKernelsTest, GatherTakesConstantOrRuntimeIndices) {
  {  // Exporters' Shape -> Gather pattern on a runtime tensor: int64 data, scalar index.
    OneNodeGraph g("Gather", 13);
    g.Input(Filled(DType::kInt64, {4}))
        .Constant(Tensor::FromInt64({-1}, {}))
        .Attr("axis", int64_t{0});
    ExpectAccepted(g);
  }
  {
    OneNodeGraph g("Gather", 13);
    Tensor indices(DType::kInt32, {2, 2});
    g.Input(Filled(DType::kFloat32, {3, 5, 4})).Constant(indices).Attr("axis", int64_t{-2});
    ExpectAccepted(g, /*runtime_input=*/1);
  }
  {  // Any element size the kernels move: float64 too.
    OneNodeGraph g("Gather", 13);
    g.Input(Filled(DType::kFloat64, {3, 2})).Constant(Ints({2, 0}));
    ExpectAccepted(g);
  }
}

TEST(MoreOwnCudaKernelsTest, TileDerivesRepeatsFromThePlannedShape) {
  {
    OneNodeGraph g("Tile", 13);
    g.Input(Filled(DType::kFloat32, {1, 3, 2, 2})).Constant(Ints({2, 1, 3, 2}));
    ExpectAccepted(g);
  }
  {  // Repeats computed at run time: the plan's output shape still says them.
    OneNodeGraph g("Tile", 13);
    g.Input(Filled(DType::kInt64, {2, 3})).Constant(Ints({0, 4}));
    ExpectAccepted(g, /*runtime_input=*/1);
  }
  {  // Ten non-trivial tiled dims need more than an index map holds.
    OneNodeGraph g("Tile", 13);
    g.Input(Filled(DType::kUint8, {2, 2, 2, 2, 2})).Constant(Ints({2, 2, 2, 2, 2}));
    ExpectRefused(g, StatusCode::kUnsupported, "non-trivial dimensions");
  }
}

}  // namespace
}  // namespace ios
