#include "ir/layout.h"

#include <cassert>

namespace ios {

std::string LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kChannelsLast: return "channels-last";
    case Layout::kChannelsBlocked8: return "channels-blocked-8";
    case Layout::kRowMajor: break;
  }
  return "row-major";
}

std::string LayoutTag(Layout layout) {
  switch (layout) {
    case Layout::kChannelsLast: return "cl";
    case Layout::kChannelsBlocked8: return "b8";
    case Layout::kRowMajor: break;
  }
  return "";
}

bool HasChannelsLastForm(const Dims& dims) { return dims.size() >= 3 && dims.size() <= 5; }

bool ChannelsLastIsRowMajor(const Dims& dims) {
  if (!HasChannelsLastForm(dims) || dims[1] == 1) return true;
  for (size_t d = 2; d < dims.size(); ++d)
    if (dims[d] != 1) return false;
  return true;
}

bool HasChannelsBlocked8Form(const Dims& dims) {
  return dims.size() == 4 && dims[1] > 0 && dims[1] % 8 == 0;
}

Dims LayoutStrides(const Dims& dims, Layout layout) {
  assert(layout != Layout::kChannelsBlocked8 && "a blocked layout has no element strides");
  if (layout != Layout::kChannelsLast || !HasChannelsLastForm(dims)) return RowMajorStrides(dims);
  // Innermost C, then the spatial dims row-major, then N.
  Dims strides(dims.size(), 0);
  int64_t stride = 1;
  strides[1] = stride;
  stride *= dims[1];
  for (size_t d = dims.size() - 1; d >= 2; --d) {
    strides[d] = stride;
    stride *= dims[d];
  }
  strides[0] = stride;
  return strides;
}

}  // namespace ios
