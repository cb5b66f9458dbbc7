#include "ops/conv_transpose_params.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ops/op_util.h"
#include "util/checked_int.h"

namespace ios {
namespace {

// a / 2 rounded toward negative infinity (the total padding may be negative).
int64_t FloorHalf(int64_t a) { return a >= 0 ? a / 2 : -((-(a + 1)) / 2) - 1; }

}  // namespace

StatusOr<ConvTransposeParams> ParseConvTranspose(const Node& node, const Dims& x, const Dims& w) {
  if (x.size() < 3) {
    return InvalidInput("input X has shape " + DimsToString(x) +
                        "; expected at least 3 dims (N, C, spatial...)");
  }
  if (w.size() != x.size()) {
    return InvalidInput("weights W have shape " + DimsToString(w) + " (rank " +
                        std::to_string(w.size()) + ") but input X has rank " +
                        std::to_string(x.size()));
  }
  const size_t n = x.size() - 2;
  ConvTransposeParams p;
  p.kernel.assign(w.begin() + 2, w.end());
  if (node.attrs.Has("kernel_shape")) {
    IOS_ASSIGN_OR_RETURN(Dims attr, node.attrs.GetInts("kernel_shape", {}));
    if (attr != p.kernel) {
      return InvalidInput("attribute 'kernel_shape' " + DimsToString(attr) +
                          " does not match the weights' spatial dims " + DimsToString(p.kernel));
    }
  }
  IOS_ASSIGN_OR_RETURN(p.group, node.attrs.GetInt("group", 1));
  if (p.group < 1) {
    return InvalidInput("attribute 'group' is " + std::to_string(p.group) + "; must be >= 1");
  }
  // W is [C, M/group, k...].
  if (w[0] != x[1]) {
    return InvalidInput("input X has " + std::to_string(x[1]) + " channels but weights W " +
                        DimsToString(w) + " expect " + std::to_string(w[0]) +
                        " (ConvTranspose weights are [C, M/group, k...])");
  }
  if (x[1] % p.group != 0) {
    return InvalidInput("group " + std::to_string(p.group) +
                        " does not divide the input channels " + std::to_string(x[1]));
  }
  IOS_ASSIGN_OR_RETURN(p.out_channels,
                       (CheckedInt64(w[1]) * p.group).OrError("the output channel count"));
  IOS_ASSIGN_OR_RETURN(WindowParams window, ReadWindowParams(node, p.kernel));
  p.strides = window.strides;
  p.dilations = window.dilations;
  IOS_ASSIGN_OR_RETURN(p.output_padding, node.attrs.GetInts("output_padding", Dims(n, 0)));
  if (p.output_padding.size() != n) {
    return InvalidInput("attribute 'output_padding' " + DimsToString(p.output_padding) + " has " +
                        std::to_string(p.output_padding.size()) + " values, expected " +
                        std::to_string(n));
  }
  IOS_ASSIGN_OR_RETURN(Dims requested, node.attrs.GetInts("output_shape", {}));
  // output_shape may list the spatial dims only or the whole shape; only the spatial part counts.
  if (requested.size() == n + 2) requested.erase(requested.begin(), requested.begin() + 2);
  if (!requested.empty() && requested.size() != n) {
    return InvalidInput("attribute 'output_shape' " + DimsToString(requested) + " has " +
                        std::to_string(requested.size()) + " values, expected " +
                        std::to_string(n));
  }
  const bool same = window.auto_pad == "SAME_UPPER" || window.auto_pad == "SAME_LOWER";
  const bool valid = window.auto_pad == "VALID";
  p.out_dims = {x[0], p.out_channels};
  for (size_t i = 0; i < n; ++i) {
    const std::string axis = "spatial axis " + std::to_string(i);
    const int64_t s = p.strides[i];
    const int64_t op = p.output_padding[i];
    // onnxruntime enforces this bound; PyTorch exports satisfy it.
    const int64_t limit = std::max(s, p.dilations[i]);
    if (op < 0 || op >= limit) {
      return InvalidInput("output_padding[" + std::to_string(i) + "] is " + std::to_string(op) +
                          "; it must be >= 0 and less than max(stride, dilation) = " +
                          std::to_string(limit));
    }
    const CheckedInt64 full =
        CheckedInt64(s) * (CheckedInt64(x[2 + i]) - 1) + op + (CheckedInt64(p.kernel[i]) - 1) *
                                                                   p.dilations[i] + 1;
    IOS_ASSIGN_OR_RETURN(int64_t full_size, full.OrError(axis + "'s transposed extent"));
    int64_t out = 0;
    int64_t begin = 0;
    if (!requested.empty() || same) {
      IOS_ASSIGN_OR_RETURN(out, (!requested.empty() ? CheckedInt64(requested[i])
                                                    : CheckedInt64(x[2 + i]) * s)
                                    .OrError(axis + "'s output size"));
      IOS_ASSIGN_OR_RETURN(int64_t total,
                           (CheckedInt64(full_size) - out).OrError(axis + "'s total padding"));
      const int64_t half = FloorHalf(total);
      begin = window.auto_pad == "SAME_UPPER" ? half : total - half;
    } else if (valid) {
      out = full_size;
    } else {
      begin = window.pads[i];
      IOS_ASSIGN_OR_RETURN(out, (CheckedInt64(full_size) - window.pads[i] - window.pads[n + i])
                                    .OrError(axis + "'s output size"));
    }
    if (out < 1) {
      return InvalidInput(axis + " would have output size " + std::to_string(out) + " (pads " +
                          DimsToString(window.pads) +
                          " remove more than the transposed convolution produces)");
    }
    IOS_ASSIGN_OR_RETURN(int64_t end,
                         (CheckedInt64(full_size) - begin - out).OrError(axis + "'s end padding"));
    p.full.push_back(full_size);
    p.pads_begin.push_back(begin);
    p.pads_end.push_back(end);
    p.out_dims.push_back(out);
  }
  return p;
}

}  // namespace ios
