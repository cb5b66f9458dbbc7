// The physical layout of a value's bytes. Dims stay logical (ONNX's N, C, spatial...); a layout
// only says in which order the elements are stored:
// - row-major: as ONNX stores them (NCHW for images), the layout of every graph input, output
//   and constant;
// - channels-last: N, spatial..., C (NHWC for images), for float32 values of rank 3 to 5 between
//   ops whose CPU kernels take it (runtime/cpu/cpu_layout.h). oneDNN's fastest convolutions on
//   AVX-512 read and write it, so keeping it between them saves a reorder at each end;
// - channels-blocked-8: oneDNN's nChw8c (N, C / 8, H, W, 8), for float32 [N, C, H, W] with C a
//   multiple of 8 between the ops whose CPU kernels take it, where oneDNN's AVX2 convs want it.
// All layouts hold the same bytes in all, so the memory plan sizes tensors alike.
#pragma once

#include <string>

#include "ir/tensor.h"

namespace ios {

enum class Layout : uint8_t { kRowMajor = 0, kChannelsLast = 1, kChannelsBlocked8 = 2 };

std::string LayoutName(Layout layout);  // "row-major", "channels-last", "channels-blocked-8"
// A short tag for keys that tell tensors apart by layout: "" (row-major), "cl", "b8".
std::string LayoutTag(Layout layout);

// True for dims that a channels-last layout applies to: rank 3 to 5 (N, C, 1 to 3 spatial).
bool HasChannelsLastForm(const Dims& dims);

// True when `dims` stored channels-last are the same bytes as row-major: one channel, or every
// spatial dim 1 (the [N, C, 1, 1] output of a global pool), so that no reorder is needed.
bool ChannelsLastIsRowMajor(const Dims& dims);

// True for dims that the channels-blocked-8 layout applies to: [N, C, H, W] with C a positive
// multiple of 8 (no channel of a block is padding, so the bytes are those of row-major).
bool HasChannelsBlocked8Form(const Dims& dims);

// Element strides of `dims` stored in `layout` (row-major for kRowMajor or for dims without a
// channels-last form). Not for kChannelsBlocked8, which has none: callers check first.
Dims LayoutStrides(const Dims& dims, Layout layout);

}  // namespace ios
