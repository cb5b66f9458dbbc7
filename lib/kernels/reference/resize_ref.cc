// Reference Resize (opsets 10 to 19) and Upsample (7 and 9), written from ONNX's definition and
// independent of the shared math (kernels/math/resize_math.h) that the fast kernels run: the
// coordinates, rounding and weights in double, the input edge-padded (a tap outside the input
// reads the nearest edge element), every output element the sum over its axes' taps of the
// weight product times the input element.
//
// Where ONNX's text and its Python reference implementation differ, the text (and onnxruntime)
// is followed: align_corners divides by the integer output length, pytorch_half_pixel maps a
// length-1 output to 0. The output dims are floor(in * scale) with the product in float, as
// onnxruntime computes it (onnx 1.23 uses double, one less where the float product rounds up to
// an integer; ops/resize_params.h), or `sizes`.
// Opset 10 Resize and Upsample use asymmetric coordinates, and nearest truncates on an axis
// that grows and rounds up on one that shrinks (onnxruntime's rule; the spec names none).
// Not supported: tf_crop_and_resize, antialias=1.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"
#include "util/checked_int.h"

namespace ios {
namespace {

using Inputs = std::vector<const Tensor*>;

// One axis. A scale that comes from sizes is the ratio of two lengths, kept as integers so
// that a coordinate which is exactly a rounding tie or an integer stays one (dividing by the
// rounded double out / in can move it by an ulp, to either side).
struct AxisSpec {
  int64_t in = 1;
  int64_t out = 1;
  double scale = 1.0;
  int64_t ratio_num = 0;  // scale = ratio_num / ratio_den when ratio_den > 0
  int64_t ratio_den = 0;
};

// value / scale.
double DivideByScale(double value, const AxisSpec& axis) {
  if (axis.ratio_den > 0)
    return value * static_cast<double>(axis.ratio_den) / static_cast<double>(axis.ratio_num);
  return value / axis.scale;
}

struct ResizeSpec {
  std::string mode = "nearest";
  std::string coordinate = "asymmetric";
  std::string nearest = "simple";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  std::vector<AxisSpec> axes;
};

struct Tap {
  int64_t index;
  double weight;
};

// A scales or sizes input counts only when present and non-empty.
const Tensor* Given(const Inputs& inputs, size_t index) {
  const Tensor* t = OptionalInput(inputs, index);
  return t != nullptr && t->num_elements() > 0 ? t : nullptr;
}

Status ReadAttributes(const Node& node, bool upsample, ResizeSpec* spec) {
  const std::string label = NodeLabel(node);
  IOS_ASSIGN_OR_RETURN(spec->mode, node.attrs.GetString("mode", "nearest"));
  if (spec->mode != "nearest" && spec->mode != "linear" && (upsample || spec->mode != "cubic"))
    return InvalidInput(label + "mode '" + spec->mode + "' is unknown");
  if (upsample || OpsetBefore(node, 11)) return Status::Ok();
  IOS_ASSIGN_OR_RETURN(spec->coordinate,
                       node.attrs.GetString("coordinate_transformation_mode", "half_pixel"));
  if (spec->coordinate == "tf_crop_and_resize")
    return Unsupported(label +
                       "coordinate_transformation_mode 'tf_crop_and_resize' is not "
                       "supported");
  if (spec->coordinate != "half_pixel" && spec->coordinate != "pytorch_half_pixel" &&
      spec->coordinate != "align_corners" && spec->coordinate != "asymmetric" &&
      spec->coordinate != "tf_half_pixel_for_nn" && spec->coordinate != "half_pixel_symmetric")
    return InvalidInput(label + "coordinate_transformation_mode '" + spec->coordinate +
                        "' is unknown");
  IOS_ASSIGN_OR_RETURN(spec->nearest, node.attrs.GetString("nearest_mode", "round_prefer_floor"));
  if (spec->nearest != "round_prefer_floor" && spec->nearest != "round_prefer_ceil" &&
      spec->nearest != "floor" && spec->nearest != "ceil")
    return InvalidInput(label + "nearest_mode '" + spec->nearest + "' is unknown");
  IOS_ASSIGN_OR_RETURN(float a, node.attrs.GetFloat("cubic_coeff_a", -0.75f));
  spec->cubic_a = a;
  IOS_ASSIGN_OR_RETURN(int64_t exclude, node.attrs.GetInt("exclude_outside", 0));
  spec->exclude_outside = exclude != 0;
  if (spec->exclude_outside && spec->mode != "cubic")
    return InvalidInput(label + "exclude_outside=1 applies to mode 'cubic' only");
  if (!OpsetBefore(node, 18)) {
    IOS_ASSIGN_OR_RETURN(int64_t antialias, node.attrs.GetInt("antialias", 0));
    if (antialias != 0) return Unsupported(label + "antialias=1 is not supported");
  }
  return Status::Ok();
}

// Fills spec->axes from X's dims and the node's scales or sizes.
Status ReadAxes(const Node& node, bool upsample, const Dims& x, const Inputs& inputs,
                ResizeSpec* spec) {
  const std::string label = NodeLabel(node);
  const int64_t rank = static_cast<int64_t>(x.size());
  for (int64_t d : x) spec->axes.push_back(AxisSpec{d, d, 1.0});
  std::vector<int64_t> axes;
  if (!upsample && !OpsetBefore(node, 18) && node.attrs.Has("axes")) {
    IOS_ASSIGN_OR_RETURN(std::vector<int64_t> listed, node.attrs.GetInts("axes", {}));
    for (int64_t axis : listed) {
      IOS_ASSIGN_OR_RETURN(int64_t normalized, NormalizeAxis(node, axis, rank));
      axes.push_back(normalized);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }

  std::vector<double> scales;
  const Tensor* sizes = nullptr;
  if (upsample && OpsetBefore(node, 9)) {
    IOS_ASSIGN_OR_RETURN(std::vector<float> values, node.attrs.GetFloats("scales", {}));
    scales.assign(values.begin(), values.end());
  } else {
    const Tensor* given = Given(inputs, upsample || OpsetBefore(node, 11) ? 1 : 2);
    if (given != nullptr) {
      // float64 only in the float64 oracle, which widens every float32 constant.
      if (given->dtype() != DType::kFloat32 && given->dtype() != DType::kFloat64)
        return InvalidInput(label + "scales must be float32");
      for (int64_t i = 0; i < given->num_elements(); ++i) scales.push_back(given->FloatAt(i));
    }
    if (!upsample && !OpsetBefore(node, 11)) sizes = Given(inputs, 3);
  }
  if (scales.empty() == (sizes == nullptr))
    return InvalidInput(label + "exactly one of scales and sizes must be given");
  const size_t count =
      sizes != nullptr ? static_cast<size_t>(sizes->num_elements()) : scales.size();
  if (count != axes.size())
    return InvalidInput(label + "scales/sizes have " + std::to_string(count) + " values for " +
                        std::to_string(axes.size()) + " axes");

  if (sizes == nullptr) {
    for (size_t i = 0; i < axes.size(); ++i) {
      AxisSpec& axis = spec->axes[static_cast<size_t>(axes[i])];
      if (!(scales[i] > 0.0) || (upsample && scales[i] < 1.0))
        return InvalidInput(label + "scale " + std::to_string(scales[i]) + " is out of range");
      axis.scale = scales[i];
      // The output length with the product in float, as onnxruntime computes it.
      IOS_ASSIGN_OR_RETURN(
          axis.out,
          CheckedInt64::FromDouble(
              std::floor(static_cast<float>(axis.in) * static_cast<float>(scales[i])))
              .OrError(label + "axis " + std::to_string(axes[i]) + " of length " +
                       std::to_string(axis.in) + " scaled by " + std::to_string(scales[i])));
    }
  } else {
    if (sizes->dtype() != DType::kInt64) return InvalidInput(label + "sizes must be int64");
    IOS_ASSIGN_OR_RETURN(std::string policy,
                         OpsetBefore(node, 18)
                             ? StatusOr<std::string>(std::string("stretch"))
                             : node.attrs.GetString("keep_aspect_ratio_policy", "stretch"));
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
      return InvalidInput(label + "keep_aspect_ratio_policy '" + policy + "' is unknown");
    // The policies' one scale: the smallest (not_larger) or largest ratio of size to length.
    AxisSpec common;
    float common_float = policy == "not_larger" ? HUGE_VALF : 0.f;
    for (size_t i = 0; i < axes.size(); ++i) {
      AxisSpec& axis = spec->axes[static_cast<size_t>(axes[i])];
      const int64_t size = sizes->data<int64_t>()[i];
      if (size < 1)
        return InvalidInput(label + "size " + std::to_string(size) + " is not positive");
      axis.out = size;
      axis.ratio_num = size;
      axis.ratio_den = axis.in;
      axis.scale = static_cast<double>(size) / static_cast<double>(axis.in);
      const bool wins = i == 0 || (policy == "not_larger" ? axis.scale < common.scale
                                                          : axis.scale > common.scale);
      if (wins) common = axis;
      const float ratio = static_cast<float>(size) / static_cast<float>(axis.in);
      common_float =
          policy == "not_larger" ? std::fmin(common_float, ratio) : std::fmax(common_float, ratio);
    }
    if (policy != "stretch") {
      for (int64_t d : axes) {
        AxisSpec& axis = spec->axes[static_cast<size_t>(d)];
        axis.scale = common.scale;
        axis.ratio_num = common.ratio_num;
        axis.ratio_den = common.ratio_den;
        // round_int (half up) of the float product, as onnx and onnxruntime compute it.
        IOS_ASSIGN_OR_RETURN(
            axis.out,
            CheckedInt64::FromDouble(std::round(common_float * static_cast<float>(axis.in)))
                .OrError(label + "axis " + std::to_string(d) + " of length " +
                         std::to_string(axis.in) + " scaled by " + std::to_string(common_float)));
      }
    }
  }
  for (const AxisSpec& axis : spec->axes)
    if (axis.out < 1) return InvalidInput(label + "an axis would resize to length 0");
  return Status::Ok();
}

// x_original of output index o, in double (ONNX's coordinate_transformation_mode text).
double SourceCoordinate(const ResizeSpec& spec, const AxisSpec& axis, int64_t o) {
  const double x = static_cast<double>(o);
  const std::string& mode = spec.coordinate;
  if (mode == "asymmetric") return DivideByScale(x, axis);
  if (mode == "align_corners")
    return axis.out == 1 ? 0.0
                         : x * static_cast<double>(axis.in - 1) / static_cast<double>(axis.out - 1);
  if (mode == "pytorch_half_pixel") return axis.out > 1 ? DivideByScale(x + 0.5, axis) - 0.5 : 0.0;
  if (mode == "tf_half_pixel_for_nn") return DivideByScale(x + 0.5, axis);
  if (mode == "half_pixel_symmetric") {
    // offset = (in / 2) (1 - out / (scale in)): zero unless floor() cut the output short.
    const double in = static_cast<double>(axis.in);
    const double offset =
        in / 2.0 * (1.0 - DivideByScale(static_cast<double>(axis.out), axis) / in);
    return offset + DivideByScale(x + 0.5, axis) - 0.5;
  }
  return DivideByScale(x + 0.5, axis) - 0.5;  // half_pixel
}

int64_t EdgeClamp(int64_t index, int64_t in) {
  return index < 0 ? 0 : (index >= in ? in - 1 : index);
}

int64_t NearestIndex(const ResizeSpec& spec, const AxisSpec& axis, double x) {
  const double down = std::floor(x);
  const double fraction = x - down;
  double rounded = down;
  if (spec.nearest == "round_prefer_floor") {
    rounded = fraction > 0.5 ? down + 1 : down;
  } else if (spec.nearest == "round_prefer_ceil") {
    rounded = fraction >= 0.5 ? down + 1 : down;
  } else if (spec.nearest == "ceil") {
    rounded = std::ceil(x);
  } else if (spec.nearest == "simple") {
    rounded = axis.scale < 1.0 ? std::ceil(x) : std::trunc(x);
  }
  if (rounded < 0) return 0;
  if (rounded > static_cast<double>(axis.in - 1)) return axis.in - 1;
  return static_cast<int64_t>(rounded);
}

// Keys' cubic convolution kernel at distance s (coefficient a).
double CubicKernel(double s, double a) {
  s = std::fabs(s);
  if (s <= 1) return ((a + 2) * s - (a + 3)) * s * s + 1;
  if (s < 2) return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
  return 0;
}

std::vector<Tap> AxisTaps(const ResizeSpec& spec, const AxisSpec& axis, int64_t o) {
  // An axis left alone reads itself: tf_half_pixel_for_nn would otherwise shift it by half an
  // element (onnxruntime and onnx's Python reference skip such axes too).
  if (axis.in == axis.out && axis.scale == 1.0) return {Tap{o, 1.0}};
  const double x = SourceCoordinate(spec, axis, o);
  if (spec.mode == "nearest") return {Tap{NearestIndex(spec, axis, x), 1.0}};
  const int64_t down = static_cast<int64_t>(std::floor(x));
  std::vector<Tap> taps;
  if (spec.mode == "linear") {
    const double t = x - static_cast<double>(down);
    taps = {Tap{down, 1.0 - t}, Tap{down + 1, t}};
  } else {
    double kept = 0;
    for (int64_t i = down - 1; i <= down + 2; ++i) {
      double weight = CubicKernel(x - static_cast<double>(i), spec.cubic_a);
      if (spec.exclude_outside && (i < 0 || i >= axis.in)) weight = 0;
      kept += weight;
      taps.push_back(Tap{i, weight});
    }
    if (spec.exclude_outside && kept != 0)
      for (Tap& tap : taps) tap.weight /= kept;
  }
  for (Tap& tap : taps) tap.index = EdgeClamp(tap.index, axis.in);
  return taps;
}

Status ResizeKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  const bool upsample = node.op_type == "Upsample";
  const std::string label = NodeLabel(node);
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  if (upsample && !OpsetBefore(node, 10))
    return InvalidInput(label + "Upsample is deprecated from opset 10");
  const Tensor& x = *inputs[0];
  if (x.rank() < 1) return InvalidInput(label + "input X must have rank >= 1");
  ResizeSpec spec;
  IOS_RETURN_IF_ERROR(ReadAttributes(node, upsample, &spec));
  IOS_RETURN_IF_ERROR(ReadAxes(node, upsample, x.dims(), inputs, &spec));
  Dims out_dims;
  for (const AxisSpec& axis : spec.axes) out_dims.push_back(axis.out);
  IOS_RETURN_IF_ERROR(CheckOutputDims(node, out_dims));

  // taps[d][o]: what output index o of axis d reads.
  std::vector<std::vector<std::vector<Tap>>> taps(spec.axes.size());
  for (size_t d = 0; d < spec.axes.size(); ++d)
    for (int64_t o = 0; o < spec.axes[d].out; ++o)
      taps[d].push_back(AxisTaps(spec, spec.axes[d], o));
  const Dims in_strides = BroadcastStrides(x.dims(), x.dims());
  const size_t rank = spec.axes.size();

  // Calls visit(offset, weight) for every combination of the output element's taps.
  auto for_each_source = [&](const Dims& index, auto&& visit) {
    std::vector<size_t> pick(rank, 0);
    while (true) {
      int64_t offset = 0;
      double weight = 1.0;
      for (size_t d = 0; d < rank; ++d) {
        const Tap& tap = taps[d][static_cast<size_t>(index[d])][pick[d]];
        offset += tap.index * in_strides[d];
        weight *= tap.weight;
      }
      visit(offset, weight);
      size_t d = rank;
      while (d > 0 && ++pick[d - 1] == taps[d - 1][static_cast<size_t>(index[d - 1])].size())
        pick[--d] = 0;
      if (d == 0) return;
    }
  };

  Tensor y(x.dtype(), out_dims);
  if (spec.mode == "nearest") {
    // One tap per axis: a copy of the element, for any element type.
    if (!IsCopyableDType(x.dtype()))
      return Unsupported(label + "element type " + DTypeName(x.dtype()) + " is not supported");
    const size_t size = DTypeSize(x.dtype());
    int64_t o = 0;
    ForEachIndex(out_dims, [&](const Dims& index) {
      for_each_source(index, [&](int64_t offset, double) {
        std::memcpy(y.raw() + o * size, x.raw() + offset * size, size);
      });
      ++o;
    });
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  }
  return DispatchFloat(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    int64_t o = 0;
    ForEachIndex(out_dims, [&](const Dims& index) {
      double sum = 0;
      for_each_source(index, [&](int64_t offset, double weight) {
        sum += weight * static_cast<double>(xd[offset]);
      });
      yd[o++] = static_cast<T>(sum);
    });
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

}  // namespace

void AddResizeReferenceKernels(ReferenceKernelTable& table) {
  table["Resize"] = ResizeKernel;
  table["Upsample"] = ResizeKernel;
}

}  // namespace ios
