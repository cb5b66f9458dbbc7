#include "ir/layout.h"

namespace ios {

std::string LayoutName(Layout layout) {
  return layout == Layout::kChannelsLast ? "channels-last" : "row-major";
}

bool HasChannelsLastForm(const Dims& dims) { return dims.size() >= 3 && dims.size() <= 5; }

bool ChannelsLastIsRowMajor(const Dims& dims) {
  if (!HasChannelsLastForm(dims) || dims[1] == 1) return true;
  for (size_t d = 2; d < dims.size(); ++d)
    if (dims[d] != 1) return false;
  return true;
}

Dims LayoutStrides(const Dims& dims, Layout layout) {
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
