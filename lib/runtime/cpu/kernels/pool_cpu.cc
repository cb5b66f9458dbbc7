// MaxPool, AveragePool (both count_include_pad modes, ceil_mode, dilations), GlobalAveragePool
// and GlobalMaxPool on float32 NC[D]HW (1-D, 2-D and 3-D pools are 3-D pools with unit dims).
//
// Own loops rather than oneDNN: most tensors are plain NCHW or NHWC (oneDNN's fast pools want
// blocked layouts, which only some CPU plans have), and onnxruntime's count_include_pad divisor
// with ceil_mode (taps in [-pad_begin, in + pad_end), not the whole window) has no oneDNN
// equivalent. Each axis gets a table, per output index, of the kernel taps inside the input, so
// the inner loops carry no bounds checks. Planes (N*C) are split over the threads. X and Y may
// be strided views (plan/tensor_views.h): a plane's offset then uses the view's batch stride.
//
// Channels-last X and Y (ir/layout.h, both or neither: the registry's rule) take the same tables
// with output pixels split over the threads and the channels, contiguous, as the inner loop.
// Channels-blocked-8 ones (nChw8c) run each plane of 8 channels as a row-major plane whose
// elements are vectors of 8, with output rows split over the threads.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/reference/reference_util.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"

namespace ios {
namespace {

// For one axis and each output index: the first input position, the range of kernel taps k in
// [k_begin, k_end) that land inside the input, and how many taps land in the padded input.
struct AxisWindows {
  int64_t in = 1;
  int64_t out = 1;
  int64_t dilation = 1;
  std::vector<int64_t> start;  // input position of tap 0 (may be negative)
  std::vector<int64_t> k_begin;
  std::vector<int64_t> k_end;
  std::vector<int64_t> padded_taps;
};

AxisWindows MakeAxis(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation,
                     int64_t pad_begin, int64_t pad_end) {
  AxisWindows axis;
  axis.in = in;
  axis.out = out;
  axis.dilation = dilation;
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = o * stride - pad_begin;
    int64_t k_begin = 0;
    while (k_begin < kernel && start + k_begin * dilation < 0) ++k_begin;
    int64_t k_end = kernel;
    while (k_end > k_begin && start + (k_end - 1) * dilation >= in) --k_end;
    int64_t padded = 0;
    for (int64_t k = 0; k < kernel; ++k) {
      const int64_t pos = start + k * dilation;
      if (pos >= -pad_begin && pos < in + pad_end) ++padded;
    }
    axis.start.push_back(start);
    axis.k_begin.push_back(k_begin);
    axis.k_end.push_back(std::max(k_begin, k_end));
    axis.padded_taps.push_back(padded);
  }
  return axis;
}

enum class PoolKind { kMax, kAverageExcludePad, kAverageIncludePad };

// Row-major planes, one output row at a time: the window's input rows reduced into one row of
// columns (the taps along D and H, contiguous and vectorised), then each output element its
// window's columns (the taps along W), vectorised across the output row where the window lies
// whole inside the input. Walking each output element's taps instead (9 scattered loads and the
// tables' bookkeeping per output of a 3x3 pool) ran a 3x3 stride-2 MaxPool over 64 planes of
// 112x112 at 7x onnxruntime's time, a 3x3 AveragePool over 192 planes of 28x28 at 16x.
struct RowMajorPool {
  PoolKind kind;
  const AxisWindows* axes;  // D, H, W
  int64_t stride_w;
  int64_t kernel_w;
  int64_t pad_w;                    // the W axis' leading pad
  int64_t interior_begin;           // output columns whose window lies whole in the input
  int64_t interior_end;
};

// y[ow] for ow in [lo, hi): the max or sum of base[ow * stride + k * dilation] over the taps k.
// kStride > 0 is the stride as a constant (runtime `stride` otherwise): a runtime stride turns
// the loads into gathers or scalar code, which cost a 28-wide row's pool 2.5x.
template <int kStride>
IOS_ALWAYS_INLINE void PoolInterior(bool is_max, const float* base, int64_t stride,
                                    int64_t kernel, int64_t dilation, float* __restrict yp,
                                    int64_t lo, int64_t hi) {
  const int64_t sw = kStride > 0 ? kStride : stride;
  for (int64_t ow = lo; ow < hi; ++ow) yp[ow] = base[ow * sw];
  for (int64_t k = 1; k < kernel; ++k) {
    const float* __restrict tap = base + k * dilation;
    if (is_max) {
      for (int64_t ow = lo; ow < hi; ++ow) yp[ow] = tap[ow * sw] > yp[ow] ? tap[ow * sw] : yp[ow];
    } else {
      for (int64_t ow = lo; ow < hi; ++ow) yp[ow] += tap[ow * sw];
    }
  }
}

// Output column ow of a row whose window's rows (row_count of them in the input, row_padded in
// the padded input) are reduced into `columns`, tap by tap: for the border columns, whose
// window lies partly outside the input.
IOS_ALWAYS_INLINE float BorderColumn(const RowMajorPool& pool, const float* columns,
                                     int64_t row_count, int64_t row_padded, int64_t ow) {
  const AxisWindows& aw = pool.axes[2];
  const bool is_max = pool.kind == PoolKind::kMax;
  float acc = is_max ? std::numeric_limits<float>::lowest() : 0.f;
  const float* first = columns + aw.start[ow];
  for (int64_t k = aw.k_begin[ow]; k < aw.k_end[ow]; ++k) {
    const float v = first[k * aw.dilation];
    acc = is_max ? (v > acc ? v : acc) : acc + v;
  }
  if (!is_max) {
    const int64_t divisor = pool.kind == PoolKind::kAverageIncludePad
                                ? row_padded * aw.padded_taps[ow]
                                : row_count * (aw.k_end[ow] - aw.k_begin[ow]);
    acc = divisor > 0 ? acc * (1.f / static_cast<float>(divisor)) : 0.f;
  }
  return acc;
}

// Output rows [begin, end) of the planes, counted as plane_index * rows + row; plane p's input
// and output start at x_of(p) and y_of(p). `columns` holds W_in floats.
template <typename XOf, typename YOf>
IOS_ALWAYS_INLINE void RowMajorPoolRows(const RowMajorPool& pool, XOf x_of, YOf y_of,
                                        int64_t begin, int64_t end, float* __restrict columns) {
  const AxisWindows& ad = pool.axes[0];
  const AxisWindows& ah = pool.axes[1];
  const AxisWindows& aw = pool.axes[2];
  const bool is_max = pool.kind == PoolKind::kMax;
  const bool include_pad = pool.kind == PoolKind::kAverageIncludePad;
  const float init = is_max ? std::numeric_limits<float>::lowest() : 0.f;
  const int64_t h_out = ah.out, h_in = ah.in, w_in = aw.in, w_out = aw.out;
  const int64_t rows = ad.out * h_out;
  const int64_t sw = pool.stride_w, kw_count = pool.kernel_w, dw = aw.dilation;
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t plane = unit / rows;
    const int64_t row_index = unit % rows;
    const int64_t od = row_index / h_out;
    const int64_t oh = row_index % h_out;
    const float* xp = x_of(plane);
    float* __restrict yp = y_of(plane) + row_index * w_out;
    int64_t row_count = 0;
    for (int64_t kd = ad.k_begin[od]; kd < ad.k_end[od]; ++kd) {
      const int64_t d = ad.start[od] + kd * ad.dilation;
      for (int64_t kh = ah.k_begin[oh]; kh < ah.k_end[oh]; ++kh) {
        const int64_t h = ah.start[oh] + kh * ah.dilation;
        const float* __restrict row = xp + (d * h_in + h) * w_in;
        if (row_count++ == 0) {
          for (int64_t w = 0; w < w_in; ++w) columns[w] = row[w];
        } else if (is_max) {
          for (int64_t w = 0; w < w_in; ++w) columns[w] = row[w] > columns[w] ? row[w] : columns[w];
        } else {
          for (int64_t w = 0; w < w_in; ++w) columns[w] += row[w];
        }
      }
    }
    if (row_count == 0) {  // no input row in the window: the reference's lowest / 0
      for (int64_t ow = 0; ow < w_out; ++ow) yp[ow] = init;
      continue;
    }
    const int64_t row_padded = ad.padded_taps[od] * ah.padded_taps[oh];
    auto border = [&](int64_t ow) { yp[ow] = BorderColumn(pool, columns, row_count, row_padded, ow); };
    for (int64_t ow = 0; ow < pool.interior_begin; ++ow) border(ow);
    // The interior: every tap inside the input; vectorised over the output columns.
    const int64_t lo = pool.interior_begin, hi = pool.interior_end;
    const float* base = columns - pool.pad_w;
    if (sw == 1) {
      PoolInterior<1>(is_max, base, 1, kw_count, dw, yp, lo, hi);
    } else if (sw == 2) {
      PoolInterior<2>(is_max, base, 2, kw_count, dw, yp, lo, hi);
    } else {
      PoolInterior<0>(is_max, base, sw, kw_count, dw, yp, lo, hi);
    }
    if (!is_max && hi > lo) {  // whole windows: row_count x kernel taps, all of them padded-in
      const int64_t divisor = include_pad ? row_padded * kw_count : row_count * kw_count;
      const float scale = 1.f / static_cast<float>(divisor);
      for (int64_t ow = lo; ow < hi; ++ow) yp[ow] *= scale;
    }
    for (int64_t ow = std::max(hi, lo); ow < w_out; ++ow) border(ow);
  }
}

// Stride-1, dilation-1 2-D pools whose output rows are as wide as the input's (SAME padding:
// Inception's 3x3 branch pools with pad 1), a plane at a time: the window's rows reduced for
// the rows whose window lies whole in the input as one loop over the plane, then the window's
// columns for every output row as another, the border rows and columns redone one by one. Row by
// row, a 28-wide row's loops are too short to pay (a 3x3 AveragePool over 192 planes of 28x28
// ran at 2.9x onnxruntime's time). Interior rows are [h_lo, h_hi); `v` holds
// h_out * w + 2 * kernel_w floats.
IOS_ALWAYS_INLINE void FlatPlanePool(const RowMajorPool& pool, int64_t kernel_h, int64_t h_lo,
                                     int64_t h_hi, const float* __restrict xp,
                                     float* __restrict yp, float* __restrict v) {
  const AxisWindows& ah = pool.axes[1];
  const AxisWindows& aw = pool.axes[2];
  const bool is_max = pool.kind == PoolKind::kMax;
  const bool include_pad = pool.kind == PoolKind::kAverageIncludePad;
  const int64_t w = aw.in, h_out = ah.out, kw = pool.kernel_w;
  float* __restrict vc = v + kw;  // V's rows; kw spare floats on each side
  auto reduce_into = [is_max](float* __restrict dst, const float* __restrict src, int64_t n,
                              bool first) {
    if (first) {
      for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
    } else if (is_max) {
      for (int64_t i = 0; i < n; ++i) dst[i] = src[i] > dst[i] ? src[i] : dst[i];
    } else {
      for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
    }
  };
  for (int64_t oh = 0; oh < h_out; ++oh) {  // border rows: their window rows in the input
    if (oh == h_lo) oh = h_hi;
    if (oh >= h_out) break;
    for (int64_t k = ah.k_begin[oh]; k < ah.k_end[oh]; ++k)
      reduce_into(vc + oh * w, xp + (ah.start[oh] + k) * w, w, k == ah.k_begin[oh]);
  }
  if (h_hi > h_lo) {  // interior rows: one loop over their span per window row
    const float* x0 = xp + ah.start[h_lo] * w;
    for (int64_t k = 0; k < kernel_h; ++k)
      reduce_into(vc + h_lo * w, x0 + k * w, (h_hi - h_lo) * w, k == 0);
  }
  const int64_t total = h_out * w;
  const float* base = vc - pool.pad_w;
  for (int64_t k = 0; k < kw; ++k) reduce_into(yp, base + k, total, k == 0);
  if (!is_max && h_hi > h_lo) {
    const float scale = 1.f / static_cast<float>(kernel_h * kw);
    for (int64_t i = h_lo * w; i < h_hi * w; ++i) yp[i] *= scale;
  }
  for (int64_t oh = 0; oh < h_out; ++oh) {
    float* __restrict y_row = yp + oh * w;
    const int64_t row_count = ah.k_end[oh] - ah.k_begin[oh];
    if (row_count == 0) {  // no input row in the window: the reference's lowest / 0
      const float init = is_max ? std::numeric_limits<float>::lowest() : 0.f;
      for (int64_t ow = 0; ow < w; ++ow) y_row[ow] = init;
      continue;
    }
    const bool interior = oh >= h_lo && oh < h_hi;
    if (!is_max && !interior) {
      const int64_t divisor = (include_pad ? ah.padded_taps[oh] : row_count) * kw;
      const float scale = 1.f / static_cast<float>(divisor);
      for (int64_t ow = pool.interior_begin; ow < pool.interior_end; ++ow) y_row[ow] *= scale;
    }
    const float* v_row = vc + oh * w;
    for (int64_t ow = 0; ow < pool.interior_begin; ++ow)
      y_row[ow] = BorderColumn(pool, v_row, row_count, ah.padded_taps[oh], ow);
    for (int64_t ow = std::max(pool.interior_begin, pool.interior_end); ow < w; ++ow)
      y_row[ow] = BorderColumn(pool, v_row, row_count, ah.padded_taps[oh], ow);
  }
}

class PoolCpuKernel : public CpuKernel {
 public:
  PoolCpuKernel(PoolKind kind, int64_t batch, int64_t channels, std::vector<AxisWindows> axes,
                int64_t stride_h, int64_t kernel_h, int64_t stride_w, int64_t kernel_w,
                int64_t pad_w, int64_t x_batch_stride, int64_t y_batch_stride)
      : kind_(kind),
        channels_(channels),
        planes_(batch * channels),
        axes_(std::move(axes)),
        x_batch_stride_(x_batch_stride),
        y_batch_stride_(y_batch_stride) {
    pool_ = RowMajorPool{kind_, axes_.data(), stride_w, kernel_w, pad_w, 0, 0};
    // The interior: the first and last output columns whose taps all lie inside the input.
    const AxisWindows& aw = axes_[2];
    int64_t lo = 0;
    while (lo < aw.out && (aw.k_begin[lo] != 0 || aw.k_end[lo] != kernel_w)) ++lo;
    int64_t hi = lo;
    while (hi < aw.out && aw.k_begin[hi] == 0 && aw.k_end[hi] == kernel_w) ++hi;
    pool_.interior_begin = lo;
    pool_.interior_end = hi;
    // FlatPlanePool's case: 2-D, strides and dilations 1, rows as wide as the input's.
    const AxisWindows& ad = axes_[0];
    const AxisWindows& ah = axes_[1];
    flat_ = ad.in == 1 && ad.out == 1 && ah.dilation == 1 && aw.dilation == 1 && stride_h == 1 &&
            stride_w == 1 && aw.out == aw.in;
    if (flat_) {
      kernel_h_ = kernel_h;
      h_lo_ = 0;
      while (h_lo_ < ah.out && (ah.k_begin[h_lo_] != 0 || ah.k_end[h_lo_] != kernel_h_)) ++h_lo_;
      h_hi_ = h_lo_;
      while (h_hi_ < ah.out && ah.k_begin[h_hi_] == 0 && ah.k_end[h_hi_] == kernel_h_) ++h_hi_;
    }
  }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    const AxisWindows& ad = axes_[0];
    const AxisWindows& ah = axes_[1];
    const AxisWindows& aw = axes_[2];
    const int64_t in_plane = ad.in * ah.in * aw.in;
    const int64_t out_plane = ad.out * ah.out * aw.out;
    const int64_t rows = ad.out * ah.out;
    const int team = ThreadsForWork(threads, planes_ * (in_plane + out_plane));
    if (flat_ && planes_ >= 2 * team) {
      ParallelFor(planes_, team, [&](int64_t begin, int64_t end) {
        std::vector<float> v(static_cast<size_t>(out_plane + 2 * pool_.kernel_w));
        RunPlanes(x, y, in_plane, out_plane, begin, end, v.data());
      });
      return Status::Ok();
    }
    ParallelFor(planes_ * rows, team, [&](int64_t begin, int64_t end) {
      std::vector<float> columns(static_cast<size_t>(aw.in));
      RunRows(x, y, in_plane, out_plane, begin, end, columns.data());
    });
    return Status::Ok();
  }

 private:
  // One thread's share, cloned per vector width (cpu_vector_clones.h).
  IOS_VECTOR_CLONES void RunRows(const float* x, float* y, int64_t in_plane, int64_t out_plane,
                                 int64_t begin, int64_t end, float* columns) const {
    RowMajorPoolRows(
        pool_, [&](int64_t p) { return x + PlaneOffset(p, in_plane, x_batch_stride_); },
        [&](int64_t p) { return y + PlaneOffset(p, out_plane, y_batch_stride_); }, begin, end,
        columns);
  }

  IOS_VECTOR_CLONES void RunPlanes(const float* x, float* y, int64_t in_plane, int64_t out_plane,
                                   int64_t begin, int64_t end, float* v) const {
    for (int64_t p = begin; p < end; ++p) {
      FlatPlanePool(pool_, kernel_h_, h_lo_, h_hi_, x + PlaneOffset(p, in_plane, x_batch_stride_),
                    y + PlaneOffset(p, out_plane, y_batch_stride_), v);
    }
  }

  // Where plane p (batch item p / C, channel p % C) starts: dense, or in a strided view.
  int64_t PlaneOffset(int64_t p, int64_t plane, int64_t batch_stride) const {
    if (batch_stride == 0) return p * plane;
    return (p / channels_) * batch_stride + (p % channels_) * plane;
  }

  PoolKind kind_;
  int64_t channels_;
  int64_t planes_;
  std::vector<AxisWindows> axes_;  // D, H, W (unit axes for 1-D and 2-D pools)
  int64_t x_batch_stride_ = 0;     // elements between batch items; 0: dense
  int64_t y_batch_stride_ = 0;
  RowMajorPool pool_;
  bool flat_ = false;  // FlatPlanePool's case, with its window height and interior rows
  int64_t kernel_h_ = 0;
  int64_t h_lo_ = 0;
  int64_t h_hi_ = 0;
};

// The same pools on channels-last X and Y: [N, D, H, W, C] with unit axes as above.
struct ChannelsLastPool {
  PoolKind kind;
  int64_t channels;
  const AxisWindows* axes;  // D, H, W
};

// Channels of one output pixel over its window's input pixels (`taps`), the partial results in
// vector registers: accumulating into Y instead loaded and stored each output element once per
// tap, which left Inception V3's 3x3 average pools at batch 8 at 2.5x onnxruntime's time.
// V is the target's own vector (cpu_vector_clones.h): GCC does a wider vector's max one element
// at a time, which left GoogLeNet's max pools at batch 8 on AVX2 at 1 GFLOP/s, 30% of its time.
// The helpers are inlined into each target's entry below, so no vector crosses a call: GCC's
// note that the baseline target passes them differently (-Wpsabi) does not apply.
// (Clang reads the same pragma and has the same warning; the sanitizer builds use it.)
#pragma GCC diagnostic ignored "-Wpsabi"
typedef float Floats16 __attribute__((vector_size(64)));
typedef float Floats8 __attribute__((vector_size(32)));
typedef float Floats4 __attribute__((vector_size(16)));

template <typename V>
IOS_ALWAYS_INLINE V LoadV(const float* p) {
  V v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}

template <typename V>
IOS_ALWAYS_INLINE void StoreV(float* p, V v) {
  __builtin_memcpy(p, &v, sizeof(v));
}

template <typename V>
IOS_ALWAYS_INLINE V MaxV(V a, V x) {
  return x > a ? x : a;
}

template <typename V, bool kIsMax>
IOS_ALWAYS_INLINE void PoolPixelChannels(const float* const* taps, int64_t tap_count,
                                         int64_t channels, float scale, float* __restrict yp) {
  constexpr int64_t kLanes = sizeof(V) / sizeof(float);
  const float init = kIsMax ? std::numeric_limits<float>::lowest() : 0.f;
  const V init_v = init - V{};
  const V scale_v = scale + V{};
  int64_t c = 0;
  for (; c + 4 * kLanes <= channels; c += 4 * kLanes) {  // four registers: independent chains
    V a0 = init_v, a1 = init_v, a2 = init_v, a3 = init_v;
    for (int64_t t = 0; t < tap_count; ++t) {
      const float* xp = taps[t] + c;
      if (kIsMax) {
        a0 = MaxV(a0, LoadV<V>(xp));
        a1 = MaxV(a1, LoadV<V>(xp + kLanes));
        a2 = MaxV(a2, LoadV<V>(xp + 2 * kLanes));
        a3 = MaxV(a3, LoadV<V>(xp + 3 * kLanes));
      } else {
        a0 += LoadV<V>(xp);
        a1 += LoadV<V>(xp + kLanes);
        a2 += LoadV<V>(xp + 2 * kLanes);
        a3 += LoadV<V>(xp + 3 * kLanes);
      }
    }
    if (!kIsMax) {
      a0 *= scale_v;
      a1 *= scale_v;
      a2 *= scale_v;
      a3 *= scale_v;
    }
    StoreV(yp + c, a0);
    StoreV(yp + c + kLanes, a1);
    StoreV(yp + c + 2 * kLanes, a2);
    StoreV(yp + c + 3 * kLanes, a3);
  }
  for (; c + kLanes <= channels; c += kLanes) {
    V a = init_v;
    for (int64_t t = 0; t < tap_count; ++t)
      a = kIsMax ? MaxV(a, LoadV<V>(taps[t] + c)) : a + LoadV<V>(taps[t] + c);
    StoreV(yp + c, kIsMax ? a : a * scale_v);
  }
  for (; c < channels; ++c) {
    float a = init;
    for (int64_t t = 0; t < tap_count; ++t) {
      const float x = taps[t][c];
      a = kIsMax ? (x > a ? x : a) : a + x;
    }
    yp[c] = kIsMax ? a : a * scale;
  }
}

// Output pixels [begin, end) of all batch items, counted from the first item's first pixel.
template <typename V>
IOS_ALWAYS_INLINE void ChannelsLastPoolPixels(const ChannelsLastPool& pool, const float* x,
                                              float* y, int64_t begin, int64_t end) {
  const PoolKind kind = pool.kind;
  const AxisWindows& ad = pool.axes[0];
  const AxisWindows& ah = pool.axes[1];
  const AxisWindows& aw = pool.axes[2];
  const int64_t out_pixels = ad.out * ah.out * aw.out;
  const int64_t in_pixels = ad.in * ah.in * aw.in;
  const int64_t c_count = pool.channels;
  std::vector<const float*> taps;
  for (int64_t p = begin; p < end; ++p) {
    const int64_t n = p / out_pixels;
    int64_t rest = p % out_pixels;
    const int64_t ow = rest % aw.out;
    rest /= aw.out;
    const int64_t oh = rest % ah.out;
    const int64_t od = rest / ah.out;
    float* __restrict yp = y + p * c_count;
    const float* xn = x + n * in_pixels * c_count;
    taps.clear();
    for (int64_t kd = ad.k_begin[od]; kd < ad.k_end[od]; ++kd) {
      const int64_t d = ad.start[od] + kd * ad.dilation;
      for (int64_t kh = ah.k_begin[oh]; kh < ah.k_end[oh]; ++kh) {
        const int64_t h = ah.start[oh] + kh * ah.dilation;
        for (int64_t kw = aw.k_begin[ow]; kw < aw.k_end[ow]; ++kw) {
          const int64_t w = aw.start[ow] + kw * aw.dilation;
          taps.push_back(xn + ((d * ah.in + h) * aw.in + w) * c_count);
        }
      }
    }
    const int64_t tap_count = static_cast<int64_t>(taps.size());
    if (kind == PoolKind::kMax) {
      PoolPixelChannels<V, true>(taps.data(), tap_count, c_count, 1.f, yp);
      continue;
    }
    const int64_t divisor =
        kind == PoolKind::kAverageIncludePad
            ? ad.padded_taps[od] * ah.padded_taps[oh] * aw.padded_taps[ow]
            : (ad.k_end[od] - ad.k_begin[od]) * (ah.k_end[oh] - ah.k_begin[oh]) *
                  (aw.k_end[ow] - aw.k_begin[ow]);
    // No tap inside the input (or a zero divisor): the reference's 0.
    const float scale = divisor > 0 ? 1.f / static_cast<float>(divisor) : 0.f;
    PoolPixelChannels<V, false>(taps.data(), divisor > 0 ? tap_count : 0, c_count, scale, yp);
  }
}

// One entry per x86 vector width, each with its own vector type (cpu_vector_clones.h).
IOS_TARGET_AVX512 void ChannelsLastPoolPixels64(const ChannelsLastPool& pool, const float* x,
                                                float* y, int64_t begin, int64_t end) {
  ChannelsLastPoolPixels<Floats16>(pool, x, y, begin, end);
}

IOS_TARGET_AVX2 void ChannelsLastPoolPixels32(const ChannelsLastPool& pool, const float* x,
                                              float* y, int64_t begin, int64_t end) {
  ChannelsLastPoolPixels<Floats8>(pool, x, y, begin, end);
}

void ChannelsLastPoolPixels16(const ChannelsLastPool& pool, const float* x, float* y,
                              int64_t begin, int64_t end) {
  ChannelsLastPoolPixels<Floats4>(pool, x, y, begin, end);
}

using PoolPixelsFn = void (*)(const ChannelsLastPool&, const float*, float*, int64_t, int64_t);

// The entry for this CPU's vector width.
PoolPixelsFn NativePoolPixels() {
  const int vector_bytes = NativeVectorBytes();
  return vector_bytes == 64   ? ChannelsLastPoolPixels64
         : vector_bytes == 32 ? ChannelsLastPoolPixels32
                              : ChannelsLastPoolPixels16;
}

// The window pools on channels-blocked-8 X and Y: [N, C / 8, D, H, W, 8], `planes` = N * C / 8
// planes of pixels of 8 channels, a vector of 8 per pixel. An output row of a plane first
// reduces its window's input rows into one row of columns (the taps along D and H), then each
// output pixel its window's columns (the taps along W): a 3x3 window costs 3 + 3 vector ops per
// output instead of 9, in loops without per-tap bookkeeping. (Walking each output pixel's taps,
// as the row-major kernel does, left Inception V3's 3x3 average pools at twice their
// channels-last time.)
struct BlockedPool {
  PoolKind kind;
  const AxisWindows* axes;  // D, H, W
};

// Output rows [begin, end) of all planes, counted as plane * (D_out * H_out) + row; `columns`
// holds a row of W_in vectors. The tables' sizes and entries are read into locals first: the
// vector stores (memcpy) may alias anything, so the compiler would reload them on every tap.
IOS_ALWAYS_INLINE void BlockedPoolRows(const BlockedPool& pool, const float* x, float* y,
                                       int64_t begin, int64_t end, float* __restrict columns) {
  std::vector<const float*> rows_in_window;  // of the output row's window
  using V = Floats8;
  const AxisWindows& ad = pool.axes[0];
  const AxisWindows& ah = pool.axes[1];
  const AxisWindows& aw = pool.axes[2];
  const bool is_max = pool.kind == PoolKind::kMax;
  const bool include_pad = pool.kind == PoolKind::kAverageIncludePad;
  const V init = (is_max ? std::numeric_limits<float>::lowest() : 0.f) - V{};
  const int64_t h_out = ah.out, h_in = ah.in, w_in = aw.in, w_out = aw.out;
  const int64_t d_dilation = ad.dilation, h_dilation = ah.dilation, w_dilation = aw.dilation;
  const int64_t rows = ad.out * h_out;
  const int64_t in_plane = ad.in * h_in * w_in * 8;
  const int64_t out_plane = rows * w_out * 8;
  const int64_t* w_start = aw.start.data();
  const int64_t* w_begin = aw.k_begin.data();
  const int64_t* w_end = aw.k_end.data();
  const int64_t* w_padded = aw.padded_taps.data();
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t plane = unit / rows;
    const int64_t row_index = unit % rows;
    const int64_t od = row_index / h_out;
    const int64_t oh = row_index % h_out;
    const float* xp = x + plane * in_plane;
    float* __restrict yp = y + plane * out_plane + row_index * w_out * 8;
    const int64_t d_begin = ad.k_begin[od], d_end = ad.k_end[od], d_start = ad.start[od];
    const int64_t h_begin = ah.k_begin[oh], h_end = ah.k_end[oh], h_start = ah.start[oh];
    rows_in_window.clear();
    for (int64_t kd = d_begin; kd < d_end; ++kd) {
      const int64_t d = d_start + kd * d_dilation;
      for (int64_t kh = h_begin; kh < h_end; ++kh) {
        const int64_t h = h_start + kh * h_dilation;
        rows_in_window.push_back(xp + (d * h_in + h) * w_in * 8);
      }
    }
    // Each column over the window's rows, in registers, stored once.
    const float* const* window_rows = rows_in_window.data();
    const int64_t row_count = static_cast<int64_t>(rows_in_window.size());
    for (int64_t w = 0; w < w_in; ++w) {
      V c = init;
      for (int64_t r = 0; r < row_count; ++r) {
        const V v = LoadV<V>(window_rows[r] + w * 8);
        c = is_max ? MaxV(c, v) : c + v;
      }
      StoreV(columns + w * 8, c);
    }
    const int64_t rows_in = row_count;
    const int64_t row_padded = ad.padded_taps[od] * ah.padded_taps[oh];
    for (int64_t ow = 0; ow < w_out; ++ow) {
      const int64_t k_begin = w_begin[ow], k_end = w_end[ow];
      const float* first = columns + w_start[ow] * 8;
      V acc = init;
      for (int64_t kw = k_begin; kw < k_end; ++kw) {
        const V v = LoadV<V>(first + kw * w_dilation * 8);
        acc = is_max ? MaxV(acc, v) : acc + v;
      }
      if (!is_max) {
        const int64_t divisor =
            include_pad ? row_padded * w_padded[ow] : rows_in * (k_end - k_begin);
        // No tap inside the input (or a zero divisor): the reference's 0.
        acc = divisor > 0 ? acc * (1.f / static_cast<float>(divisor)) : V{};
      }
      StoreV(yp + ow * 8, acc);
    }
  }
}

// AVX2 (and AVX-512) machines run a vector of 8 in one register; others in two.
IOS_TARGET_AVX2 void BlockedPoolRows32(const BlockedPool& pool, const float* x, float* y,
                                       int64_t begin, int64_t end, float* columns) {
  BlockedPoolRows(pool, x, y, begin, end, columns);
}

void BlockedPoolRows16(const BlockedPool& pool, const float* x, float* y, int64_t begin,
                       int64_t end, float* columns) {
  BlockedPoolRows(pool, x, y, begin, end, columns);
}

class BlockedPoolCpuKernel : public CpuKernel {
 public:
  BlockedPoolCpuKernel(PoolKind kind, int64_t planes, std::vector<AxisWindows> axes)
      : kind_(kind), planes_(planes), axes_(std::move(axes)) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    const int64_t rows = axes_[0].out * axes_[1].out;
    const int64_t in_plane = axes_[0].in * axes_[1].in * axes_[2].in;
    const int team = ThreadsForWork(threads, planes_ * (in_plane + rows * axes_[2].out) * 8);
    const BlockedPool pool{kind_, axes_.data()};
    ParallelFor(planes_ * rows, team, [&](int64_t begin, int64_t end) {
      std::vector<float> columns(static_cast<size_t>(axes_[2].in * 8));
      rows_(pool, x, y, begin, end, columns.data());
    });
    return Status::Ok();
  }

 private:
  PoolKind kind_;
  int64_t planes_;
  std::vector<AxisWindows> axes_;  // D, H, W (a unit D axis for 2-D pools)
  void (*rows_)(const BlockedPool&, const float*, float*, int64_t, int64_t,
                float*) = NativeVectorBytes() >= 32 ? BlockedPoolRows32 : BlockedPoolRows16;
};

class ChannelsLastPoolCpuKernel : public CpuKernel {
 public:
  ChannelsLastPoolCpuKernel(PoolKind kind, int64_t batch, int64_t channels,
                            std::vector<AxisWindows> axes)
      : kind_(kind), batch_(batch), channels_(channels), axes_(std::move(axes)) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    const int64_t out_pixels = axes_[0].out * axes_[1].out * axes_[2].out;
    const int64_t in_pixels = axes_[0].in * axes_[1].in * axes_[2].in;
    const int team = ThreadsForWork(threads, batch_ * (in_pixels + out_pixels) * channels_);
    const ChannelsLastPool pool{kind_, channels_, axes_.data()};
    ParallelFor(batch_ * out_pixels, team, [&](int64_t begin, int64_t end) {
      pixels_(pool, x, y, begin, end);
    });
    return Status::Ok();
  }

 private:
  PoolKind kind_;
  int64_t batch_;
  int64_t channels_;
  std::vector<AxisWindows> axes_;  // D, H, W (unit axes for 1-D and 2-D pools)
  PoolPixelsFn pixels_ = NativePoolPixels();  // picked once, as the kernel is made
};

StatusOr<std::unique_ptr<CpuKernel>> CreateWindowPool(const CpuKernelContext& context,
                                                      bool is_max) {
  const Node& node = *context.node;
  if (context.input_types.empty() || context.output_types.empty())
    return InvalidInput("needs an input and an output");
  const TensorType& x = context.input_types[0];
  // Float32 only, and MaxPool's optional Indices output stays with the reference.
  if (x.dtype != DType::kFloat32 || context.output_types.size() > 1)
    return std::unique_ptr<CpuKernel>();
  const size_t rank = x.dims.size();
  if (rank < 3 || rank > 5) return std::unique_ptr<CpuKernel>();
  if (!node.attrs.Has("kernel_shape")) return InvalidInput("kernel_shape is required");
  IOS_ASSIGN_OR_RETURN(Dims kernel, node.attrs.GetInts("kernel_shape", {}));
  IOS_ASSIGN_OR_RETURN(int64_t ceil_mode, node.attrs.GetInt("ceil_mode", 0));
  const Dims in_spatial(x.dims.begin() + 2, x.dims.end());
  IOS_ASSIGN_OR_RETURN(WindowGeometry geo,
                       ComputeWindowGeometry(node, in_spatial, kernel, ceil_mode != 0));
  Dims out_dims = {x.dims[0], x.dims[1]};
  out_dims.insert(out_dims.end(), geo.output.begin(), geo.output.end());
  if (out_dims != context.output_types[0].dims)
    return InvalidInput("computed output " + DimsToString(out_dims) + " but the plan has " +
                        DimsToString(context.output_types[0].dims));

  PoolKind kind = PoolKind::kMax;
  if (!is_max) {
    IOS_ASSIGN_OR_RETURN(int64_t include_pad, node.attrs.GetInt("count_include_pad", 0));
    kind = include_pad != 0 ? PoolKind::kAverageIncludePad : PoolKind::kAverageExcludePad;
  }
  std::vector<AxisWindows> axes;
  const size_t unit_axes = 5 - rank;
  for (size_t i = 0; i < unit_axes; ++i) axes.push_back(MakeAxis(1, 1, 1, 1, 1, 0, 0));
  for (size_t d = 0; d < in_spatial.size(); ++d) {
    axes.push_back(MakeAxis(in_spatial[d], geo.output[d], geo.kernel[d], geo.strides[d],
                            geo.dilations[d], geo.pads_begin[d], geo.pads_end[d]));
  }
  const NodeBatchStrides& strides = context.batch_strides;
  if (context.input_layout(0) == Layout::kChannelsBlocked8 ||
      context.output_layout(0) == Layout::kChannelsBlocked8) {
    if (strides.any()) return Internal("a blocked pool cannot take a strided view");
    if (rank != 4 || !HasChannelsBlocked8Form(x.dims) ||
        context.input_layout(0) != context.output_layout(0))
      return Internal("a blocked pool takes [N, C, H, W] with C a multiple of 8, in and out");
    return std::unique_ptr<CpuKernel>(
        new BlockedPoolCpuKernel(kind, x.dims[0] * x.dims[1] / 8, std::move(axes)));
  }
  if (context.input_layout(0) == Layout::kChannelsLast ||
      context.output_layout(0) == Layout::kChannelsLast) {
    if (strides.any()) return Internal("a channels-last pool cannot take a strided view");
    return std::unique_ptr<CpuKernel>(
        new ChannelsLastPoolCpuKernel(kind, x.dims[0], x.dims[1], std::move(axes)));
  }
  const size_t h = geo.kernel.size() >= 2 ? geo.kernel.size() - 2 : 0;  // H, when the pool has it
  return std::unique_ptr<CpuKernel>(new PoolCpuKernel(
      kind, x.dims[0], x.dims[1], std::move(axes), geo.kernel.size() >= 2 ? geo.strides[h] : 1,
      geo.kernel.size() >= 2 ? geo.kernel[h] : 1, geo.strides.back(), geo.kernel.back(),
      geo.pads_begin.back(), strides.inputs.empty() ? 0 : strides.inputs[0],
      strides.outputs.empty() ? 0 : strides.outputs[0]));
}

// GlobalAveragePool / GlobalMaxPool: one value per plane.
class GlobalPoolCpuKernel : public CpuKernel {
 public:
  GlobalPoolCpuKernel(bool is_max, int64_t planes, int64_t plane_size)
      : is_max_(is_max), planes_(planes), plane_size_(plane_size) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    const int64_t size = plane_size_;
    ParallelFor(planes_, ThreadsForWork(threads, planes_ * size), [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const float* plane = x + p * size;
        if (is_max_) {
          float best = plane[0];
          for (int64_t i = 1; i < size; ++i) best = plane[i] > best ? plane[i] : best;
          y[p] = best;
        } else {
          // Eight partial sums: vectorisable, and more accurate than one running sum.
          float partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
          int64_t i = 0;
          for (; i + 8 <= size; i += 8)
            for (int j = 0; j < 8; ++j) partial[j] += plane[i + j];
          float sum = 0.f;
          for (; i < size; ++i) sum += plane[i];
          for (int j = 0; j < 8; ++j) sum += partial[j];
          y[p] = sum / static_cast<float>(size);
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool is_max_;
  int64_t planes_;
  int64_t plane_size_;
};

constexpr uintptr_t kCacheLineBytes = 64;
constexpr int64_t kFloatsPerLine = kCacheLineBytes / sizeof(float);

// The first cache-line boundary at or after `p` (a buffer with kFloatsPerLine spare floats).
float* AlignToLine(float* p) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(p);
  return reinterpret_cast<float*>((address + kCacheLineBytes - 1) & ~(kCacheLineBytes - 1));
}

// Reduces `count` >= 1 rows of `c_count` channels, `row_stride` floats apart, into `acc` (sum or
// max): a thread's share of a channels-last global pool's pixel rows, and the threads' partial
// rows combined.
IOS_VECTOR_CLONES void ReduceRows(bool is_max, const float* rows, int64_t count,
                                  int64_t row_stride, int64_t c_count, float* __restrict acc) {
  std::copy(rows, rows + c_count, acc);
  for (int64_t p = 1; p < count; ++p) {
    const float* __restrict row = rows + p * row_stride;
    if (is_max) {
      for (int64_t c = 0; c < c_count; ++c) acc[c] = row[c] > acc[c] ? row[c] : acc[c];
    } else {
      for (int64_t c = 0; c < c_count; ++c) acc[c] += row[c];
    }
  }
}

// GlobalAveragePool / GlobalMaxPool of a channels-last X: per batch item, the pixel rows
// reduced into one row of C (the [N, C, 1, ...] output is the same bytes in both layouts).
// Each thread streams through a contiguous run of pixel rows into a row of its own, the rows
// then combined: memory is read in order (a first version took channel blocks per thread,
// striding by C, at twice onnxruntime's time on EfficientNet-B0's squeeze-and-excitation).
class ChannelsLastGlobalPoolCpuKernel : public CpuKernel {
 public:
  ChannelsLastGlobalPoolCpuKernel(bool is_max, int64_t batch, int64_t channels, int64_t pixels)
      : is_max_(is_max), batch_(batch), channels_(channels), pixels_(pixels) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    const int64_t c_count = channels_;
    const int team = ThreadsForWork(threads, batch_ * pixels_ * c_count);
    // Per batch item, `parts` runs of pixels; each (item, part) reduces into its own row.
    const int64_t parts =
        std::min<int64_t>(pixels_, std::max<int64_t>(1, team / batch_ + (team % batch_ != 0)));
    // Each row starts on a cache line of its own: two threads adding into one line, about 6000
    // times each, made EfficientNet-B0's first squeeze at batch 1 3x slower on two threads
    // than on one (0.156 against 0.053 ms).
    const int64_t stride = (c_count + kFloatsPerLine - 1) / kFloatsPerLine * kFloatsPerLine;
    std::vector<float> storage(static_cast<size_t>(batch_ * parts * stride + kFloatsPerLine));
    float* rows = AlignToLine(storage.data());
    ParallelFor(batch_ * parts, team, [&](int64_t begin, int64_t end) {
      for (int64_t unit = begin; unit < end; ++unit) {
        const int64_t n = unit / parts;
        const int64_t part = unit % parts;
        const int64_t p0 = pixels_ * part / parts;
        const int64_t p1 = pixels_ * (part + 1) / parts;
        ReduceRows(is_max_, x + (n * pixels_ + p0) * c_count, p1 - p0, c_count, c_count,
                   rows + unit * stride);
      }
    });
    const float scale = 1.f / static_cast<float>(pixels_);
    for (int64_t n = 0; n < batch_; ++n) {
      float* yn = y + n * c_count;
      ReduceRows(is_max_, rows + n * parts * stride, parts, stride, c_count, yn);
      if (!is_max_)
        for (int64_t c = 0; c < c_count; ++c) yn[c] *= scale;
    }
    return Status::Ok();
  }

 private:
  bool is_max_;
  int64_t batch_;
  int64_t channels_;
  int64_t pixels_;
};

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateMaxPoolCpuKernel(const CpuKernelContext& context) {
  return CreateWindowPool(context, /*is_max=*/true);
}

StatusOr<std::unique_ptr<CpuKernel>> CreateAveragePoolCpuKernel(const CpuKernelContext& context) {
  return CreateWindowPool(context, /*is_max=*/false);
}

StatusOr<std::unique_ptr<CpuKernel>> CreateGlobalPoolCpuKernel(const CpuKernelContext& context) {
  if (context.input_types.empty() || context.output_types.empty())
    return InvalidInput("needs an input and an output");
  const TensorType& x = context.input_types[0];
  if (x.dtype != DType::kFloat32) return std::unique_ptr<CpuKernel>();  // the reference
  if (x.dims.size() < 3) return std::unique_ptr<CpuKernel>();
  const int64_t planes = x.dims[0] * x.dims[1];
  const int64_t plane_size = NumElements(Dims(x.dims.begin() + 2, x.dims.end()));
  if (plane_size == 0) return InvalidInput("empty spatial dimensions");
  if (NumElements(context.output_types[0].dims) != planes)
    return InvalidInput("output " + DimsToString(context.output_types[0].dims) +
                        " does not hold one value per plane of " + DimsToString(x.dims));
  const bool is_max = context.node->op_type == "GlobalMaxPool";
  if (context.input_layout(0) == Layout::kChannelsLast && !ChannelsLastIsRowMajor(x.dims))
    return std::unique_ptr<CpuKernel>(
        new ChannelsLastGlobalPoolCpuKernel(is_max, x.dims[0], x.dims[1], plane_size));
  // nChw8c: N * C / 8 channels-last items of 8 channels, whose rows of 8 are [N, C] in order.
  if (context.input_layout(0) == Layout::kChannelsBlocked8 && !ChannelsLastIsRowMajor(x.dims))
    return std::unique_ptr<CpuKernel>(
        new ChannelsLastGlobalPoolCpuKernel(is_max, planes / 8, 8, plane_size));
  return std::unique_ptr<CpuKernel>(new GlobalPoolCpuKernel(is_max, planes, plane_size));
}

}  // namespace ios
