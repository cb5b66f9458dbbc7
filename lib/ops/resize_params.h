// Resize's and Upsample's parameters, read from a node, its input types and its constant
// scales/sizes and checked once, for the op registry's shape inference and every backend's
// kernel factory (CPU and CUDA). The reference kernel reads its inputs at run time and computes
// the same output shape itself (kernels/reference/resize_ref.cc).
//
// Forms: Upsample 7 (scales attribute) and 9 (scales input), Resize 10 (scales input), 11 and 12
// (roi, scales, sizes), 13 (roi, scales and sizes optional) and 18/19 (axes,
// keep_aspect_ratio_policy, antialias; half_pixel_symmetric from 19). Before opset 11 the
// coordinates are asymmetric and nearest rounds as onnxruntime does (kSimple).
#pragma once

#include <vector>

#include "ir/tensor.h"
#include "kernels/math/resize_math.h"
#include "ops/op_params.h"
#include "util/status.h"

namespace ios {

struct ResizeParams {
  ResizeInterpolation interpolation;
  std::vector<ResizeAxis> axes;  // one per dim of X; ResizeAxisIsIdentity for the untouched ones
  Dims out_dims;
};

// Output dims: floor(in * scale) for `scales`, the product taken in float as onnxruntime takes
// it (onnx 1.23's shape inference and Python reference take it in double; the two differ only
// where in * scale lies within float rounding below an integer: 10 * 0.7f is 7 in float, 6 in
// double); `sizes` as given, or scaled by one common factor and rounded half up under
// keep_aspect_ratio_policy not_larger / not_smaller (in float, as both onnx and onnxruntime).
//
// InvalidInput for a malformed node (unknown mode, both or neither of scales and sizes, a
// scale <= 0 or an Upsample scale < 1, a length that does not match the rank or the axes, an
// empty output, Upsample past opset 9); Unsupported for what ios does not run: scales or sizes
// known only at run time, tf_crop_and_resize, antialias=1, linear or cubic on an integer type.
StatusOr<ResizeParams> ParseResize(const NodeInputs& inputs);

}  // namespace ios
