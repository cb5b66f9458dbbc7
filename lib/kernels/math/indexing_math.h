// Index math of Gather and Tile, shared by the CUDA kernels and their host tests.
//
// Gather along `axis`: the output is [outer..., indices..., inner...] and output element
// (o, j, i) copies data element (o, indices[j], i). The index is read per element from the
// indices tensor (it may be computed at run time), so the source offset takes it as an
// argument; a negative index counts from the end, and one outside [-dim, dim) has no source.
//
// Tile: output dim d of size repeats[d] * in[d] is walked as the two dims [repeats[d], in[d]],
// the first with stride 0, so Tile is a gather through an IndexMap (kernels/math/index_math.h).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/math/host_device.h"
#include "kernels/math/index_math.h"

namespace ios {

// ---- Gather ---------------------------------------------------------------------------------

struct GatherMap {
  int64_t inner = 1;        // elements after the axis
  int64_t index_count = 1;  // elements of the indices tensor
  int64_t axis_dim = 1;     // data's dim along the axis
};

// Gather of data `dims` along `axis` (in [0, rank)) with `index_count` indices.
inline GatherMap BuildGatherMap(const std::vector<int64_t>& dims, int64_t axis,
                                int64_t index_count) {
  GatherMap map;
  for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) map.inner *= dims[d];
  map.index_count = index_count;
  map.axis_dim = dims[static_cast<size_t>(axis)];
  return map;
}

// Which element of the indices tensor output element `linear` uses.
IOS_HD int64_t GatherIndexPosition(const GatherMap& map, int64_t linear) {
  return (linear / map.inner) % map.index_count;
}

// The index in [0, dim) that `index` names (negative counts from the end), or -1 when it is
// out of range.
IOS_HD int64_t NormalizeGatherIndex(int64_t index, int64_t dim) {
  if (index < -dim || index >= dim) return -1;
  return index < 0 ? index + dim : index;
}

// The data offset output element `linear` copies, given the index it uses (already
// normalised to [0, axis_dim)).
IOS_HD int64_t GatherSourceOffset(const GatherMap& map, int64_t linear, int64_t index) {
  const int64_t i = linear % map.inner;
  const int64_t outer = linear / map.inner / map.index_count;
  return (outer * map.axis_dim + index) * map.inner + i;
}

// ---- Tile -----------------------------------------------------------------------------------

// Tile of `in` by `repeats` (one per dim, >= 0). False when the map needs more than
// kMaxIndexRank dims after collapsing.
inline bool BuildTileMap(const std::vector<int64_t>& in, const std::vector<int64_t>& repeats,
                         IndexMap* map) {
  const std::vector<int64_t> in_strides = DenseStrides(in);
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  for (size_t d = 0; d < in.size(); ++d) {
    dims.push_back(repeats[d]);
    strides.push_back(0);
    dims.push_back(in[d]);
    strides.push_back(in_strides[d]);
  }
  return BuildIndexMap(dims, strides, 0, map);
}

}  // namespace ios
