// Per-element math of the comparison and selection ops, shared by the CUDA kernels and their
// host tests: Equal, Less and Greater give a bool (one byte, 0 or 1) per element pair, Not
// negates a bool, Where picks x where the condition is non-zero, else y. The operands are read
// through the broadcast maps of kernels/math/broadcast_math.h.
#pragma once

#include <cstdint>

#include "kernels/math/host_device.h"

namespace ios {

enum class CompareOpKind : int32_t { kEqual, kLess, kGreater };

// x op y as a bool byte; a NaN operand compares false, as in C++ (and the reference).
template <typename T>
IOS_HD uint8_t ApplyCompare(CompareOpKind op, T x, T y) {
  switch (op) {
    case CompareOpKind::kEqual:
      return x == y ? 1 : 0;
    case CompareOpKind::kLess:
      return x < y ? 1 : 0;
    case CompareOpKind::kGreater:
      return x > y ? 1 : 0;
  }
  return 0;
}

IOS_HD uint8_t ApplyNot(uint8_t x) { return x != 0 ? 0 : 1; }

template <typename T>
IOS_HD T ApplyWhere(uint8_t condition, T x, T y) {
  return condition != 0 ? x : y;
}

}  // namespace ios
