// Per-axis math of Resize and Upsample on float32, shared by the CPU kernel (which tabulates it
// once per node) and the CUDA kernel (which evaluates it per output element: ResizeGather
// below), and host-tested against the reference kernel (kernels/reference/resize_ref.cc, in
// double).
//
// Resize is separable: every output index o of an axis maps to a source coordinate x
// (ResizeSourceCoordinate), and x to a few input indices with weights (ResizeAxisTaps): one for
// nearest, two for linear, four for cubic. An output element is the sum, over every combination
// of its axes' taps, of the product of the weights times the input element.
//
// The formulas are ONNX's (opset 19's coordinate_transformation_mode text), evaluated in float
// in the order onnxruntime evaluates them, so that a nearest index that lands on a rounding tie
// picks the same input element as onnxruntime does. Where ONNX's text and its Python reference
// implementation differ (align_corners divides by the integer output length, pytorch_half_pixel
// maps a length-1 output to 0), this follows the text, as onnxruntime does.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/math/host_device.h"

namespace ios {

enum class ResizeMode : int32_t { kNearest, kLinear, kCubic };

enum class ResizeCoordinateMode : int32_t {
  kHalfPixel,           // (o + 0.5) / scale - 0.5 (the default from opset 11)
  kHalfPixelSymmetric,  // half_pixel, shifted so the output stays centred (opset 19)
  kPytorchHalfPixel,    // half_pixel, but 0 for an output of length 1
  kAlignCorners,        // o * (in - 1) / (out - 1)
  kAsymmetric,          // o / scale (opset 10 Resize and Upsample)
  kTfHalfPixelForNn,    // (o + 0.5) / scale (opsets 11 and 12)
};

enum class ResizeNearestMode : int32_t {
  kRoundPreferFloor,  // round half down (the default from opset 11)
  kRoundPreferCeil,   // round half up
  kFloor,
  kCeil,
  // Opset 10 Resize and Upsample name no rounding; onnxruntime truncates when the axis grows
  // and rounds up when it shrinks, and so does ios.
  kSimple,
};

// How a node interpolates (the same on every axis).
struct ResizeInterpolation {
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoordinateMode coordinate = ResizeCoordinateMode::kHalfPixel;
  ResizeNearestMode nearest = ResizeNearestMode::kRoundPreferFloor;
  float cubic_coeff_a = -0.75f;
  bool exclude_outside =
      false;  // cubic: taps outside the input get weight 0, the rest renormalised
};

// One axis of X: its input and output lengths and the scale its coordinates are divided by
// (the `scales` value, out / in for `sizes`, or the keep_aspect_ratio_policy scale).
struct ResizeAxis {
  int64_t in = 1;
  int64_t out = 1;
  float scale = 1.f;
};

// An axis the node leaves alone: every output index reads the same input index.
IOS_HD bool ResizeAxisIsIdentity(const ResizeAxis& axis) {
  return axis.in == axis.out && axis.scale == 1.f;
}

constexpr int kMaxResizeTaps = 4;

// The input indices (already clamped into [0, in)) and weights one output index reads.
struct ResizeTaps {
  int32_t count = 0;
  int64_t index[kMaxResizeTaps] = {};
  float weight[kMaxResizeTaps] = {};
};

// Taps per output index of one axis: 1 (nearest), 2 (linear) or 4 (cubic).
IOS_HD int32_t ResizeTapCount(ResizeMode mode) {
  return mode == ResizeMode::kNearest ? 1 : (mode == ResizeMode::kLinear ? 2 : 4);
}

// The source coordinate of output index `o` on `axis`.
IOS_HD float ResizeSourceCoordinate(ResizeCoordinateMode mode, const ResizeAxis& axis, int64_t o) {
  const float x = static_cast<float>(o);
  switch (mode) {
    case ResizeCoordinateMode::kHalfPixel:
      return (x + 0.5f) / axis.scale - 0.5f;
    case ResizeCoordinateMode::kHalfPixelSymmetric: {
      // offset = (in / 2) (1 - out / (scale in)): zero unless floor() cut the output short.
      const float in = static_cast<float>(axis.in);
      const float adjustment = static_cast<float>(axis.out) / (axis.scale * in);
      const float offset = in / 2.f * (1.f - adjustment);
      return static_cast<float>(static_cast<double>(offset) +
                                (static_cast<double>(x) + 0.5) / axis.scale - 0.5);
    }
    case ResizeCoordinateMode::kPytorchHalfPixel:
      return axis.out > 1 ? (x + 0.5f) / axis.scale - 0.5f : 0.f;
    case ResizeCoordinateMode::kAlignCorners:
      return axis.out == 1 ? 0.f
                           : x * static_cast<float>(axis.in - 1) / static_cast<float>(axis.out - 1);
    case ResizeCoordinateMode::kAsymmetric:
      return x / axis.scale;
    case ResizeCoordinateMode::kTfHalfPixelForNn:
      return (x + 0.5f) / axis.scale;
  }
  return x;
}

// `index` clamped into [0, in - 1] (edge padding).
IOS_HD int64_t ResizeClampIndex(int64_t index, int64_t in) {
  return index < 0 ? 0 : (index > in - 1 ? in - 1 : index);
}

// The nearest input index to coordinate x, clamped into the input.
IOS_HD int64_t ResizeNearestIndex(ResizeNearestMode mode, const ResizeAxis& axis, float x) {
  const float down = floorf(x);
  const float fraction = x - down;  // exact for the magnitudes of tensor indices
  float rounded = down;
  switch (mode) {
    case ResizeNearestMode::kRoundPreferFloor:
      rounded = fraction > 0.5f ? down + 1.f : down;
      break;
    case ResizeNearestMode::kRoundPreferCeil:
      rounded = fraction >= 0.5f ? down + 1.f : down;
      break;
    case ResizeNearestMode::kFloor:
      rounded = down;
      break;
    case ResizeNearestMode::kCeil:
      rounded = ceilf(x);
      break;
    case ResizeNearestMode::kSimple:
      rounded = axis.scale < 1.f ? ceilf(x) : truncf(x);
      break;
  }
  // Clamp in float first: a coordinate far outside the input must not overflow the cast.
  if (rounded < 0.f) return 0;
  if (rounded > static_cast<float>(axis.in - 1)) return axis.in - 1;
  return ResizeClampIndex(static_cast<int64_t>(rounded), axis.in);
}

// Keys' cubic convolution weights of the taps at floor(x) - 1 .. floor(x) + 2 for
// t = x - floor(x) in [0, 1) and coefficient a.
IOS_HD void ResizeCubicWeights(float t, float a, float weights[4]) {
  const float t1 = t + 1.f;  // distance to floor(x) - 1, in [1, 2)
  const float u = 1.f - t;   // distance to floor(x) + 1, in (0, 1]
  const float u1 = u + 1.f;  // distance to floor(x) + 2, in (1, 2]
  weights[0] = ((a * t1 - 5.f * a) * t1 + 8.f * a) * t1 - 4.f * a;
  weights[1] = ((a + 2.f) * t - (a + 3.f)) * t * t + 1.f;
  weights[2] = ((a + 2.f) * u - (a + 3.f)) * u * u + 1.f;
  weights[3] = ((a * u1 - 5.f * a) * u1 + 8.f * a) * u1 - 4.f * a;
}

// The taps of output index `o` on `axis`.
IOS_HD ResizeTaps ResizeAxisTaps(const ResizeInterpolation& interpolation, const ResizeAxis& axis,
                                 int64_t o) {
  ResizeTaps taps;
  const float x = ResizeSourceCoordinate(interpolation.coordinate, axis, o);
  if (interpolation.mode == ResizeMode::kNearest) {
    taps.count = 1;
    taps.index[0] = ResizeNearestIndex(interpolation.nearest, axis, x);
    taps.weight[0] = 1.f;
    return taps;
  }
  if (interpolation.mode == ResizeMode::kLinear) {
    // Clamping the coordinate into [0, in - 1] is the edge padding of ONNX's definition.
    const float last = static_cast<float>(axis.in - 1);
    const float clamped = x < 0.f ? 0.f : (x > last ? last : x);
    const int64_t low = ResizeClampIndex(static_cast<int64_t>(clamped), axis.in);
    taps.count = 2;
    taps.index[0] = low;
    taps.index[1] = ResizeClampIndex(low + 1, axis.in);
    taps.weight[1] = clamped - static_cast<float>(low);
    taps.weight[0] = 1.f - taps.weight[1];
    return taps;
  }
  const float down = floorf(x);
  const int64_t first = static_cast<int64_t>(down) - 1;
  ResizeCubicWeights(x - down, interpolation.cubic_coeff_a, taps.weight);
  taps.count = 4;
  float kept = 0.f;
  for (int32_t k = 0; k < 4; ++k) {
    const int64_t index = first + k;
    if (interpolation.exclude_outside && (index < 0 || index >= axis.in)) taps.weight[k] = 0.f;
    kept += taps.weight[k];
    taps.index[k] = ResizeClampIndex(index, axis.in);
  }
  if (interpolation.exclude_outside && kept != 0.f)
    for (int32_t k = 0; k < 4; ++k) taps.weight[k] /= kept;
  return taps;
}

// ---- One output element from the input, as the CUDA kernel computes it ----------------------

// Dims after runs of untouched axes are merged into one, and how many of them may be resized
// (3 covers trilinear; a node that needs more is refused by the CUDA factory).
constexpr int kMaxResizeGatherRank = 8;
constexpr int kMaxResizeGatherAxes = 4;

struct ResizeGather {
  ResizeInterpolation interpolation;
  int32_t rank = 0;
  ResizeAxis axes[kMaxResizeGatherRank];  // an untouched dim has in == out and scale 1
  bool resized[kMaxResizeGatherRank] = {};
  int64_t in_strides[kMaxResizeGatherRank] = {};  // input elements per step of each dim
  int64_t count = 0;                              // output elements
};

// The gather for a node's axes (one per dim of X), each run of untouched dims merged into one,
// so that an NCHW resize of H and W has rank 3 (N * C, H, W). False when more dims or resized
// dims remain than ResizeGather holds.
inline bool PlanResizeGather(const ResizeInterpolation& interpolation,
                             const std::vector<ResizeAxis>& axes, ResizeGather* gather) {
  ResizeGather g;
  g.interpolation = interpolation;
  g.count = 1;
  int32_t resized = 0;
  for (const ResizeAxis& axis : axes) {
    g.count *= axis.out;
    const bool touched = !ResizeAxisIsIdentity(axis);
    if (!touched && g.rank > 0 && !g.resized[g.rank - 1]) {
      g.axes[g.rank - 1].in *= axis.in;  // extends the run of untouched dims before it
      g.axes[g.rank - 1].out *= axis.out;
      continue;
    }
    if (g.rank == kMaxResizeGatherRank || (touched && resized == kMaxResizeGatherAxes))
      return false;
    g.axes[g.rank] = axis;
    g.resized[g.rank] = touched;
    resized += touched ? 1 : 0;
    ++g.rank;
  }
  int64_t stride = 1;
  for (int32_t d = g.rank - 1; d >= 0; --d) {
    g.in_strides[d] = stride;
    stride *= g.axes[d].in;
  }
  *gather = g;
  return true;
}

// Output element `i` (row-major): the untouched dims add a fixed offset, each resized dim
// contributes its taps, and the element is the sum over every combination of them of the
// weight product times x (one read for nearest).
IOS_HD float ResizeGatherElement(const ResizeGather& g, const float* x, int64_t i) {
  ResizeTaps taps[kMaxResizeGatherAxes];
  int64_t strides[kMaxResizeGatherAxes];
  int32_t resized = 0;
  int64_t base = 0;
  for (int32_t d = g.rank - 1; d >= 0; --d) {
    const int64_t o = i % g.axes[d].out;
    i /= g.axes[d].out;
    if (!g.resized[d]) {
      base += o * g.in_strides[d];
      continue;
    }
    taps[resized] = ResizeAxisTaps(g.interpolation, g.axes[d], o);
    strides[resized] = g.in_strides[d];
    ++resized;
  }
  if (g.interpolation.mode == ResizeMode::kNearest) {
    for (int32_t k = 0; k < resized; ++k) base += taps[k].index[0] * strides[k];
    return x[base];
  }
  int32_t pick[kMaxResizeGatherAxes] = {};  // an odometer over the taps of each resized dim
  float sum = 0.f;
  while (true) {
    int64_t offset = base;
    float weight = 1.f;
    for (int32_t k = 0; k < resized; ++k) {
      offset += taps[k].index[pick[k]] * strides[k];
      weight *= taps[k].weight[pick[k]];
    }
    sum += weight * x[offset];
    int32_t k = 0;
    while (k < resized && ++pick[k] == taps[k].count) pick[k++] = 0;
    if (k == resized) return sum;
  }
}

}  // namespace ios
