// Index math of the data-movement ops (Slice, Transpose, Expand, Concat, Split, Pad), shared by
// the CUDA kernels and their host tests. Slice, Transpose and Expand are gathers through an
// IndexMap; Concat and Split copy rows between buffers of different pitches; Pad maps each
// output element back to its source element or to the pad value.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/math/host_device.h"
#include "kernels/math/index_math.h"

namespace ios {

// ---- Slice ----------------------------------------------------------------------------------

// ONNX's Slice rule for one axis of size `dim`: negative starts/ends count from the end, then
// they clamp to [0, dim] (step > 0) or [0, dim - 1] / [-1, dim - 1] (step < 0). Gives the first
// index read and the number of elements. `step` must not be 0; any other int64 (a file's) is
// fine: the count is ceil(span / |step|) written so that no step overflows.
IOS_HD void ClampSliceAxis(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t* begin,
                           int64_t* size) {
  int64_t s = start < 0 ? start + dim : start;
  int64_t e = end < 0 ? end + dim : end;
  if (step > 0) {
    s = s < 0 ? 0 : (s > dim ? dim : s);
    e = e < 0 ? 0 : (e > dim ? dim : e);
    *size = e > s ? (e - s - 1) / step + 1 : 0;
  } else {
    s = s < 0 ? 0 : (s > dim - 1 ? dim - 1 : s);
    e = e < -1 ? -1 : (e > dim - 1 ? dim - 1 : e);
    // (s - e - 1) / step truncates toward zero: -floor((s - e - 1) / |step|), without negating
    // step (INT64_MIN has no negation).
    *size = s > e ? 1 - (s - e - 1) / step : 0;
  }
  *begin = s;
}

// Reading `in` from begin[d] with step[d] per output index along every dim, giving `out`.
inline bool BuildSliceMap(const std::vector<int64_t>& in, const std::vector<int64_t>& begin,
                          const std::vector<int64_t>& step, const std::vector<int64_t>& out,
                          IndexMap* map) {
  const std::vector<int64_t> in_strides = DenseStrides(in);
  std::vector<int64_t> strides(in.size());
  int64_t base = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    base += begin[d] * in_strides[d];
    // An axis of one output element never steps, and its step may be any int64 (a file's),
    // whose product with the stride would overflow; on longer axes every step stays inside.
    strides[d] = out[d] > 1 ? step[d] * in_strides[d] : 0;
  }
  return BuildIndexMap(out, strides, base, map);
}

// Output dim d is input dim perm[d].
inline bool BuildTransposeMap(const std::vector<int64_t>& in, const std::vector<int64_t>& perm,
                              IndexMap* map) {
  const std::vector<int64_t> in_strides = DenseStrides(in);
  std::vector<int64_t> dims(perm.size());
  std::vector<int64_t> strides(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) {
    dims[d] = in[perm[d]];
    strides[d] = in_strides[perm[d]];
  }
  return BuildIndexMap(dims, strides, 0, map);
}

// ---- Concat, Split --------------------------------------------------------------------------

// `rows` rows of `width` units, read at src_pitch and written at dst_pitch units apart. Concat
// copies each input into the output this way (rows = the product of the dims before the axis,
// width = the input's dims[axis:] product, dst_pitch = the output's), Split the reverse.
struct RowCopy {
  int64_t rows = 0;
  int64_t width = 0;
  int64_t src_pitch = 0;
  int64_t dst_pitch = 0;
};

IOS_HD int64_t RowCopySource(const RowCopy& copy, int64_t i) {
  return (i / copy.width) * copy.src_pitch + i % copy.width;
}
IOS_HD int64_t RowCopyDestination(const RowCopy& copy, int64_t i) {
  return (i / copy.width) * copy.dst_pitch + i % copy.width;
}

// The largest power-of-two unit (up to 16 bytes) that divides every byte count and address of a
// row copy, so that wide rows move in 16-byte loads.
inline int64_t RowCopyUnitBytes(const std::vector<int64_t>& byte_values) {
  int64_t unit = 16;
  for (int64_t v : byte_values)
    while (unit > 1 && v % unit != 0) unit /= 2;
  return unit;
}

// ---- Pad ------------------------------------------------------------------------------------

enum class PadMode : int32_t { kConstant, kReflect, kEdge, kWrap };

struct PadMap {
  PadMode mode = PadMode::kConstant;
  int32_t rank = 0;
  int64_t out_dims[kMaxIndexRank] = {};
  int64_t in_dims[kMaxIndexRank] = {};
  int64_t in_strides[kMaxIndexRank] = {};
  int64_t begin[kMaxIndexRank] = {};  // pads before each dim (negative crops)
};

// Maps an index outside [0, dim) back inside for reflect/edge/wrap (numpy's modes; dim > 0).
IOS_HD int64_t PadSourceIndex(PadMode mode, int64_t i, int64_t dim) {
  if (i >= 0 && i < dim) return i;
  if (mode == PadMode::kEdge) return i < 0 ? 0 : dim - 1;
  if (mode == PadMode::kWrap) return ((i % dim) + dim) % dim;
  if (dim == 1) return 0;
  const int64_t period = 2 * (dim - 1);
  const int64_t r = ((i % period) + period) % period;
  return r < dim ? r : period - r;
}

// The input offset that output element `linear` copies, or -1 when it is the pad value.
IOS_HD int64_t PadSourceOffset(const PadMap& map, int64_t linear) {
  int64_t offset = 0;
  for (int32_t d = map.rank - 1; d >= 0; --d) {
    int64_t i = linear % map.out_dims[d] - map.begin[d];
    linear /= map.out_dims[d];
    if (i < 0 || i >= map.in_dims[d]) {
      if (map.mode == PadMode::kConstant) return -1;
      i = PadSourceIndex(map.mode, i, map.in_dims[d]);
    }
    offset += i * map.in_strides[d];
  }
  return offset;
}

// False when the rank exceeds kMaxIndexRank.
inline bool BuildPadMap(PadMode mode, const std::vector<int64_t>& in,
                        const std::vector<int64_t>& begin, const std::vector<int64_t>& out,
                        PadMap* map) {
  if (in.size() > static_cast<size_t>(kMaxIndexRank)) return false;
  PadMap result;
  result.mode = mode;
  result.rank = static_cast<int32_t>(in.size());
  const std::vector<int64_t> strides = DenseStrides(in);
  for (size_t d = 0; d < in.size(); ++d) {
    result.out_dims[d] = out[d];
    result.in_dims[d] = in[d];
    result.in_strides[d] = strides[d];
    result.begin[d] = begin[d];
  }
  *map = result;
  return true;
}

}  // namespace ios
