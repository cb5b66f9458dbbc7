// Data movement on dense row-major buffers of any element type: Concat, Split, Slice,
// Transpose, Pad, and the shape-only ops (Reshape, Flatten, Squeeze, Unsqueeze, Identity) as
// copies. Everything shape-dependent is worked out at creation; Slice and Pad need their
// starts/pads inputs to be constants (otherwise the reference runs them).
#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "kernels/reference/reference_util.h"
#include "runtime/cpu/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"

namespace ios {
namespace {

using KernelOr = StatusOr<std::unique_ptr<CpuKernel>>;

// True when the node has input `index` and it is not omitted.
bool InputPresent(const CpuKernelContext& context, size_t index) {
  return index < context.node->inputs.size() && context.node->inputs[index] != kNoValue &&
         index < context.input_types.size();
}

// The constant value of input `index`, or null (absent or computed at run time).
const Tensor* ConstantInput(const CpuKernelContext& context, size_t index) {
  return index < context.constants.size() ? context.constants[index] : nullptr;
}

// memcpy split over the threads when it is large.
void ParallelCopy(void* dst, const void* src, size_t bytes, int threads) {
  if (dst == src || bytes == 0) return;
  constexpr int64_t kBlock = 64 * 1024;
  const int64_t blocks = (static_cast<int64_t>(bytes) + kBlock - 1) / kBlock;
  const int team = ThreadsForWork(threads, static_cast<int64_t>(bytes) / 4);
  ParallelFor(blocks, team, [&](int64_t begin, int64_t end) {
    const size_t from = static_cast<size_t>(begin * kBlock);
    const size_t to = std::min(bytes, static_cast<size_t>(end * kBlock));
    std::memcpy(static_cast<uint8_t*>(dst) + from, static_cast<const uint8_t*>(src) + from,
                to - from);
  });
}

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
    if (!out.dims.empty() &&
        out.in_strides.back() == plan.in_strides[d] * plan.dims[d]) {
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

void RunGather(const GatherPlan& plan, const void* input, void* output, int threads) {
  const size_t rank = plan.dims.size();
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
        case 1: GatherRow<uint8_t>(src, inner_stride, dst, inner); break;
        case 2: GatherRow<uint16_t>(src, inner_stride, dst, inner); break;
        case 4: GatherRow<uint32_t>(src, inner_stride, dst, inner); break;
        case 8: GatherRow<uint64_t>(src, inner_stride, dst, inner); break;
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

// Concat: for each outer index, each input's block dims[axis:] in turn.
class ConcatCpuKernel : public CpuKernel {
 public:
  ConcatCpuKernel(int64_t outer, std::vector<size_t> chunks)
      : outer_(outer), chunks_(std::move(chunks)) {
    for (size_t chunk : chunks_) out_chunk_ += chunk;
  }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    uint8_t* out = static_cast<uint8_t*>(outputs[0]);
    if (outer_ == 1) {  // one block per input
      size_t offset = 0;
      for (size_t i = 0; i < chunks_.size(); ++i) {
        ParallelCopy(out + offset, inputs[i], chunks_[i], threads);
        offset += chunks_[i];
      }
      return Status::Ok();
    }
    const int team = ThreadsForWork(threads, static_cast<int64_t>(outer_ * out_chunk_ / 4));
    ParallelFor(outer_, team, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        uint8_t* dst = out + o * out_chunk_;
        for (size_t i = 0; i < chunks_.size(); ++i) {
          std::memcpy(dst, static_cast<const uint8_t*>(inputs[i]) + o * chunks_[i], chunks_[i]);
          dst += chunks_[i];
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t outer_;
  std::vector<size_t> chunks_;  // bytes per outer index, per input
  size_t out_chunk_ = 0;
};

// Split: the inverse of Concat (an omitted, i.e. null, output is skipped).
class SplitCpuKernel : public CpuKernel {
 public:
  SplitCpuKernel(int64_t outer, std::vector<size_t> chunks)
      : outer_(outer), chunks_(std::move(chunks)) {
    for (size_t chunk : chunks_) in_chunk_ += chunk;
  }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const uint8_t* in = static_cast<const uint8_t*>(inputs[0]);
    const int team = ThreadsForWork(threads, static_cast<int64_t>(outer_ * in_chunk_ / 4));
    ParallelFor(outer_, team, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        const uint8_t* src = in + o * in_chunk_;
        for (size_t i = 0; i < chunks_.size(); ++i) {
          if (outputs[i] != nullptr)
            std::memcpy(static_cast<uint8_t*>(outputs[i]) + o * chunks_[i], src, chunks_[i]);
          src += chunks_[i];
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t outer_;
  std::vector<size_t> chunks_;  // bytes per outer index, per output
  size_t in_chunk_ = 0;
};

// ---- Pad ------------------------------------------------------------------------------------

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// Maps an index outside [0, dim) back inside for reflect/edge/wrap (numpy's modes).
int64_t PadSourceIndex(PadMode mode, int64_t i, int64_t dim) {
  if (i >= 0 && i < dim) return i;
  if (mode == PadMode::kEdge) return i < 0 ? 0 : dim - 1;
  if (mode == PadMode::kWrap) return ((i % dim) + dim) % dim;
  if (dim == 1) return 0;
  const int64_t period = 2 * (dim - 1);
  const int64_t r = ((i % period) + period) % period;
  return r < dim ? r : period - r;
}

class PadCpuKernel : public CpuKernel {
 public:
  PadCpuKernel(PadMode mode, Dims in_dims, Dims out_dims, Dims pad_begin, size_t elem,
               std::vector<uint8_t> attr_value, bool value_from_input)
      : mode_(mode), in_dims_(std::move(in_dims)), out_dims_(std::move(out_dims)),
        pad_begin_(std::move(pad_begin)), elem_(elem), attr_value_(std::move(attr_value)),
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

KernelOr CreateConcatCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (!Copyable(context)) return std::unique_ptr<CpuKernel>();
  if (!node.attrs.Has("axis")) return InvalidInput("axis is required");
  const Dims& out = context.output_types[0].dims;
  IOS_ASSIGN_OR_RETURN(int64_t axis_attr, node.attrs.GetInt("axis", 0));
  IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, axis_attr, static_cast<int64_t>(out.size())));
  const size_t elem = DTypeSize(context.input_types[0].dtype);
  std::vector<size_t> chunks;
  int64_t total = 0;
  for (const TensorType& in : context.input_types) {
    bool compatible = in.dtype == context.input_types[0].dtype && in.dims.size() == out.size();
    for (size_t d = 0; compatible && d < out.size(); ++d)
      compatible = static_cast<int64_t>(d) == axis || in.dims[d] == out[d];
    if (!compatible)
      return InvalidInput("cannot concatenate " + DimsToString(in.dims) + " into " +
                          DimsToString(out) + " on axis " + std::to_string(axis));
    total += in.dims[axis];
    chunks.push_back(static_cast<size_t>(NumElements(Dims(in.dims.begin() + axis, in.dims.end()))) *
                     elem);
  }
  if (total != out[axis])
    return InvalidInput("inputs add up to " + std::to_string(total) + " on axis " +
                        std::to_string(axis) + ", the output has " + std::to_string(out[axis]));
  const int64_t outer = NumElements(Dims(out.begin(), out.begin() + axis));
  return std::unique_ptr<CpuKernel>(new ConcatCpuKernel(outer, std::move(chunks)));
}

KernelOr CreateSplitCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (!Copyable(context)) return std::unique_ptr<CpuKernel>();
  const Dims& x = context.input_types[0].dims;
  IOS_ASSIGN_OR_RETURN(int64_t axis_attr, node.attrs.GetInt("axis", 0));
  IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, axis_attr, static_cast<int64_t>(x.size())));
  // The output types already carry the split sizes.
  const size_t elem = DTypeSize(context.input_types[0].dtype);
  std::vector<size_t> chunks;
  int64_t total = 0;
  for (const TensorType& out : context.output_types) {
    bool compatible = out.dims.size() == x.size();
    for (size_t d = 0; compatible && d < x.size(); ++d)
      compatible = static_cast<int64_t>(d) == axis || out.dims[d] == x[d];
    if (!compatible)
      return InvalidInput("output " + DimsToString(out.dims) + " is not a split of " +
                          DimsToString(x) + " on axis " + std::to_string(axis));
    total += out.dims[axis];
    chunks.push_back(static_cast<size_t>(NumElements(Dims(out.dims.begin() + axis, out.dims.end()))) *
                     elem);
  }
  if (total != x[axis])
    return InvalidInput("outputs add up to " + std::to_string(total) + " on axis " +
                        std::to_string(axis) + ", the input has " + std::to_string(x[axis]));
  const int64_t outer = NumElements(Dims(x.begin(), x.begin() + axis));
  return std::unique_ptr<CpuKernel>(new SplitCpuKernel(outer, std::move(chunks)));
}

KernelOr CreateSliceCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (!Copyable(context)) return std::unique_ptr<CpuKernel>();
  const Dims& x = context.input_types[0].dims;
  const int64_t rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (OpsetBefore(node, 10)) {
    IOS_ASSIGN_OR_RETURN(starts, node.attrs.GetInts("starts", {}));
    IOS_ASSIGN_OR_RETURN(ends, node.attrs.GetInts("ends", {}));
    IOS_ASSIGN_OR_RETURN(axes, node.attrs.GetInts("axes", {}));
  } else {
    std::vector<int64_t>* lists[] = {&starts, &ends, &axes, &steps};
    const char* names[] = {"starts", "ends", "axes", "steps"};
    for (size_t i = 1; i <= 4; ++i) {
      if (!InputPresent(context, i)) {
        if (i <= 2) return InvalidInput(std::string(names[i - 1]) + " is required");
        continue;
      }
      const Tensor* value = ConstantInput(context, i);
      if (value == nullptr) return std::unique_ptr<CpuKernel>();  // computed at run time
      IOS_ASSIGN_OR_RETURN(*lists[i - 1], ReadIntsInput(node, *value, names[i - 1]));
    }
  }
  if (starts.size() != ends.size()) return InvalidInput("starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return InvalidInput("starts, ends, axes and steps must have the same length");

  // The same clamping as the reference (ONNX's rules, negative steps included).
  Dims begin(rank, 0);
  Dims step(rank, 1);
  Dims out_dims = x;
  std::set<int64_t> seen;
  for (size_t i = 0; i < starts.size(); ++i) {
    IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, axes[i], rank));
    if (!seen.insert(axis).second) return InvalidInput("repeated axis in axes");
    if (steps[i] == 0) return InvalidInput("steps must not be 0");
    const int64_t dim = x[axis];
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    int64_t size = 0;
    if (steps[i] > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      size = e > s ? (e - s + steps[i] - 1) / steps[i] : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      size = s > e ? (s - e + (-steps[i]) - 1) / (-steps[i]) : 0;
    }
    begin[axis] = s;
    step[axis] = steps[i];
    out_dims[axis] = size;
  }
  if (out_dims != context.output_types[0].dims)
    return InvalidInput("computed output " + DimsToString(out_dims) + " but the plan has " +
                        DimsToString(context.output_types[0].dims));
  if (NumElements(out_dims) == 0) return std::unique_ptr<CpuKernel>(new CopyCpuKernel(0));
  GatherPlan plan;
  plan.dims = out_dims;
  plan.elem = DTypeSize(context.input_types[0].dtype);
  const Dims strides = RowMajorStrides(x);
  for (int64_t d = 0; d < rank; ++d) {
    plan.in_base += begin[d] * strides[d];
    plan.in_strides.push_back(strides[d] * step[d]);
  }
  return std::unique_ptr<CpuKernel>(new GatherCpuKernel(Collapse(std::move(plan))));
}

KernelOr CreateTransposeCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (!Copyable(context)) return std::unique_ptr<CpuKernel>();
  const Dims& x = context.input_types[0].dims;
  const int64_t rank = static_cast<int64_t>(x.size());
  Dims reversed(rank);
  for (int64_t d = 0; d < rank; ++d) reversed[d] = rank - 1 - d;
  IOS_ASSIGN_OR_RETURN(Dims perm, node.attrs.GetInts("perm", reversed));
  Dims sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != Dims(reversed.rbegin(), reversed.rend()))
    return InvalidInput("perm " + DimsToString(perm) + " is not a permutation of " +
                        std::to_string(rank) + " axes");
  GatherPlan plan;
  plan.elem = DTypeSize(context.input_types[0].dtype);
  const Dims strides = RowMajorStrides(x);
  for (int64_t d = 0; d < rank; ++d) {
    plan.dims.push_back(x[perm[d]]);
    plan.in_strides.push_back(strides[perm[d]]);
  }
  if (plan.dims != context.output_types[0].dims)
    return InvalidInput("computed output " + DimsToString(plan.dims) + " but the plan has " +
                        DimsToString(context.output_types[0].dims));
  if (NumElements(plan.dims) == 0) return std::unique_ptr<CpuKernel>(new CopyCpuKernel(0));
  return std::unique_ptr<CpuKernel>(new GatherCpuKernel(Collapse(std::move(plan))));
}

KernelOr CreatePadCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (!Copyable(context)) return std::unique_ptr<CpuKernel>();
  const TensorType& x = context.input_types[0];
  const size_t elem = DTypeSize(x.dtype);
  IOS_ASSIGN_OR_RETURN(std::string mode_name, node.attrs.GetString("mode", "constant"));
  PadMode mode;
  if (mode_name == "constant") {
    mode = PadMode::kConstant;
  } else if (mode_name == "reflect") {
    mode = PadMode::kReflect;
  } else if (mode_name == "edge") {
    mode = PadMode::kEdge;
  } else if (mode_name == "wrap") {
    mode = PadMode::kWrap;
  } else {
    return InvalidInput("unknown mode '" + mode_name + "'");
  }

  std::vector<int64_t> pads;
  std::vector<int64_t> axes;
  std::vector<uint8_t> value(elem, 0);
  bool value_from_input = false;
  if (OpsetBefore(node, 11)) {
    const char* pads_attr = OpsetBefore(node, 2) ? "paddings" : "pads";
    if (!node.attrs.Has(pads_attr)) return InvalidInput(std::string(pads_attr) + " is required");
    IOS_ASSIGN_OR_RETURN(pads, node.attrs.GetInts(pads_attr, {}));
    IOS_ASSIGN_OR_RETURN(float attr_value, node.attrs.GetFloat("value", 0.f));
    if (x.dtype != DType::kFloat32) return std::unique_ptr<CpuKernel>();  // conversion: reference
    std::memcpy(value.data(), &attr_value, sizeof(float));
  } else {
    if (!InputPresent(context, 1)) return InvalidInput("pads is required");
    const Tensor* pads_value = ConstantInput(context, 1);
    if (pads_value == nullptr) return std::unique_ptr<CpuKernel>();  // computed at run time
    IOS_ASSIGN_OR_RETURN(pads, ReadIntsInput(node, *pads_value, "pads"));
    if (InputPresent(context, 2)) {
      const TensorType& v = context.input_types[2];
      if (NumElements(v.dims) > 0) {
        if (v.dtype != x.dtype || NumElements(v.dims) != 1)
          return InvalidInput("constant_value must be a scalar of the input's type");
        value_from_input = true;
      }
    }
    if (InputPresent(context, 3)) {
      const Tensor* axes_value = ConstantInput(context, 3);
      if (axes_value == nullptr) return std::unique_ptr<CpuKernel>();
      IOS_ASSIGN_OR_RETURN(axes, ReadIntsInput(node, *axes_value, "axes"));
    }
  }
  const int64_t rank = static_cast<int64_t>(x.dims.size());
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  if (pads.size() != 2 * axes.size())
    return InvalidInput("pads has " + std::to_string(pads.size()) + " values for " +
                        std::to_string(axes.size()) + " axes");
  const size_t n_axes = axes.size();
  Dims pad_begin(rank, 0);
  Dims out_dims = x.dims;
  for (size_t i = 0; i < n_axes; ++i) {
    IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, axes[i], rank));
    pad_begin[axis] = pads[i];
    out_dims[axis] = x.dims[axis] + pads[i] + pads[n_axes + i];
    if (out_dims[axis] < 0) return InvalidInput("pads crop more than the input");
    const bool grows = pads[i] > 0 || pads[n_axes + i] > 0;
    if (mode != PadMode::kConstant && grows && x.dims[axis] == 0)
      return InvalidInput(mode_name + " padding of an empty dimension");
  }
  if (out_dims != context.output_types[0].dims)
    return InvalidInput("computed output " + DimsToString(out_dims) + " but the plan has " +
                        DimsToString(context.output_types[0].dims));
  if (NumElements(out_dims) == 0) return std::unique_ptr<CpuKernel>(new CopyCpuKernel(0));
  Dims in_dims = x.dims;
  if (rank == 0) {  // a scalar: one row of one element
    in_dims = {1};
    out_dims = {1};
    pad_begin = {0};
  }
  return std::unique_ptr<CpuKernel>(new PadCpuKernel(mode, std::move(in_dims), std::move(out_dims),
                                                     std::move(pad_begin), elem, std::move(value),
                                                     value_from_input));
}

}  // namespace ios
