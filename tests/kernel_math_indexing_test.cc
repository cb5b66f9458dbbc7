// The Gather and Tile math the CUDA kernels run (kernels/math/indexing_math.h), executed on the
// host and compared with the reference kernels: Gather along every axis (negative axes too)
// with int32 and int64 indices of rank 0 to 2, negative indices included, on several element
// sizes; Tile as an IndexMap gather on random shapes and repeats (0 and 1 included).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel_math_test_util.h"
#include "kernels/math/index_math.h"
#include "kernels/math/indexing_math.h"

namespace ios {
namespace {

using namespace testing;  // NOLINT: the helpers of kernel_math_test_util.h

Tensor RandomBytes(std::mt19937& rng, DType dtype, const Dims& dims) {
  Tensor t(dtype, dims);
  for (size_t b = 0; b < t.num_bytes(); ++b) t.raw()[b] = static_cast<uint8_t>(rng());
  return t;
}

// Gather element by element as GatherKernel does: the index read from the indices tensor,
// normalised, then the source offset (an out-of-range index would write zeros).
Tensor GatherThroughMap(const Tensor& data, const Tensor& indices, int64_t axis,
                        const Dims& out_dims) {
  const GatherMap map = BuildGatherMap(data.dims(), axis, indices.num_elements());
  Tensor out(data.dtype(), out_dims);
  const size_t elem = DTypeSize(data.dtype());
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    const int64_t position = GatherIndexPosition(map, i);
    const int64_t raw = indices.dtype() == DType::kInt32 ? indices.data<int32_t>()[position]
                                                         : indices.data<int64_t>()[position];
    const int64_t index = NormalizeGatherIndex(raw, map.axis_dim);
    EXPECT_GE(index, 0);
    if (index < 0) continue;
    std::memcpy(out.raw() + i * elem, data.raw() + GatherSourceOffset(map, i, index) * elem, elem);
  }
  return out;
}

TEST(KernelMathIndexingTest, GatherMatchesTheReference) {
  std::mt19937 rng(61);
  const DType dtypes[] = {DType::kFloat32, DType::kInt64, DType::kUint8, DType::kFloat16};
  for (int trial = 0; trial < 80; ++trial) {
    const Dims dims = RandomDims(rng, 1, 4, 5);
    const int64_t rank = static_cast<int64_t>(dims.size());
    const int64_t axis = RandomInt(rng, 0, rank - 1);
    const int64_t attr_axis = RandomInt(rng, 0, 1) ? axis : axis - rank;
    const Dims index_dims = RandomDims(rng, 0, 2, 3);
    const bool int32 = trial % 2 == 0;
    Tensor indices(int32 ? DType::kInt32 : DType::kInt64, index_dims);
    for (int64_t i = 0; i < indices.num_elements(); ++i) {
      const int64_t v = RandomInt(rng, -dims[axis], dims[axis] - 1);  // negatives count back
      if (int32) {
        indices.data<int32_t>()[i] = static_cast<int32_t>(v);
      } else {
        indices.data<int64_t>()[i] = v;
      }
    }
    const DType dtype = dtypes[trial % 4];
    SCOPED_TRACE(DimsToString(dims) + " axis " + std::to_string(attr_axis) + " indices " +
                 DimsToString(index_dims) + " " + DTypeName(indices.dtype()) + " data " +
                 DTypeName(dtype));
    const Tensor data = RandomBytes(rng, dtype, dims);
    AttributeMap attrs;
    attrs.Set("axis", attr_axis);
    const Tensor want = Reference(MakeNode("Gather", 13, attrs), {&data, &indices})[0];
    ExpectTensorsNear(want, GatherThroughMap(data, indices, axis, want.dims()), 0, 0);
  }
}

TEST(KernelMathIndexingTest, GatherIndexNormalisation) {
  EXPECT_EQ(NormalizeGatherIndex(0, 4), 0);
  EXPECT_EQ(NormalizeGatherIndex(3, 4), 3);
  EXPECT_EQ(NormalizeGatherIndex(-1, 4), 3);
  EXPECT_EQ(NormalizeGatherIndex(-4, 4), 0);
  EXPECT_EQ(NormalizeGatherIndex(4, 4), -1);
  EXPECT_EQ(NormalizeGatherIndex(-5, 4), -1);
}

TEST(KernelMathIndexingTest, TileMatchesTheReference) {
  std::mt19937 rng(62);
  for (int trial = 0; trial < 60; ++trial) {
    const Dims dims = RandomDims(rng, 1, 4, 4);
    std::vector<int64_t> repeats(dims.size());
    for (int64_t& r : repeats) r = RandomInt(rng, 0, 5) == 0 ? 0 : RandomInt(rng, 1, 3);
    if (trial % 3 == 0) repeats.assign(dims.size(), 1);
    SCOPED_TRACE(DimsToString(dims) + " repeats " + DimsToString(repeats));
    const DType dtype = trial % 2 == 0 ? DType::kFloat32 : DType::kInt64;
    const Tensor x = RandomBytes(rng, dtype, dims);
    const Tensor r = Tensor::FromInt64(repeats, {static_cast<int64_t>(repeats.size())});
    const Tensor want = Reference(MakeNode("Tile", 13), {&x, &r})[0];
    IndexMap map;
    ASSERT_TRUE(BuildTileMap(dims, repeats, &map));
    Tensor got(dtype, want.dims());
    const size_t elem = DTypeSize(dtype);
    for (int64_t i = 0; i < got.num_elements(); ++i)
      std::memcpy(got.raw() + i * elem, x.raw() + MapOffset(map, i) * elem, elem);
    ExpectTensorsNear(want, got, 0, 0);
  }
}

TEST(KernelMathIndexingTest, TileOfAnNchwTensorFitsAMap) {
  IndexMap map;
  ASSERT_TRUE(BuildTileMap({1, 64, 7, 7}, {1, 1, 2, 2}, &map));
  EXPECT_EQ(map.rank, 5);  // [64, 2, 7, 2, 7]
  ASSERT_TRUE(BuildTileMap({2, 3}, {1, 1}, &map));
  EXPECT_EQ(map.rank, 1);  // a plain copy
}

}  // namespace
}  // namespace ios
