#include "ops/resize_params.h"

#include <cmath>
#include <string>

#include "ops/node_reading.h"
#include "ops/op_util.h"
#include "util/checked_int.h"

namespace ios {
namespace {

enum class AspectPolicy { kStretch, kNotLarger, kNotSmaller };

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

StatusOr<ResizeMode> ParseMode(const Node& node, bool upsample) {
  IOS_ASSIGN_OR_RETURN(std::string name, node.attrs.GetString("mode", "nearest"));
  if (name == "nearest") return ResizeMode::kNearest;
  if (name == "linear") return ResizeMode::kLinear;
  if (name == "cubic" && !upsample) return ResizeMode::kCubic;
  return InvalidInput("mode " + Quoted(name) + " is not one of 'nearest', 'linear'" +
                      (upsample ? "" : ", 'cubic'"));
}

StatusOr<ResizeCoordinateMode> ParseCoordinateMode(const Node& node) {
  IOS_ASSIGN_OR_RETURN(std::string name,
                       node.attrs.GetString("coordinate_transformation_mode", "half_pixel"));
  if (name == "half_pixel") return ResizeCoordinateMode::kHalfPixel;
  if (name == "pytorch_half_pixel") return ResizeCoordinateMode::kPytorchHalfPixel;
  if (name == "align_corners") return ResizeCoordinateMode::kAlignCorners;
  if (name == "asymmetric") return ResizeCoordinateMode::kAsymmetric;
  // Removed from the spec at opset 13; onnxruntime still runs it there, and so does ios.
  if (name == "tf_half_pixel_for_nn") return ResizeCoordinateMode::kTfHalfPixelForNn;
  if (name == "half_pixel_symmetric") {
    if (OpsetBefore(node, 19))
      return InvalidInput(
          "coordinate_transformation_mode 'half_pixel_symmetric' exists from opset 19; this "
          "node is opset " +
          std::to_string(node.opset));
    return ResizeCoordinateMode::kHalfPixelSymmetric;
  }
  if (name == "tf_crop_and_resize")
    return Unsupported(
        "coordinate_transformation_mode 'tf_crop_and_resize' (a crop by the roi input, with "
        "extrapolation_value outside it) is not supported");
  return InvalidInput("coordinate_transformation_mode " + Quoted(name) + " is unknown");
}

StatusOr<ResizeNearestMode> ParseNearestMode(const Node& node) {
  IOS_ASSIGN_OR_RETURN(std::string name,
                       node.attrs.GetString("nearest_mode", "round_prefer_floor"));
  if (name == "round_prefer_floor") return ResizeNearestMode::kRoundPreferFloor;
  if (name == "round_prefer_ceil") return ResizeNearestMode::kRoundPreferCeil;
  if (name == "floor") return ResizeNearestMode::kFloor;
  if (name == "ceil") return ResizeNearestMode::kCeil;
  return InvalidInput("nearest_mode " + Quoted(name) + " is unknown");
}

StatusOr<AspectPolicy> ParseAspectPolicy(const Node& node) {
  IOS_ASSIGN_OR_RETURN(std::string name,
                       node.attrs.GetString("keep_aspect_ratio_policy", "stretch"));
  if (name == "stretch") return AspectPolicy::kStretch;
  if (name == "not_larger") return AspectPolicy::kNotLarger;
  if (name == "not_smaller") return AspectPolicy::kNotSmaller;
  return InvalidInput("keep_aspect_ratio_policy " + Quoted(name) + " is unknown");
}

// Everything but the output dims, from the attributes the node's opset defines.
StatusOr<ResizeInterpolation> ParseInterpolation(const Node& node, bool upsample) {
  ResizeInterpolation result;
  IOS_ASSIGN_OR_RETURN(result.mode, ParseMode(node, upsample));
  if (upsample || OpsetBefore(node, 11)) {
    result.coordinate = ResizeCoordinateMode::kAsymmetric;
    result.nearest = ResizeNearestMode::kSimple;
    return result;
  }
  IOS_ASSIGN_OR_RETURN(result.coordinate, ParseCoordinateMode(node));
  IOS_ASSIGN_OR_RETURN(result.nearest, ParseNearestMode(node));
  IOS_ASSIGN_OR_RETURN(result.cubic_coeff_a, node.attrs.GetFloat("cubic_coeff_a", -0.75f));
  IOS_ASSIGN_OR_RETURN(int64_t exclude_outside, node.attrs.GetInt("exclude_outside", 0));
  result.exclude_outside = exclude_outside != 0;
  // onnxruntime refuses it too: for nearest it would zero an output whose tap lies outside.
  if (result.exclude_outside && result.mode != ResizeMode::kCubic)
    return InvalidInput("exclude_outside=1 applies to mode 'cubic' only");
  if (!OpsetBefore(node, 18)) {
    IOS_ASSIGN_OR_RETURN(int64_t antialias, node.attrs.GetInt("antialias", 0));
    if (antialias != 0)
      return Unsupported("antialias=1 (a widened filter when downsampling) is not supported");
  }
  return result;
}

// A scales or sizes input as the node gives it: `given` is false when it is omitted or empty
// (the spec's way of leaving one of them out); its value must then be a constant.
struct GivenInput {
  bool given = false;
  const Tensor* value = nullptr;
};

StatusOr<GivenInput> ReadGiven(const NodeInputs& inputs, size_t index, const char* name) {
  GivenInput result;
  if (!inputs.Present(index) || NumElements(inputs.types[index].dims) == 0) return result;
  result.given = true;
  result.value = inputs.Constant(index);
  if (result.value == nullptr)
    return Unsupported(std::string("input '") + name +
                       "' is computed at run time; ios needs it constant (an initializer, or "
                       "folded at compile time) to fix the output shape");
  return result;
}

// The axes that scales/sizes list: the `axes` attribute (opset 18) or every axis.
StatusOr<std::vector<int64_t>> ResizedAxes(const Node& node, bool upsample, int64_t rank) {
  std::vector<int64_t> all;
  for (int64_t d = 0; d < rank; ++d) all.push_back(d);
  if (upsample || OpsetBefore(node, 18) || !node.attrs.Has("axes")) return all;
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> axes, node.attrs.GetInts("axes", {}));
  return NormalizeAxes(axes, rank, "axis");
}

Status CheckCount(size_t count, size_t axes, const char* name) {
  if (count == axes) return Status::Ok();
  return InvalidInput(std::string(name) + " has " + std::to_string(count) + " values; expected " +
                      std::to_string(axes) + " (one per resized axis)");
}

Status FromScales(const std::vector<float>& scales, const std::vector<int64_t>& axes, bool upsample,
                  ResizeParams* params) {
  IOS_RETURN_IF_ERROR(CheckCount(scales.size(), axes.size(), "scales"));
  for (size_t i = 0; i < axes.size(); ++i) {
    const float scale = scales[i];
    ResizeAxis& axis = params->axes[static_cast<size_t>(axes[i])];
    if (!(scale > 0.f) || !std::isfinite(scale) || (upsample && scale < 1.f))
      return InvalidInput("scale " + std::to_string(scale) + " of axis " + std::to_string(axes[i]) +
                          (upsample ? " is below 1 (Upsample only enlarges)" : " is not > 0"));
    axis.scale = scale;
    // In float, as onnxruntime computes it (see the header: onnx's double can be one less).
    IOS_ASSIGN_OR_RETURN(
        axis.out, CheckedInt64::FromDouble(std::floor(static_cast<float>(axis.in) * scale))
                      .OrError("axis " + std::to_string(axes[i]) + " of length " +
                               std::to_string(axis.in) + " scaled by " + std::to_string(scale)));
  }
  return Status::Ok();
}

Status FromSizes(const std::vector<int64_t>& sizes, const std::vector<int64_t>& axes,
                 AspectPolicy policy, ResizeParams* params) {
  IOS_RETURN_IF_ERROR(CheckCount(sizes.size(), axes.size(), "sizes"));
  float common = policy == AspectPolicy::kNotLarger ? HUGE_VALF : 0.f;
  for (size_t i = 0; i < axes.size(); ++i) {
    ResizeAxis& axis = params->axes[static_cast<size_t>(axes[i])];
    if (sizes[i] < 1)
      return InvalidInput("size " + std::to_string(sizes[i]) + " of axis " +
                          std::to_string(axes[i]) + " is not positive");
    axis.out = sizes[i];
    axis.scale = static_cast<float>(sizes[i]) / static_cast<float>(axis.in);
    common = policy == AspectPolicy::kNotLarger ? std::fmin(common, axis.scale)
                                                : std::fmax(common, axis.scale);
  }
  if (policy == AspectPolicy::kStretch) return Status::Ok();
  // One scale for every listed axis, the output rounded half up (std::round on float).
  for (int64_t d : axes) {
    ResizeAxis& axis = params->axes[static_cast<size_t>(d)];
    axis.scale = common;
    IOS_ASSIGN_OR_RETURN(
        axis.out, CheckedInt64::FromDouble(std::round(common * static_cast<float>(axis.in)))
                      .OrError("axis " + std::to_string(d) + " of length " +
                               std::to_string(axis.in) + " scaled by " + std::to_string(common)));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ResizeParams> ParseResize(const NodeInputs& inputs) {
  const Node& node = inputs.node;
  const bool upsample = node.op_type == "Upsample";
  if (upsample && !OpsetBefore(node, 10))
    return InvalidInput(
        "Upsample is deprecated from opset 10 (Resize replaces it); this node is "
        "opset " +
        std::to_string(node.opset));
  if (inputs.types.empty() || !inputs.Present(0)) return InvalidInput("input X is missing");
  const TensorType& x = inputs.types[0];
  const int64_t rank = static_cast<int64_t>(x.dims.size());
  if (rank < 1) return InvalidInput("input X must have rank >= 1");

  ResizeParams params;
  IOS_ASSIGN_OR_RETURN(params.interpolation, ParseInterpolation(node, upsample));
  if (params.interpolation.mode != ResizeMode::kNearest && x.dtype != DType::kFloat32 &&
      x.dtype != DType::kFloat64)
    return Unsupported("mode 'linear' or 'cubic' on " + DTypeName(x.dtype) +
                       " is not supported (float32 and float64 only)");
  for (int64_t d : x.dims) {
    ResizeAxis axis;
    axis.in = d;
    axis.out = d;
    params.axes.push_back(axis);
  }
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ResizedAxes(node, upsample, rank));
  AspectPolicy policy = AspectPolicy::kStretch;
  if (!upsample && !OpsetBefore(node, 18)) {
    IOS_ASSIGN_OR_RETURN(policy, ParseAspectPolicy(node));
  }

  // Where scales and sizes live: Upsample 7 has a scales attribute, Upsample 9 and Resize 10
  // input 1, Resize 11 and later inputs 2 and 3 (input 1, roi, only serves tf_crop_and_resize).
  GivenInput scales_input, sizes_input;
  std::vector<float> scales;
  if (upsample && OpsetBefore(node, 9)) {
    if (!node.attrs.Has("scales")) return InvalidInput("attribute 'scales' is required");
    IOS_ASSIGN_OR_RETURN(scales, node.attrs.GetFloats("scales", {}));
    scales_input.given = true;
  } else {
    const size_t scales_index = upsample || OpsetBefore(node, 11) ? 1 : 2;
    IOS_ASSIGN_OR_RETURN(scales_input, ReadGiven(inputs, scales_index, "scales"));
    if (!upsample && !OpsetBefore(node, 11)) {
      IOS_ASSIGN_OR_RETURN(sizes_input, ReadGiven(inputs, 3, "sizes"));
    }
    if (scales_input.given) {
      if (scales_input.value->dtype() != DType::kFloat32)
        return InvalidInput("input 'scales' has type " + DTypeName(scales_input.value->dtype()) +
                            "; expected float32");
      for (int64_t i = 0; i < scales_input.value->num_elements(); ++i)
        scales.push_back(scales_input.value->data<float>()[i]);
    }
  }
  if (scales_input.given == sizes_input.given)
    return InvalidInput(scales_input.given ? "both scales and sizes are given; give one"
                                           : "neither scales nor sizes is given");
  if (scales_input.given) {
    if (policy != AspectPolicy::kStretch)
      return InvalidInput("keep_aspect_ratio_policy applies to sizes, not scales");
    IOS_RETURN_IF_ERROR(FromScales(scales, axes, upsample, &params));
  } else {
    if (sizes_input.value->dtype() != DType::kInt64)
      return InvalidInput("input 'sizes' has type " + DTypeName(sizes_input.value->dtype()) +
                          "; expected int64");
    IOS_RETURN_IF_ERROR(FromSizes(sizes_input.value->ToInt64Vector(), axes, policy, &params));
  }
  for (size_t d = 0; d < params.axes.size(); ++d) {
    if (params.axes[d].out < 1)
      return InvalidInput("axis " + std::to_string(d) + " of length " +
                          std::to_string(params.axes[d].in) + " would resize to " +
                          std::to_string(params.axes[d].out));
    params.out_dims.push_back(params.axes[d].out);
  }
  return params;
}

}  // namespace ios
