// Data movement on dense row-major buffers of any element type: Concat, Split, Slice,
// Transpose, DepthToSpace and SpaceToDepth (transposes of a six-dim view), Pad, and the shape-only
// ops (Reshape, Flatten, Squeeze, Unsqueeze, Identity) as copies. Everything shape-dependent is
// worked out at creation; Slice and Pad need their starts/pads inputs to be constants (otherwise
// the reference runs them).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/math/tensor_math.h"
#include "kernels/reference/reference_util.h"
#include "ops/op_params.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"

namespace ios {
namespace {

using KernelOr = StatusOr<std::unique_ptr<CpuKernel>>;


// ---- Strided gather (Slice, Transpose) -------------------------------------------------------

// out (row-major over dims) [i] = in[base + sum_d index_d * in_strides_d], elements of elem bytes.
struct GatherPlan {
  Dims dims;
  Dims in_strides;
  int64_t in_base = 0;
  size_t elem = 0;
};

// Drops unit dims and merges neighbours that the input walks contiguously.
GatherPlan Collapse(GatherPlan plan) {
  GatherPlan out;
  out.in_base = plan.in_base;
  out.elem = plan.elem;
  for (size_t d = 0; d < plan.dims.size(); ++d) {
    if (plan.dims[d] == 1) continue;
    if (!out.dims.empty() && out.in_strides.back() == plan.in_strides[d] * plan.dims[d]) {
      out.dims.back() *= plan.dims[d];
      out.in_strides.back() = plan.in_strides[d];
      continue;
    }
    out.dims.push_back(plan.dims[d]);
    out.in_strides.push_back(plan.in_strides[d]);
  }
  if (out.dims.empty()) {
    out.dims = {1};
    out.in_strides = {1};
  }
  return out;
}

template <typename T>
void GatherRow(const uint8_t* in, int64_t stride, uint8_t* out, int64_t count) {
  const T* src = reinterpret_cast<const T*>(in);
  T* dst = reinterpret_cast<T*>(out);
  for (int64_t i = 0; i < count; ++i) dst[i] = src[i * stride];
}

// Output rows that walk the input with a stride (NCHW to NHWC, DepthToSpace's rows of 2): the
// output's last dim `a` against the input's contiguous dim `k`, in tiles of kTile x kTile, so
// that a tile's reads and writes each stay within kTile cache lines. Row by row, a 2-wide row
// paid its offset walk per 2 elements (DepthToSpace at 2x onnxruntime's time).
constexpr int64_t kTile = 16;

template <typename T>
void TransposeTiles(const GatherPlan& plan, size_t k, const uint8_t* input, uint8_t* output,
                    int threads) {
  const size_t rank = plan.dims.size();
  const size_t a = rank - 1;
  const int64_t na = plan.dims[a], sa = plan.in_strides[a], nk = plan.dims[k];
  const Dims out_strides = RowMajorStrides(plan.dims);
  const int64_t ok = out_strides[k];
  int64_t outer = 1;  // every dim but k and a
  for (size_t d = 0; d < a; ++d)
    if (d != k) outer *= plan.dims[d];
  const int64_t k_blocks = (nk + kTile - 1) / kTile;
  const T* in = reinterpret_cast<const T*>(input);
  T* out = reinterpret_cast<T*>(output);
  const int team = ThreadsForWork(threads, outer * nk * na * static_cast<int64_t>(sizeof(T)) / 4);
  ParallelFor(outer * k_blocks, team, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      int64_t rest = unit / k_blocks;
      const int64_t k0 = (unit % k_blocks) * kTile;
      const int64_t k1 = std::min(k0 + kTile, nk);
      int64_t in_offset = plan.in_base, out_offset = 0;
      for (int64_t d = static_cast<int64_t>(a) - 1; d >= 0; --d) {
        if (static_cast<size_t>(d) == k) continue;
        const int64_t i = rest % plan.dims[d];
        rest /= plan.dims[d];
        in_offset += i * plan.in_strides[d];
        out_offset += i * out_strides[d];
      }
      for (int64_t a0 = 0; a0 < na; a0 += kTile) {
        const int64_t a1 = std::min(a0 + kTile, na);
        for (int64_t ik = k0; ik < k1; ++ik) {
          const T* __restrict src = in + in_offset + ik;  // the input's k stride is 1
          T* __restrict dst = out + out_offset + ik * ok;
          for (int64_t ia = a0; ia < a1; ++ia) dst[ia] = src[ia * sa];
        }
      }
    }
  });
}

void RunGather(const GatherPlan& plan, const void* input, void* output, int threads) {
  const size_t rank = plan.dims.size();
  if (rank >= 2 && plan.in_strides[rank - 1] != 1) {
    for (size_t k = 0; k + 1 < rank; ++k) {
      if (plan.in_strides[k] != 1) continue;
      const uint8_t* in = static_cast<const uint8_t*>(input);
      uint8_t* out = static_cast<uint8_t*>(output);
      switch (plan.elem) {
        case 1:
          return TransposeTiles<uint8_t>(plan, k, in, out, threads);
        case 2:
          return TransposeTiles<uint16_t>(plan, k, in, out, threads);
        case 4:
          return TransposeTiles<uint32_t>(plan, k, in, out, threads);
        case 8:
          return TransposeTiles<uint64_t>(plan, k, in, out, threads);
        default:
          break;
      }
    }
  }
  const int64_t inner = plan.dims[rank - 1];
  const int64_t inner_stride = plan.in_strides[rank - 1];
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= plan.dims[d];
  const size_t elem = plan.elem;
  const uint8_t* in = static_cast<const uint8_t*>(input);
  uint8_t* out = static_cast<uint8_t*>(output);
  const int team = ThreadsForWork(threads, rows * inner * static_cast<int64_t>(elem) / 4);
  ParallelFor(rows, team, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t offset = plan.in_base;
      int64_t rest = row;
      for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
        offset += (rest % plan.dims[d]) * plan.in_strides[d];
        rest /= plan.dims[d];
      }
      const uint8_t* src = in + offset * static_cast<int64_t>(elem);
      uint8_t* dst = out + row * inner * static_cast<int64_t>(elem);
      if (inner_stride == 1) {
        std::memcpy(dst, src, static_cast<size_t>(inner) * elem);
        continue;
      }
      switch (elem) {
        case 1:
          GatherRow<uint8_t>(src, inner_stride, dst, inner);
          break;
        case 2:
          GatherRow<uint16_t>(src, inner_stride, dst, inner);
          break;
        case 4:
          GatherRow<uint32_t>(src, inner_stride, dst, inner);
          break;
        case 8:
          GatherRow<uint64_t>(src, inner_stride, dst, inner);
          break;
        default:
          for (int64_t i = 0; i < inner; ++i)
            std::memcpy(dst + i * elem, src + i * inner_stride * static_cast<int64_t>(elem), elem);
      }
    }
  });
}

class GatherCpuKernel : public CpuKernel {
 public:
  explicit GatherCpuKernel(GatherPlan plan) : plan_(std::move(plan)) {}
  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    RunGather(plan_, inputs[0], outputs[0], threads);
    return Status::Ok();
  }

 private:
  GatherPlan plan_;
};

// ---- Copy (Reshape, Flatten, Squeeze, Unsqueeze, Identity) ----------------------------------

class CopyCpuKernel : public CpuKernel {
 public:
  explicit CopyCpuKernel(size_t bytes) : bytes_(bytes) {}
  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    ParallelCopy(outputs[0], inputs[0], bytes_, threads);
    return Status::Ok();
  }

 private:
  size_t bytes_;
};

// ---- Concat, Split --------------------------------------------------------------------------

// Concat and Split skip a slice that already lies where they would copy it: a view of the whole
// at its own offset (plan/tensor_views.h: SlicesInPlace), whose source and destination are the
// same bytes. With partial views the op then copies only the other slices.
//
// Channels-last tensors (ir/layout.h) are rows of pixels, C values each: a channel concat of
// them is a concat of those rows, outer = N * spatial and a part's chunk its channels. A channel
// concat of nChw8c tensors of multiple-of-8 channels copies the same bytes as the row-major one.

// Byte offset of each part within one outer index of the whole.
std::vector<size_t> PartOffsets(const std::vector<size_t>& chunks) {
  std::vector<size_t> offsets;
  size_t offset = 0;
  for (size_t chunk : chunks) {
    offsets.push_back(offset);
    offset += chunk;
  }
  return offsets;
}

// Concat: for each outer index, each input's block dims[axis:] in turn.
class ConcatCpuKernel : public CpuKernel {
 public:
  ConcatCpuKernel(int64_t outer, std::vector<size_t> chunks)
      : outer_(outer), chunks_(std::move(chunks)), offsets_(PartOffsets(chunks_)) {
    for (size_t chunk : chunks_) out_chunk_ += chunk;
  }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    uint8_t* out = static_cast<uint8_t*>(outputs[0]);
    auto in_place = [&](size_t i) { return inputs[i] == out + offsets_[i]; };
    if (outer_ == 1) {  // one block per input
      for (size_t i = 0; i < chunks_.size(); ++i)
        if (!in_place(i)) ParallelCopy(out + offsets_[i], inputs[i], chunks_[i], threads);
      return Status::Ok();
    }
    const int team = ThreadsForWork(threads, static_cast<int64_t>(outer_ * out_chunk_ / 4));
    ParallelFor(outer_, team, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        for (size_t i = 0; i < chunks_.size(); ++i) {
          if (in_place(i)) continue;
          std::memcpy(out + o * out_chunk_ + offsets_[i],
                      static_cast<const uint8_t*>(inputs[i]) + o * chunks_[i], chunks_[i]);
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t outer_;
  std::vector<size_t> chunks_;   // bytes per outer index, per input
  std::vector<size_t> offsets_;  // where each input starts within an outer index of the output
  size_t out_chunk_ = 0;
};

// Split: the inverse of Concat (an omitted, i.e. null, output is skipped).
class SplitCpuKernel : public CpuKernel {
 public:
  SplitCpuKernel(int64_t outer, std::vector<size_t> chunks)
      : outer_(outer), chunks_(std::move(chunks)), offsets_(PartOffsets(chunks_)) {
    for (size_t chunk : chunks_) in_chunk_ += chunk;
  }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const uint8_t* in = static_cast<const uint8_t*>(inputs[0]);
    // Omitted, or already in place.
    auto skip = [&](size_t i) { return outputs[i] == nullptr || outputs[i] == in + offsets_[i]; };
    const int team = ThreadsForWork(threads, static_cast<int64_t>(outer_ * in_chunk_ / 4));
    ParallelFor(outer_, team, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        for (size_t i = 0; i < chunks_.size(); ++i) {
          if (skip(i)) continue;
          std::memcpy(static_cast<uint8_t*>(outputs[i]) + o * chunks_[i],
                      in + o * in_chunk_ + offsets_[i], chunks_[i]);
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t outer_;
  std::vector<size_t> chunks_;   // bytes per outer index, per output
  std::vector<size_t> offsets_;  // where each output starts within an outer index of the input
  size_t in_chunk_ = 0;
};

// ---- Pad ------------------------------------------------------------------------------------

class PadCpuKernel : public CpuKernel {
 public:
  PadCpuKernel(PadMode mode, Dims in_dims, Dims out_dims, Dims pad_begin, size_t elem,
               std::vector<uint8_t> attr_value, bool value_from_input)
      : mode_(mode),
        in_dims_(std::move(in_dims)),
        out_dims_(std::move(out_dims)),
        pad_begin_(std::move(pad_begin)),
        elem_(elem),
        attr_value_(std::move(attr_value)),
        value_from_input_(value_from_input) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    std::vector<uint8_t> value = attr_value_;
    if (value_from_input_ && inputs.size() > 2 && inputs[2] != nullptr)
      std::memcpy(value.data(), inputs[2], elem_);
    const uint8_t* in = static_cast<const uint8_t*>(inputs[0]);
    uint8_t* out = static_cast<uint8_t*>(outputs[0]);
    const size_t rank = out_dims_.size();
    const Dims in_strides = RowMajorStrides(in_dims_);
    const int64_t width = out_dims_[rank - 1];
    const int64_t in_width = in_dims_[rank - 1];
    const int64_t pad = pad_begin_[rank - 1];
    const size_t elem = elem_;
    // The run of the row copied as a block, [copy_begin, copy_end) in output columns.
    const int64_t copy_begin = std::clamp<int64_t>(pad, 0, width);
    const int64_t copy_end = std::clamp<int64_t>(pad + in_width, copy_begin, width);
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < rank; ++d) rows *= out_dims_[d];
    const int team = ThreadsForWork(threads, rows * width * static_cast<int64_t>(elem) / 4);
    ParallelFor(rows, team, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        uint8_t* dst = out + row * width * static_cast<int64_t>(elem);
        int64_t offset = 0;
        bool outside = false;
        int64_t rest = row;
        for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
          int64_t i = rest % out_dims_[d] - pad_begin_[d];
          rest /= out_dims_[d];
          if (i < 0 || i >= in_dims_[d]) {
            if (mode_ == PadMode::kConstant) {
              outside = true;
              break;
            }
            i = PadSourceIndex(mode_, i, in_dims_[d]);
          }
          offset += i * in_strides[d];
        }
        if (outside) {
          for (int64_t j = 0; j < width; ++j) std::memcpy(dst + j * elem, value.data(), elem);
          continue;
        }
        const uint8_t* src = in + offset * static_cast<int64_t>(elem);
        auto edge = [&](int64_t j) {
          const int64_t i = j - pad;
          if (mode_ == PadMode::kConstant) {
            std::memcpy(dst + j * elem, value.data(), elem);
          } else {
            std::memcpy(dst + j * elem, src + PadSourceIndex(mode_, i, in_width) * elem, elem);
          }
        };
        for (int64_t j = 0; j < copy_begin; ++j) edge(j);
        if (copy_end > copy_begin)
          std::memcpy(dst + copy_begin * elem, src + (copy_begin - pad) * elem,
                      static_cast<size_t>(copy_end - copy_begin) * elem);
        for (int64_t j = copy_end; j < width; ++j) edge(j);
      }
    });
    return Status::Ok();
  }

 private:
  PadMode mode_;
  Dims in_dims_;
  Dims out_dims_;
  Dims pad_begin_;
  size_t elem_;
  std::vector<uint8_t> attr_value_;
  bool value_from_input_;
};

// Common checks: one present input of a copyable dtype, outputs of the same dtype.
bool Copyable(const CpuKernelContext& context) {
  if (context.input_types.empty() || context.output_types.empty()) return false;
  const DType dtype = context.input_types[0].dtype;
  if (!IsCopyableDType(dtype)) return false;
  for (const TensorType& out : context.output_types)
    if (out.dtype != dtype) return false;
  return true;
}

NodeInputs InputsOf(const CpuKernelContext& context) {
  return NodeInputs{*context.node, context.input_types, context.constants};
}

// No kernel (the reference runs the node) when a parameter is only known at run time.
KernelOr ReferenceOrError(const Status& status) {
  if (status.code() == StatusCode::kUnsupported) return std::unique_ptr<CpuKernel>();
  return status;
}

// The gather of a transpose of `x` (output dim d is x's dim perm[d]).
KernelOr TransposeGatherKernel(const Dims& x, const Dims& perm, size_t elem) {
  GatherPlan plan;
  plan.elem = elem;
  const Dims strides = RowMajorStrides(x);
  for (int64_t axis : perm) {
    plan.dims.push_back(x[axis]);
    plan.in_strides.push_back(strides[axis]);
  }
  if (NumElements(plan.dims) == 0) return std::unique_ptr<CpuKernel>(new CopyCpuKernel(0));
  return std::unique_ptr<CpuKernel>(new GatherCpuKernel(Collapse(std::move(plan))));
}

// Bytes per outer index of each part of a Concat or Split.
std::vector<size_t> PartBytes(const AxisParts& parts, size_t elem) {
  std::vector<size_t> bytes;
  for (int64_t part : parts.parts) bytes.push_back(static_cast<size_t>(part) * elem);
  return bytes;
}

}  // namespace

KernelOr CreateCopyCpuKernel(const CpuKernelContext& context) {
  if (!Copyable(context)) return std::unique_ptr<CpuKernel>();
  const TensorType& x = context.input_types[0];
  if (NumElements(x.dims) != NumElements(context.output_types[0].dims))
    return InvalidInput("cannot copy " + DimsToString(x.dims) + " into " +
                        DimsToString(context.output_types[0].dims));
  return std::unique_ptr<CpuKernel>(
      new CopyCpuKernel(static_cast<size_t>(NumElements(x.dims)) * DTypeSize(x.dtype)));
}

namespace {

// Dropout at inference: Y is X; the optional mask is all true.
class DropoutCpuKernel : public CpuKernel {
 public:
  DropoutCpuKernel(size_t bytes, size_t mask_bytes) : bytes_(bytes), mask_bytes_(mask_bytes) {}
  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    ParallelCopy(outputs[0], inputs[0], bytes_, threads);
    if (outputs.size() > 1 && outputs[1] != nullptr) std::memset(outputs[1], 1, mask_bytes_);
    return Status::Ok();
  }

 private:
  size_t bytes_;
  size_t mask_bytes_;
};

}  // namespace

KernelOr CreateDropoutCpuKernel(const CpuKernelContext& context) {
  if (context.input_types.empty() || context.output_types.empty()) return InvalidInput("needs X and Y");
  const TensorType& x = context.input_types[0];
  const TensorType& y = context.output_types[0];
  if (x.dtype != y.dtype || x.dims != y.dims || !IsCopyableDType(x.dtype))
    return std::unique_ptr<CpuKernel>();  // the reference reports it
  size_t mask_bytes = 0;
  if (context.output_types.size() > 1) {
    const TensorType& mask = context.output_types[1];
    if (mask.dtype != DType::kBool || mask.dims != x.dims) return std::unique_ptr<CpuKernel>();
    mask_bytes = static_cast<size_t>(NumElements(mask.dims));
  }
  return std::unique_ptr<CpuKernel>(new DropoutCpuKernel(
      static_cast<size_t>(NumElements(x.dims)) * DTypeSize(x.dtype), mask_bytes));
}

namespace {

// Whether any tensor of a Concat or Split is stored channels-last (ConcatSplitTakesLayouts then
// said they all are, along axis 1).
bool ChannelsLastParts(const CpuKernelContext& context) {
  for (size_t i = 0; i < context.input_types.size(); ++i)
    if (context.input_layout(i) == Layout::kChannelsLast) return true;
  for (size_t i = 0; i < context.output_types.size(); ++i)
    if (context.output_layout(i) == Layout::kChannelsLast) return true;
  return false;
}

// A channel concat or split of channels-last tensors of `whole` dims as one of pixel rows.
AxisParts PixelRows(AxisParts parts, const Dims& whole) {
  const int64_t spatial = NumElements(Dims(whole.begin() + 2, whole.end()));
  parts.outer = whole[0] * spatial;
  for (int64_t& part : parts.parts) part = spatial == 0 ? 0 : part / spatial;  // its channels
  return parts;
}

}  // namespace

bool ConcatSplitTakesLayouts(const CpuKernelContext& context) {
  if (!context.any_non_row_major()) return true;
  const bool is_concat = context.node->op_type == "Concat";
  const std::vector<TensorType>& slices = is_concat ? context.input_types : context.output_types;
  if (context.input_types.empty() || context.output_types.empty()) return false;
  const TensorType& whole = is_concat ? context.output_types[0] : context.input_types[0];
  if (!HasChannelsLastForm(whole.dims)) return false;
  StatusOr<AxisParts> parts = is_concat ? ParseConcat(InputsOf(context), whole.dims)
                                        : ParseSplit(InputsOf(context), context.output_types);
  if (!parts.ok() || parts->axis != 1) return false;
  // Every slice and the whole in one layout, channels-last or blocked (an omitted Split output
  // does not count). Channel slices of nChw8c tensors whose channels are multiples of 8 are the
  // byte ranges of the row-major ones, so that the row-major copy does the job.
  const Layout layout = is_concat ? context.output_layout(0) : context.input_layout(0);
  if (layout == Layout::kRowMajor) return false;
  if (layout == Layout::kChannelsBlocked8 && !HasChannelsBlocked8Form(whole.dims)) return false;
  for (size_t i = 0; i < slices.size(); ++i) {
    if (slices[i].dtype == DType::kUndefined) continue;
    if ((is_concat ? context.input_layout(i) : context.output_layout(i)) != layout) return false;
    if (layout == Layout::kChannelsBlocked8 && !HasChannelsBlocked8Form(slices[i].dims))
      return false;
  }
  return true;
}

KernelOr CreateConcatCpuKernel(const CpuKernelContext& context) {
  if (!Copyable(context)) return std::unique_ptr<CpuKernel>();
  const Dims& out = context.output_types[0].dims;
  IOS_ASSIGN_OR_RETURN(AxisParts concat, ParseConcat(InputsOf(context), out));
  if (ChannelsLastParts(context)) concat = PixelRows(std::move(concat), out);
  return std::unique_ptr<CpuKernel>(new ConcatCpuKernel(
      concat.outer, PartBytes(concat, DTypeSize(context.input_types[0].dtype))));
}

KernelOr CreateSplitCpuKernel(const CpuKernelContext& context) {
  if (!Copyable(context)) return std::unique_ptr<CpuKernel>();
  IOS_ASSIGN_OR_RETURN(AxisParts split, ParseSplit(InputsOf(context), context.output_types));
  if (ChannelsLastParts(context)) split = PixelRows(std::move(split), context.input_types[0].dims);
  return std::unique_ptr<CpuKernel>(
      new SplitCpuKernel(split.outer, PartBytes(split, DTypeSize(context.input_types[0].dtype))));
}

KernelOr CreateSliceCpuKernel(const CpuKernelContext& context) {
  if (!Copyable(context)) return std::unique_ptr<CpuKernel>();
  StatusOr<SliceParams> slice = ParseSlice(InputsOf(context));
  if (!slice.ok()) return ReferenceOrError(slice.status());
  IOS_RETURN_IF_ERROR(CheckPlannedOutput(slice->out_dims, context.output_types[0].dims));
  if (NumElements(slice->out_dims) == 0) return std::unique_ptr<CpuKernel>(new CopyCpuKernel(0));
  const Dims& x = context.input_types[0].dims;
  GatherPlan plan;
  plan.dims = slice->out_dims;
  plan.elem = DTypeSize(context.input_types[0].dtype);
  const Dims strides = RowMajorStrides(x);
  for (size_t d = 0; d < x.size(); ++d) {
    plan.in_base += slice->begin[d] * strides[d];
    plan.in_strides.push_back(strides[d] * slice->step[d]);
  }
  return std::unique_ptr<CpuKernel>(new GatherCpuKernel(Collapse(std::move(plan))));
}

KernelOr CreateTransposeCpuKernel(const CpuKernelContext& context) {
  if (!Copyable(context)) return std::unique_ptr<CpuKernel>();
  const Dims& x = context.input_types[0].dims;
  IOS_ASSIGN_OR_RETURN(TransposeParams transpose, ParseTranspose(*context.node, x));
  IOS_RETURN_IF_ERROR(CheckPlannedOutput(transpose.out_dims, context.output_types[0].dims));
  return TransposeGatherKernel(x, transpose.perm, DTypeSize(context.input_types[0].dtype));
}

// DepthToSpace and SpaceToDepth: the transpose of the input read as six dims.
KernelOr CreateDepthSpaceCpuKernel(const CpuKernelContext& context) {
  if (!Copyable(context)) return std::unique_ptr<CpuKernel>();
  IOS_ASSIGN_OR_RETURN(DepthSpaceParams params,
                       ParseDepthSpace(*context.node, context.input_types[0].dims));
  IOS_RETURN_IF_ERROR(CheckPlannedOutput(params.out_dims, context.output_types[0].dims));
  return TransposeGatherKernel(params.view, params.perm, DTypeSize(context.input_types[0].dtype));
}

KernelOr CreatePadCpuKernel(const CpuKernelContext& context) {
  if (!Copyable(context)) return std::unique_ptr<CpuKernel>();
  const TensorType& x = context.input_types[0];
  StatusOr<PadParams> parsed = ParsePad(InputsOf(context));
  if (!parsed.ok()) return ReferenceOrError(parsed.status());
  PadParams& pad = parsed.value();
  const size_t elem = DTypeSize(x.dtype);
  std::vector<uint8_t> value(elem, 0);
  if (pad.value_from_attribute) {
    if (x.dtype != DType::kFloat32) return std::unique_ptr<CpuKernel>();  // conversion: reference
    std::memcpy(value.data(), &pad.attribute_value, sizeof(float));
  }
  IOS_RETURN_IF_ERROR(CheckPlannedOutput(pad.out_dims, context.output_types[0].dims));
  if (NumElements(pad.out_dims) == 0) return std::unique_ptr<CpuKernel>(new CopyCpuKernel(0));
  Dims in_dims = x.dims;
  if (in_dims.empty()) {  // a scalar: one row of one element
    in_dims = {1};
    pad.out_dims = {1};
    pad.begin = {0};
  }
  return std::unique_ptr<CpuKernel>(new PadCpuKernel(pad.mode, std::move(in_dims),
                                                     std::move(pad.out_dims), std::move(pad.begin),
                                                     elem, std::move(value), pad.value_from_input));
}

}  // namespace ios
