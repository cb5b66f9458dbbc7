// Index arithmetic on dense row-major tensors, shared by the CUDA kernels and their host tests.
// An IndexMap sends the linear index of an output element to the offset of the input element it
// reads: broadcasting (stride 0), transposes (permuted strides), slices (a base and scaled
// strides) and reductions are all such maps. The builders are host code and run once per
// kernel; MapOffset runs per element on either side.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/math/host_device.h"

namespace ios {

// The largest rank a map holds after collapsing (CNN tensors stay well below it).
constexpr int kMaxIndexRank = 8;

struct IndexMap {
  int32_t rank = 0;                     // 0: every output element reads `base`
  int64_t dims[kMaxIndexRank] = {};     // output dims (row-major), each >= 2 after collapsing
  int64_t strides[kMaxIndexRank] = {};  // input elements per step along each output dim
  int64_t base = 0;
};

// The input offset that output element `linear` reads.
IOS_HD int64_t MapOffset(const IndexMap& map, int64_t linear) {
  int64_t offset = map.base;
  for (int32_t d = map.rank - 1; d >= 0; --d) {
    const int64_t dim = map.dims[d];
    offset += (linear % dim) * map.strides[d];
    linear /= dim;
  }
  return offset;
}

// The offset of element `linear` of a tensor whose batch items (`item_elements` each) lie
// `batch_stride` elements apart: a strided view (plan/tensor_views.h).
IOS_HD int64_t BatchSliceOffset(int64_t linear, int64_t item_elements, int64_t batch_stride) {
  return (linear / item_elements) * batch_stride + linear % item_elements;
}

// Builds the map of reading `strides` (in input elements) while walking `dims` row-major, from
// `base`. Size-1 dims are dropped and neighbours the input walks contiguously are merged, so a
// plain copy becomes rank 1. False when more than kMaxIndexRank dims remain.
inline bool BuildIndexMap(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                          int64_t base, IndexMap* map) {
  IndexMap out;
  out.base = base;
  std::vector<int64_t> kept_dims;
  std::vector<int64_t> kept_strides;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    if (!kept_dims.empty() && kept_strides.back() == strides[d] * dims[d]) {
      kept_dims.back() *= dims[d];
      kept_strides.back() = strides[d];
      continue;
    }
    kept_dims.push_back(dims[d]);
    kept_strides.push_back(strides[d]);
  }
  if (kept_dims.size() > static_cast<size_t>(kMaxIndexRank)) return false;
  out.rank = static_cast<int32_t>(kept_dims.size());
  for (size_t d = 0; d < kept_dims.size(); ++d) {
    out.dims[d] = kept_dims[d];
    out.strides[d] = kept_strides[d];
  }
  *map = out;
  return true;
}

// Row-major strides of `dims`, in elements.
inline std::vector<int64_t> DenseStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

// The strides of reading a tensor of shape `in` along the numpy broadcast shape `out` (ranks
// aligned from the right; 0 along broadcast dims). `in` must broadcast to `out`.
inline std::vector<int64_t> BroadcastReadStrides(const std::vector<int64_t>& in,
                                                 const std::vector<int64_t>& out) {
  std::vector<int64_t> strides(out.size(), 0);
  const std::vector<int64_t> own = DenseStrides(in);
  const size_t shift = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) strides[shift + d] = in[d] == 1 ? 0 : own[d];
  return strides;
}

}  // namespace ios
