// The data-movement math the CUDA kernels run (kernels/math/tensor_math.h, index_math.h),
// executed on the host and compared with the reference kernels on random shapes: Slice,
// Transpose, DepthToSpace/SpaceToDepth and Expand as IndexMap gathers, Concat and Split as row
// copies, Pad.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kernel_math_test_util.h"
#include "kernels/math/index_math.h"
#include "kernels/math/tensor_math.h"
#include "ops/op_params.h"

namespace ios {
namespace {

using namespace testing;  // NOLINT: the helpers of kernel_math_test_util.h

// out[i] = in[MapOffset(map, i)] by element size, as GatherKernel does.
Tensor GatherThroughMap(const IndexMap& map, const Tensor& in, const Dims& out_dims) {
  Tensor out(in.dtype(), out_dims);
  const size_t elem = DTypeSize(in.dtype());
  for (int64_t i = 0; i < out.num_elements(); ++i)
    std::memcpy(out.raw() + i * elem, in.raw() + MapOffset(map, i) * elem, elem);
  return out;
}

// A row copy moved in units of RowCopyUnitBytes, as the CUDA row copy does it.
void RowCopyInUnits(RowCopy elements, size_t elem, const uint8_t* src, uint8_t* dst) {
  const int64_t e = static_cast<int64_t>(elem);
  const int64_t unit =
      RowCopyUnitBytes({elements.width * e, elements.src_pitch * e, elements.dst_pitch * e});
  RowCopy units = elements;
  units.width = elements.width * e / unit;
  units.src_pitch = elements.src_pitch * e / unit;
  units.dst_pitch = elements.dst_pitch * e / unit;
  for (int64_t i = 0; i < units.rows * units.width; ++i)
    std::memcpy(dst + RowCopyDestination(units, i) * unit, src + RowCopySource(units, i) * unit,
                static_cast<size_t>(unit));
}

int64_t Product(const Dims& dims, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t d = from; d < to; ++d) p *= dims[d];
  return p;
}

TEST(KernelMathTensorTest, IndexMapCollapsesContiguousDims) {
  IndexMap map;
  ASSERT_TRUE(BuildIndexMap({2, 3, 4}, DenseStrides({2, 3, 4}), 0, &map));
  EXPECT_EQ(map.rank, 1);
  EXPECT_EQ(map.dims[0], 24);
  ASSERT_TRUE(BuildIndexMap({1, 1}, {5, 1}, 7, &map));
  EXPECT_EQ(map.rank, 0);
  EXPECT_EQ(MapOffset(map, 0), 7);
  // Nine dims that cannot merge are more than a map holds.
  Dims dims(9, 2);
  Dims strides(9);
  for (size_t d = 0; d < 9; ++d) strides[d] = int64_t{1} << d;  // growing: nothing merges
  EXPECT_FALSE(BuildIndexMap(dims, strides, 0, &map));
}

TEST(KernelMathTensorTest, TransposeMatchesTheReference) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 40; ++trial) {
    const Dims dims = RandomDims(rng, 1, 6, 5);
    Dims perm(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    SCOPED_TRACE(DimsToString(dims) + " perm " + DimsToString(perm));
    const Tensor x = RandomFloats(rng, dims);
    AttributeMap attrs;
    attrs.Set("perm", perm);
    const Tensor want = Reference(MakeNode("Transpose", 13, attrs), {&x})[0];
    IndexMap map;
    ASSERT_TRUE(BuildTransposeMap(dims, perm, &map));
    ExpectTensorsNear(want, GatherThroughMap(map, x, want.dims()), 0, 0);
  }
}

// DepthToSpace and SpaceToDepth as the CUDA kernel runs them: the transpose map of the six-dim
// view that ParseDepthSpace gives, against the reference's element formulas.
TEST(KernelMathTensorTest, DepthToSpaceAndSpaceToDepthMatchTheReference) {
  std::mt19937 rng(36);
  for (int trial = 0; trial < 24; ++trial) {
    const bool to_space = trial % 2 == 0;
    const std::string mode = (trial / 2) % 2 == 0 ? "DCR" : "CRD";
    const int64_t b = RandomInt(rng, 1, 3);
    const int64_t c = RandomInt(rng, 1, 3), h = RandomInt(rng, 1, 4), w = RandomInt(rng, 1, 4);
    const Dims dims = to_space ? Dims{2, c * b * b, h, w} : Dims{2, c, h * b, w * b};
    AttributeMap attrs;
    attrs.Set("blocksize", b);
    attrs.Set("mode", mode);
    const Node node = MakeNode(to_space ? "DepthToSpace" : "SpaceToDepth", 28, attrs);
    SCOPED_TRACE(node.op_type + " " + mode + " " + DimsToString(dims) + " b " + std::to_string(b));
    const Tensor x = RandomFloats(rng, dims);
    const Tensor want = Reference(node, {&x})[0];
    StatusOr<DepthSpaceParams> params = ParseDepthSpace(node, dims);
    ASSERT_TRUE(params.ok()) << params.status().message();
    EXPECT_EQ(params->out_dims, want.dims());
    IndexMap map;
    ASSERT_TRUE(BuildTransposeMap(params->view, params->perm, &map));
    ExpectTensorsNear(want, GatherThroughMap(map, x, want.dims()), 0, 0);
  }
}

TEST(KernelMathTensorTest, SliceMatchesTheReferenceWithClampingAndNegativeSteps) {
  std::mt19937 rng(32);
  for (int trial = 0; trial < 80; ++trial) {
    const Dims dims = RandomDims(rng, 1, 5, 7);
    const int64_t rank = static_cast<int64_t>(dims.size());
    std::vector<int64_t> starts, ends, axes, steps;
    Dims all(rank);
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    for (int64_t i = 0, n = RandomInt(rng, 1, rank); i < n; ++i) {
      axes.push_back(RandomInt(rng, 0, 1) ? all[i] : all[i] - rank);  // some negative axes
      starts.push_back(RandomInt(rng, -10, 10));
      ends.push_back(RandomInt(rng, 0, 4) == 0 ? INT64_MAX : RandomInt(rng, -10, 10));
      int64_t step = RandomInt(rng, -3, 3);
      steps.push_back(step == 0 ? 1 : step);
    }
    SCOPED_TRACE(DimsToString(dims) + " starts " + DimsToString(starts) + " ends " +
                 DimsToString(ends) + " axes " + DimsToString(axes) + " steps " +
                 DimsToString(steps));
    const Tensor x = RandomFloats(rng, dims);
    const Tensor t_starts = Tensor::FromInt64(starts, {static_cast<int64_t>(starts.size())});
    const Tensor t_ends = Tensor::FromInt64(ends, {static_cast<int64_t>(ends.size())});
    const Tensor t_axes = Tensor::FromInt64(axes, {static_cast<int64_t>(axes.size())});
    const Tensor t_steps = Tensor::FromInt64(steps, {static_cast<int64_t>(steps.size())});
    const Tensor want =
        Reference(MakeNode("Slice", 13), {&x, &t_starts, &t_ends, &t_axes, &t_steps})[0];
    Dims begin(rank, 0), step(rank, 1), out = dims;
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      ClampSliceAxis(dims[axis], starts[i], ends[i], steps[i], &begin[axis], &out[axis]);
      step[axis] = steps[i];
    }
    ASSERT_EQ(out, want.dims());
    IndexMap map;
    ASSERT_TRUE(BuildSliceMap(dims, begin, step, out, &map));
    ExpectTensorsNear(want, GatherThroughMap(map, x, out), 0, 0);
  }
}

TEST(KernelMathTensorTest, ExpandMatchesTheReference) {
  std::mt19937 rng(33);
  for (int trial = 0; trial < 30; ++trial) {
    const Dims out = RandomDims(rng, 1, 5, 4);
    Dims in(out.begin() + RandomInt(rng, 0, static_cast<int64_t>(out.size())), out.end());
    for (int64_t& d : in)
      if (RandomInt(rng, 0, 1) == 0) d = 1;
    SCOPED_TRACE(DimsToString(in) + " -> " + DimsToString(out));
    const Tensor x = RandomFloats(rng, in);
    const Tensor shape = Tensor::FromInt64(out, {static_cast<int64_t>(out.size())});
    const Tensor want = Reference(MakeNode("Expand", 13), {&x, &shape})[0];
    IndexMap map;
    ASSERT_TRUE(BuildIndexMap(out, BroadcastReadStrides(in, out), 0, &map));
    ExpectTensorsNear(want, GatherThroughMap(map, x, out), 0, 0);
  }
}

TEST(KernelMathTensorTest, ConcatAndSplitRowCopiesMatchTheReference) {
  std::mt19937 rng(34);
  for (int trial = 0; trial < 40; ++trial) {
    const Dims base = RandomDims(rng, 1, 5, 5);
    const int64_t rank = static_cast<int64_t>(base.size());
    const int64_t axis = RandomInt(rng, 0, rank - 1);
    // Int64, float and int8 elements: the copies move bytes by size.
    const DType dtype =
        trial % 3 == 0 ? DType::kInt64 : (trial % 3 == 1 ? DType::kFloat32 : DType::kInt8);
    const size_t elem = DTypeSize(dtype);
    std::vector<Tensor> parts;
    for (int64_t i = 0, n = RandomInt(rng, 1, 4); i < n; ++i) {
      Dims dims = base;
      dims[axis] = RandomInt(rng, 0, 4);
      Tensor t(dtype, dims);
      for (size_t b = 0; b < t.num_bytes(); ++b) t.raw()[b] = static_cast<uint8_t>(rng());
      parts.push_back(std::move(t));
    }
    SCOPED_TRACE(DimsToString(base) + " axis " + std::to_string(axis) + " " + DTypeName(dtype));
    std::vector<const Tensor*> pointers;
    for (const Tensor& t : parts) pointers.push_back(&t);
    AttributeMap attrs;
    attrs.Set("axis", axis);
    const Tensor whole = Reference(MakeNode("Concat", 13, attrs), pointers)[0];

    // Concat: input i goes to the output at the running offset along the axis.
    const Dims& out = whole.dims();
    const int64_t outer = Product(out, 0, axis);
    const int64_t whole_chunk = Product(out, axis, out.size());
    Tensor concat(dtype, out);
    int64_t offset = 0;
    for (const Tensor& part : parts) {
      const int64_t chunk = Product(part.dims(), axis, part.dims().size());
      RowCopyInUnits(RowCopy{outer, chunk, chunk, whole_chunk}, elem, part.raw(),
                     concat.raw() + offset * elem);
      offset += chunk;
    }
    ExpectTensorsNear(whole, concat, 0, 0);

    // Split: the reverse, with the part sizes from a constant input.
    std::vector<int64_t> sizes;
    for (const Tensor& part : parts) sizes.push_back(part.dims()[axis]);
    const Tensor split = Tensor::FromInt64(sizes, {static_cast<int64_t>(sizes.size())});
    const std::vector<Tensor> want =
        Reference(MakeNode("Split", 13, attrs), {&whole, &split}, parts.size());
    offset = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      Tensor got(dtype, parts[i].dims());
      const int64_t chunk = Product(got.dims(), axis, got.dims().size());
      RowCopyInUnits(RowCopy{outer, chunk, whole_chunk, chunk}, elem, whole.raw() + offset * elem,
                     got.raw());
      offset += chunk;
      ExpectTensorsNear(want[i], got, 0, 0);
    }
  }
}

TEST(KernelMathTensorTest, RowCopyUnitIsTheLargestCommonPowerOfTwo) {
  EXPECT_EQ(RowCopyUnitBytes({64, 128, 32}), 16);
  EXPECT_EQ(RowCopyUnitBytes({64, 24}), 8);
  EXPECT_EQ(RowCopyUnitBytes({12, 16}), 4);
  EXPECT_EQ(RowCopyUnitBytes({6}), 2);
  EXPECT_EQ(RowCopyUnitBytes({64, 3}), 1);
  EXPECT_EQ(RowCopyUnitBytes({0, 0}), 16);
}

TEST(KernelMathTensorTest, PadMatchesTheReferenceInEveryMode) {
  std::mt19937 rng(35);
  const std::vector<std::pair<const char*, PadMode>> modes = {{"constant", PadMode::kConstant},
                                                              {"reflect", PadMode::kReflect},
                                                              {"edge", PadMode::kEdge},
                                                              {"wrap", PadMode::kWrap}};
  for (int trial = 0; trial < 30; ++trial) {
    const Dims dims = RandomDims(rng, 1, 4, 5);
    const int64_t rank = static_cast<int64_t>(dims.size());
    for (const auto& [name, mode] : modes) {
      std::vector<int64_t> pads(2 * rank);
      for (int64_t d = 0; d < rank; ++d) {
        // Crops (negative pads) too, but never past the input; reflect needs pads < dim.
        const int64_t limit = mode == PadMode::kReflect ? dims[d] - 1 : 3;
        pads[d] = RandomInt(rng, -1, std::max<int64_t>(limit, 0));
        pads[rank + d] = RandomInt(rng, -1, std::max<int64_t>(limit, 0));
        if (dims[d] + pads[d] + pads[rank + d] < 0) pads[d] = pads[rank + d] = 0;
        if (mode == PadMode::kReflect) {
          pads[d] = std::min(pads[d], dims[d] - 1);
          pads[rank + d] = std::min(pads[rank + d], dims[d] - 1);
        }
      }
      SCOPED_TRACE(std::string(name) + " " + DimsToString(dims) + " pads " + DimsToString(pads));
      const Tensor x = RandomFloats(rng, dims);
      const Tensor t_pads = Tensor::FromInt64(pads, {2 * rank});
      const Tensor value = Tensor::FromFloat({2.5f}, {});
      AttributeMap attrs;
      attrs.Set("mode", std::string(name));
      const Tensor want = Reference(MakeNode("Pad", 13, attrs), {&x, &t_pads, &value})[0];
      Dims begin(pads.begin(), pads.begin() + rank);
      PadMap map;
      ASSERT_TRUE(BuildPadMap(mode, dims, begin, want.dims(), &map));
      Tensor got(DType::kFloat32, want.dims());
      for (int64_t i = 0; i < got.num_elements(); ++i) {
        const int64_t from = PadSourceOffset(map, i);
        got.data<float>()[i] = from < 0 ? 2.5f : x.data<float>()[from];
      }
      ExpectTensorsNear(want, got, 0, 0);
    }
  }
}

}  // namespace
}  // namespace ios

namespace ios {
namespace {

// A strided view's element i (BatchSliceOffset, used by the CUDA epilogue on channel slices of
// a wider tensor) is the element that Split puts at index i of that slice.
TEST(KernelMathTensorTest, BatchSliceOffsetAddressesTheSplitSlice) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t batch = RandomInt(rng, 1, 4);
    const Dims spatial = RandomDims(rng, 1, 2, 5);
    const std::vector<int64_t> sizes = {RandomInt(rng, 1, 4), RandomInt(rng, 1, 4),
                                        RandomInt(rng, 1, 4)};
    Dims whole_dims = {batch, sizes[0] + sizes[1] + sizes[2]};
    whole_dims.insert(whole_dims.end(), spatial.begin(), spatial.end());
    Tensor whole(DType::kFloat32, whole_dims);
    for (int64_t i = 0; i < whole.num_elements(); ++i)
      whole.data<float>()[i] = static_cast<float>(i);
    SCOPED_TRACE(DimsToString(whole_dims));
    AttributeMap attrs;
    attrs.Set("axis", int64_t{1});
    const Tensor split = Tensor::FromInt64(sizes, {3});
    const std::vector<Tensor> parts =
        Reference(MakeNode("Split", 13, attrs), {&whole, &split}, sizes.size());
    const int64_t plane = Product(spatial, 0, spatial.size());
    const int64_t batch_stride = whole_dims[1] * plane;
    int64_t first_channel = 0;
    for (size_t s = 0; s < parts.size(); ++s) {
      const float* base = whole.data<float>() + first_channel * plane;
      const int64_t item = sizes[s] * plane;
      for (int64_t i = 0; i < parts[s].num_elements(); ++i)
        ASSERT_EQ(base[BatchSliceOffset(i, item, batch_stride)], parts[s].data<float>()[i])
            << "slice " << s << " element " << i;
      first_channel += sizes[s];
    }
  }
}

}  // namespace
}  // namespace ios
