// Numpy broadcasting of an elementwise op's operands into its output, planned once per node and
// walked by each thread over its share: what every broadcasting CPU kernel (the float
// arithmetic of elementwise_cpu.cc, the comparisons and Mod of typed_binary_cpu.cc, Where,
// Expand) shares, so that each keeps only its inner loop.
//
// The plan drops the output's dims of size 1 and merges neighbouring dims that every tensor
// walks contiguously (or not at all). What is left is rows of one inner loop in which each
// operand has a fixed step (1 or 0 when it is stored like the output), so the same-shape case is
// one flat loop and a per-channel [1,C,1,1] operand is N*C rows of "x op scalar".
//
// Tensors are walked with their own element strides: a strided view's batch stride
// (plan/tensor_views.h), or a channels-last layout (ir/layout.h), whose dims are taken in the
// order the output is stored, so that tensors stored alike channels-last are one flat loop too.
// Channels-blocked-8 tensors have no element strides; a kernel takes them only all of one shape,
// walked as row-major (the same order of elements in each).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/layout.h"
#include "ir/tensor.h"
#include "runtime/cpu/cpu_threading.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"

namespace ios {

// A tensor's dims and the element strides it is stored with.
struct StridedDims {
  Dims dims;
  Dims strides;
};

// `dims` stored in `layout`, with the batch stride of a strided view when `batch_stride` is not 0.
inline StridedDims StoredDims(const Dims& dims, Layout layout, int64_t batch_stride = 0) {
  StridedDims t{dims, LayoutStrides(dims, layout)};
  if (batch_stride != 0 && !dims.empty()) t.strides[0] = batch_stride;
  return t;
}

// The output's merged dims (at least one; the last is the inner loop) and each tensor's strides
// over them, in elements (0 where an operand is broadcast).
template <size_t kOperands>
struct BroadcastWalk {
  Dims dims;
  std::array<Dims, kOperands> strides;
  Dims out_strides;

  int64_t inner() const { return dims.back(); }
  int64_t rows() const {
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < dims.size(); ++d) rows *= dims[d];
    return rows;
  }
};

// Strides of `in` read along `out` (aligned from the right, 0 for broadcast dims).
inline Dims AlignedStrides(const StridedDims& in, const Dims& out) {
  Dims strides(out.size(), 0);
  const size_t shift = out.size() - in.dims.size();
  for (size_t i = 0; i < in.dims.size(); ++i)
    strides[shift + i] = in.dims[i] == 1 ? 0 : in.strides[i];
  return strides;
}

template <size_t kOperands>
BroadcastWalk<kOperands> PlanBroadcastWalk(const StridedDims& out,
                                           const std::array<StridedDims, kOperands>& operands) {
  std::array<Dims, kOperands> full;
  for (size_t k = 0; k < kOperands; ++k) full[k] = AlignedStrides(operands[k], out.dims);
  const Dims& o_full = out.strides;
  // The output's dims from its outermost to its innermost (row-major: in order).
  std::vector<size_t> order(out.dims.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return o_full[x] > o_full[y]; });
  BroadcastWalk<kOperands> walk;
  for (size_t i : order) {
    const int64_t n = out.dims[i];
    if (n == 1) continue;
    if (!walk.dims.empty()) {
      // Merge into the previous dim when every tensor continues contiguously (or stays put).
      const size_t last = walk.dims.size() - 1;
      bool merges = walk.out_strides[last] == o_full[i] * n;
      for (size_t k = 0; k < kOperands && merges; ++k)
        merges = walk.strides[k][last] == full[k][i] * n;
      if (merges) {
        walk.dims[last] *= n;
        for (size_t k = 0; k < kOperands; ++k) walk.strides[k][last] = full[k][i];
        walk.out_strides[last] = o_full[i];
        continue;
      }
    }
    walk.dims.push_back(n);
    for (size_t k = 0; k < kOperands; ++k) walk.strides[k].push_back(full[k][i]);
    walk.out_strides.push_back(o_full[i]);
  }
  if (walk.dims.empty()) {  // a single element
    walk.dims = {1};
    for (size_t k = 0; k < kOperands; ++k) walk.strides[k] = {0};
    walk.out_strides = {1};
  }
  return walk;
}

// How a walk is split among threads: units are (row, part of the row), `parts` per row of up to
// `part_size` elements (whole rows when there are enough of them).
struct WalkSplit {
  int64_t parts = 1;
  int64_t part_size = 0;
  int team = 1;
};

template <size_t kOperands>
WalkSplit SplitWalk(const BroadcastWalk<kOperands>& walk, int threads) {
  const int64_t rows = walk.rows();
  const int64_t inner = walk.inner();
  WalkSplit split;
  split.team = ThreadsForWork(threads, rows * inner);
  if (rows == 0 || inner == 0) return split;  // an empty output: no unit
  split.parts = rows >= split.team ? 1 : (split.team + rows - 1) / rows;
  split.part_size = (inner + split.parts - 1) / split.parts;
  return split;
}

// Calls row(offsets, out_offset, count) for each unit in [begin, end): `offsets` are the
// operands' element offsets of the unit's first element (advance each by its inner step,
// walk.strides[k].back(), per element), `out_offset` the output's (its inner step is
// walk.out_strides.back()), `count` the unit's elements. Inline it into the function a thread
// runs (cloned per vector width, cpu_vector_clones.h).
template <size_t kOperands, typename Row>
IOS_ALWAYS_INLINE void WalkUnits(const BroadcastWalk<kOperands>& walk, const WalkSplit& split,
                                 int64_t begin, int64_t end, Row&& row) {
  const size_t rank = walk.dims.size();
  const int64_t inner = walk.dims[rank - 1];
  // The first unit's row index over the outer dims, then advanced like an odometer: a division
  // per row cost more than the row itself where rows are short (a [N,C,1,1] scale of a
  // channels-last tensor is N*H*W rows of C elements).
  Dims index(rank, 0);
  std::array<int64_t, kOperands> offsets{};
  int64_t out_offset = 0;
  int64_t rest = begin / split.parts;
  for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
    index[d] = rest % walk.dims[d];
    rest /= walk.dims[d];
    for (size_t k = 0; k < kOperands; ++k) offsets[k] += index[d] * walk.strides[k][d];
    out_offset += index[d] * walk.out_strides[d];
  }
  int64_t part = begin % split.parts;
  std::array<int64_t, kOperands> at{};
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t from = part * split.part_size;
    const int64_t count = std::min(inner, from + split.part_size) - from;
    if (count > 0) {
      for (size_t k = 0; k < kOperands; ++k) at[k] = offsets[k] + from * walk.strides[k][rank - 1];
      row(at, out_offset + from * walk.out_strides[rank - 1], count);
    }
    if (++part < split.parts) continue;
    part = 0;
    for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
      for (size_t k = 0; k < kOperands; ++k) offsets[k] += walk.strides[k][d];
      out_offset += walk.out_strides[d];
      if (++index[d] < walk.dims[d]) break;
      for (size_t k = 0; k < kOperands; ++k) offsets[k] -= walk.strides[k][d] * walk.dims[d];
      out_offset -= walk.out_strides[d] * walk.dims[d];
      index[d] = 0;
    }
  }
}

// Runs units(begin, end) over every unit of the walk on up to `threads` threads.
template <size_t kOperands, typename Units>
void RunWalk(const BroadcastWalk<kOperands>& walk, const WalkSplit& split, Units&& units) {
  ParallelFor(walk.rows() * split.parts, split.team, units);
}

}  // namespace ios
