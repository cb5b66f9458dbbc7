// Resize and Upsample on float32, any rank and any set of resized axes: an own OpenMP loop over
// tap tables built once per node from the shared math (kernels/math/resize_math.h), so that the
// CPU reads the same input elements with the same weights as the CUDA kernel (and as
// onnxruntime, whose float arithmetic that math follows).
//
// Why not oneDNN's resampling primitive: it maps output index o to (o + 0.5) * in / out - 0.5
// (the ratio of the lengths, not the node's scale) and rounds nearest half away from zero. That
// is ONNX's half_pixel with round_prefer_ceil, or linear half_pixel, only where the scale equals
// out / in, and it is neither the asymmetric/floor nearest that PyTorch exports nor
// align_corners; a second code path for that one case would round ties and weights its own way.
//
// Layout: the dims before the first resized axis are `planes`, each resized independently; the
// dims after the last resized axis are `inner`, a contiguous vector every tap moves as a whole;
// the last resized axis gives the columns, and the axes from the first resized one up to it
// give the rows, whose taps (every combination of those axes' taps) are tabulated per output
// row. An output element is sum over row taps r and column taps c of w_r * w_c * x[r + c + k].
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/math/resize_math.h"
#include "ops/resize_params.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"

namespace ios {
namespace {

// Taps of one output row or column: `count` per entry, offsets in input elements.
struct TapTable {
  int32_t count = 1;
  std::vector<int64_t> offset;
  std::vector<float> weight;
};

struct ResizeLayout {
  int64_t planes = 1;
  int64_t in_plane = 1;  // input elements per plane
  int64_t out_rows = 1;
  int64_t out_cols = 1;
  int64_t inner = 1;
  TapTable rows;
  TapTable cols;
  bool nearest = false;  // one tap of weight 1 everywhere
  int64_t repeat = 0;    // nearest, inner 1, each input column repeated this many times in turn
};

ResizeTaps IdentityTaps(int64_t o) {
  ResizeTaps taps;
  taps.count = 1;
  taps.index[0] = o;
  taps.weight[0] = 1.f;
  return taps;
}

ResizeTaps TapsOf(const ResizeParams& p, size_t d, int64_t o) {
  return ResizeAxisIsIdentity(p.axes[d]) ? IdentityTaps(o)
                                         : ResizeAxisTaps(p.interpolation, p.axes[d], o);
}

// Every combination of the taps of axes [first, last) for each output row (row-major over
// those axes' output indices); `strides[d]` is axis d's input stride.
TapTable RowTable(const ResizeParams& p, size_t first, size_t last, const Dims& strides) {
  TapTable table;
  table.offset = {0};
  table.weight = {1.f};
  for (size_t d = first; d < last; ++d) {
    TapTable next;
    next.count =
        table.count * (ResizeAxisIsIdentity(p.axes[d]) ? 1 : ResizeTapCount(p.interpolation.mode));
    const int64_t rows = static_cast<int64_t>(table.offset.size()) / table.count;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t o = 0; o < p.axes[d].out; ++o) {
        const ResizeTaps taps = TapsOf(p, d, o);
        for (int32_t k = 0; k < table.count; ++k) {
          for (int32_t t = 0; t < taps.count; ++t) {
            next.offset.push_back(table.offset[r * table.count + k] + taps.index[t] * strides[d]);
            next.weight.push_back(table.weight[r * table.count + k] * taps.weight[t]);
          }
        }
      }
    }
    table = std::move(next);
  }
  return table;
}

ResizeLayout MakeLayout(const ResizeParams& p) {
  ResizeLayout layout;
  const size_t rank = p.axes.size();
  size_t first = rank;
  size_t last = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (ResizeAxisIsIdentity(p.axes[d])) continue;
    first = std::min(first, d);
    last = d;
  }
  if (first == rank) {  // nothing resized: a copy, as one plane of one column
    first = 0;
    last = 0;
  }
  Dims strides(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) strides[d - 1] = strides[d] * p.axes[d].in;
  for (size_t d = 0; d < first; ++d) layout.planes *= p.axes[d].in;
  for (size_t d = first; d < rank; ++d) layout.in_plane *= p.axes[d].in;
  for (size_t d = last + 1; d < rank; ++d) layout.inner *= p.axes[d].in;
  layout.rows = RowTable(p, first, last, strides);
  layout.out_rows = static_cast<int64_t>(layout.rows.offset.size()) / layout.rows.count;
  layout.out_cols = p.axes[last].out;
  layout.cols.count = ResizeAxisIsIdentity(p.axes[last]) ? 1 : ResizeTapCount(p.interpolation.mode);
  for (int64_t o = 0; o < layout.out_cols; ++o) {
    const ResizeTaps taps = TapsOf(p, last, o);
    for (int32_t t = 0; t < taps.count; ++t) {
      layout.cols.offset.push_back(taps.index[t] * strides[last]);
      layout.cols.weight.push_back(taps.weight[t]);
    }
  }
  layout.nearest = layout.rows.count == 1 && layout.cols.count == 1;
  // Integer upsampling (2x nearest, whatever its coordinate mode gives): column j reads j / f.
  const int64_t f = layout.out_cols / std::max<int64_t>(p.axes[last].in, 1);
  bool repeats = layout.nearest && layout.inner == 1 && f >= 2 &&
                 layout.out_cols == f * p.axes[last].in;
  for (int64_t j = 0; repeats && j < layout.out_cols; ++j) repeats = layout.cols.offset[j] == j / f;
  if (repeats) layout.repeat = f;
  return layout;
}

class ResizeCpuKernel : public CpuKernel {
 public:
  explicit ResizeCpuKernel(ResizeLayout layout) : l_(std::move(layout)) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    const int64_t rows = l_.planes * l_.out_rows;
    const int64_t row_size = l_.out_cols * l_.inner;
    const int64_t work = rows * row_size * l_.rows.count * l_.cols.count;
    ParallelFor(rows, ThreadsForWork(threads, work), [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t plane = row / l_.out_rows;
        const int64_t r = row % l_.out_rows;
        float* out = y + row * row_size;
        const float* in = x + plane * l_.in_plane;
        if (l_.nearest) {
          // Upsampling repeats rows: copy the row just written when it reads the same input.
          if (row > begin && r > 0 && l_.rows.offset[r] == l_.rows.offset[r - 1]) {
            std::memcpy(out, out - row_size, sizeof(float) * row_size);
          } else {
            NearestRow(in + l_.rows.offset[r], out);
          }
        } else {
          WeightedRow(in, r, out);
        }
      }
    });
    return Status::Ok();
  }

 private:
  void NearestRow(const float* in, float* out) const {
    const int64_t* cols = l_.cols.offset.data();
    if (l_.repeat == 2) return RepeatColumns<2>(in, out, l_.out_cols / 2);
    if (l_.repeat > 0) return RepeatColumns<0>(in, out, l_.out_cols / l_.repeat);
    if (l_.inner == 1) {
      for (int64_t j = 0; j < l_.out_cols; ++j) out[j] = in[cols[j]];
      return;
    }
    for (int64_t j = 0; j < l_.out_cols; ++j)
      std::memcpy(out + j * l_.inner, in + cols[j], sizeof(float) * l_.inner);
  }

  // Each of `in_cols` values kFactor times in turn (l_.repeat when kFactor is 0); a constant
  // factor makes the loop vector shuffles instead of the index table's gather.
  template <int kFactor>
  void RepeatColumns(const float* __restrict in, float* __restrict out, int64_t in_cols) const {
    const int64_t f = kFactor > 0 ? kFactor : l_.repeat;
    for (int64_t i = 0; i < in_cols; ++i)
      for (int64_t t = 0; t < f; ++t) out[i * f + t] = in[i];
  }

  // out = sum over the row's taps of w_r * (the input row at r, interpolated along the columns).
  void WeightedRow(const float* in, int64_t r, float* out) const {
    const int32_t tr = l_.rows.count;
    const int64_t* row_offset = l_.rows.offset.data() + r * tr;
    const float* row_weight = l_.rows.weight.data() + r * tr;
    if (l_.inner == 1 && tr <= kMaxRowTaps) {
      const float* src[kMaxRowTaps];
      for (int32_t k = 0; k < tr; ++k) src[k] = in + row_offset[k];
      switch (l_.cols.count) {
        case 1:
          return ColumnsOfOne<1>(src, row_weight, tr, out);
        case 2:
          return ColumnsOfOne<2>(src, row_weight, tr, out);
        default:
          return ColumnsOfOne<4>(src, row_weight, tr, out);
      }
    }
    const int32_t tc = l_.cols.count;
    const int64_t* cols = l_.cols.offset.data();
    const float* col_w = l_.cols.weight.data();
    std::fill(out, out + l_.out_cols * l_.inner, 0.f);
    for (int32_t k = 0; k < tr; ++k) {
      const float* src = in + row_offset[k];
      for (int64_t j = 0; j < l_.out_cols; ++j) {
        float* o = out + j * l_.inner;
        for (int32_t t = 0; t < tc; ++t) {
          const float w = row_weight[k] * col_w[j * tc + t];
          const float* s = src + cols[j * tc + t];
          for (int64_t i = 0; i < l_.inner; ++i) o[i] += w * s[i];
        }
      }
    }
  }

  // One pass over the output row when each column is one element (inner == 1): per column, the
  // weighted sum of each source row's kTaps taps, weighted by that row's weight.
  template <int kTaps>
  void ColumnsOfOne(const float* const* src, const float* row_weight, int32_t tr,
                    float* out) const {
    const int64_t* cols = l_.cols.offset.data();
    const float* col_w = l_.cols.weight.data();
    for (int64_t j = 0; j < l_.out_cols; ++j) {
      const int64_t* c = cols + j * kTaps;
      const float* w = col_w + j * kTaps;
      float sum = 0.f;
      for (int32_t k = 0; k < tr; ++k) {
        float across = 0.f;
        for (int t = 0; t < kTaps; ++t) across += w[t] * src[k][c[t]];
        sum += row_weight[k] * across;
      }
      out[j] = sum;
    }
  }

  static constexpr int32_t kMaxRowTaps = 16;  // 2-D cubic: 4 rows; 3-D cubic: 16
  ResizeLayout l_;
};

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateResizeCpuKernel(const CpuKernelContext& context) {
  if (context.input_types.empty() || context.output_types.empty())
    return InvalidInput("needs an input and an output");
  if (context.input_types[0].dtype != DType::kFloat32)
    return std::unique_ptr<CpuKernel>();  // the reference
  StatusOr<ResizeParams> parsed =
      ParseResize(NodeInputs{*context.node, context.input_types, context.constants});
  // Unsupported (a case outside the shared math): the reference kernel says so or runs it.
  if (!parsed.ok() && parsed.status().code() == StatusCode::kUnsupported)
    return std::unique_ptr<CpuKernel>();
  if (!parsed.ok()) return parsed.status();
  const ResizeParams& params = parsed.value();
  IOS_RETURN_IF_ERROR(CheckPlannedOutput(params.out_dims, context.output_types[0].dims));
  return std::unique_ptr<CpuKernel>(new ResizeCpuKernel(MakeLayout(params)));
}

}  // namespace ios
