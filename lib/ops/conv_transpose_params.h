// ConvTranspose's geometry, resolved once from a node's attributes for shape inference, the
// reference kernel and every backend's kernel.
//
// Per spatial axis the transposed convolution computes full = s(in - 1) + output_padding +
// (k - 1)d + 1 positions (input position i, kernel tap t land on i·s + t·d), and the output keeps
// [pads_begin, pads_begin + out) of them. The pads are the `pads` attribute (auto_pad NOTSET and
// no output_shape), 0 (VALID), or split the total full - out, where out is output_shape's or
// SAME's in·s: SAME_UPPER puts the larger half at the end, everything else at the beginning, as
// the ONNX spec says. The total is negative when the requested output is larger than full; the
// halves then round down, and the output has positions that no input reaches (the bias alone).
// All arithmetic is overflow-checked (the attributes come from a file).
#pragma once

#include <cstdint>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

struct ConvTransposeParams {
  int64_t group = 1;
  int64_t out_channels = 0;  // M: W's dim 1 times group
  Dims kernel;               // per spatial axis, as W's dims
  Dims strides;
  Dims dilations;
  Dims output_padding;
  Dims full;        // the full transposed extent per spatial axis
  Dims pads_begin;  // may be negative (see the file comment)
  Dims pads_end;    // full - pads_begin - out; may be negative
  Dims out_dims;    // [N, M, out...]

  size_t spatial_rank() const { return kernel.size(); }
};

// X [N, C, in...] and W [C, M/group, k...]. InvalidInput for ranks or channels that do not fit,
// a bad group, kernel_shape disagreeing with W, bad strides/dilations/pads/auto_pad, an
// output_padding outside [0, max(stride, dilation)) (onnxruntime's bound), an output_shape of
// the wrong length, an output smaller than one position, or any size that overflows int64.
StatusOr<ConvTransposeParams> ParseConvTranspose(const Node& node, const Dims& x, const Dims& w);

}  // namespace ios
