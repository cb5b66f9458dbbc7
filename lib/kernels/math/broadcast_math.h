// How one operand of a broadcasting elementwise op is read, with fast paths for the shapes CNNs
// use: the same shape as the output (a flat index), a scalar, and a per-channel vector such as a
// [1, C, 1, 1] bias (one division and one modulo). Anything else walks a general IndexMap.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/math/host_device.h"
#include "kernels/math/index_math.h"

namespace ios {

enum class OperandPattern : int32_t {
  kContiguous,  // element i reads i
  kScalar,      // every element reads 0
  kChannel,     // element i reads (i / inner) % channels
  kStrided,     // element i reads MapOffset(map, i)
};

struct OperandMap {
  OperandPattern pattern = OperandPattern::kContiguous;
  int64_t inner = 1;
  int64_t channels = 1;
  IndexMap map;  // used by kStrided
};

IOS_HD int64_t OperandOffset(const OperandMap& operand, int64_t i) {
  switch (operand.pattern) {
    case OperandPattern::kContiguous:
      return i;
    case OperandPattern::kScalar:
      return 0;
    case OperandPattern::kChannel:
      return (i / operand.inner) % operand.channels;
    case OperandPattern::kStrided:
      return MapOffset(operand.map, i);
  }
  return i;
}

// The map for reading a tensor of shape `in` along its broadcast shape `out` (which `in` must
// broadcast to). False when the shape needs more than kMaxIndexRank dims.
inline bool BuildOperandMap(const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                            OperandMap* operand) {
  int64_t in_count = 1;
  int64_t out_count = 1;
  for (int64_t d : in) in_count *= d;
  for (int64_t d : out) out_count *= d;
  OperandMap result;
  if (in_count == out_count) {  // the same shape, up to leading 1s
    *operand = result;
    return true;
  }
  if (in_count == 1) {
    result.pattern = OperandPattern::kScalar;
    *operand = result;
    return true;
  }
  if (!BuildIndexMap(out, BroadcastReadStrides(in, out), 0, &result.map)) return false;
  // One walked dim of stride 1 between broadcast ones: a per-channel vector.
  int32_t walked = -1;
  int32_t walked_count = 0;
  for (int32_t d = 0; d < result.map.rank; ++d) {
    if (result.map.strides[d] != 0) {
      walked = d;
      ++walked_count;
    }
  }
  if (walked_count == 1 && result.map.strides[walked] == 1) {
    result.pattern = OperandPattern::kChannel;
    result.channels = result.map.dims[walked];
    for (int32_t d = walked + 1; d < result.map.rank; ++d) result.inner *= result.map.dims[d];
  } else {
    result.pattern = OperandPattern::kStrided;
  }
  *operand = result;
  return true;
}

}  // namespace ios
