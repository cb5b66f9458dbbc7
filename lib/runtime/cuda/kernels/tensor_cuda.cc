// Data movement on dense row-major buffers of any dtype, by element size: Concat and Split as
// row copies, Slice, Transpose and Expand as gathers through an IndexMap, Pad (every mode).
// The index math is kernels/math/tensor_math.h; everything shape-dependent is planned at
// creation, so Enqueue only launches. Slice and Pad need their starts/pads to be constants.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "kernels/reference/reference_util.h"
#include "ops/op_util.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"
#include "runtime/cuda/kernels/tensor_impl.h"

namespace ios {
namespace {

// Element sizes the kernels move in one load.
bool MovableElementSize(size_t bytes) {
  return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
}

// Refuses unless every present input of `inputs` and every output have one movable dtype.
Status RequireMovable(const CudaKernelContext& context, std::initializer_list<size_t> inputs) {
  const Node& node = *context.node;
  if (!CudaInputPresent(context, 0) || context.output_types.empty())
    return InvalidOnCuda(node, "needs an input and an output");
  const DType dtype = context.input_types[0].dtype;
  if (!MovableElementSize(DTypeSize(dtype)))
    return RefuseOnCuda(node, "element type " + DTypeName(dtype));
  for (size_t i : inputs) {
    if (CudaInputPresent(context, i) && context.input_types[i].dtype != dtype)
      return InvalidOnCuda(node, "inputs differ in element type");
  }
  for (const TensorType& out : context.output_types) {
    if (out.dtype != dtype && out.dtype != DType::kUndefined)
      return InvalidOnCuda(
          node, "output type " + DTypeName(out.dtype) + " differs from input " + DTypeName(dtype));
  }
  return Status::Ok();
}

// Copies rows between a buffer and a slice of a wider one, in the widest unit that divides
// every size and address (kernels/math/tensor_math.h: RowCopyUnitBytes).
Status EnqueueRowCopy(const RowCopy& elements, size_t elem, const void* src, void* dst,
                      cudaStream_t stream) {
  if (elements.rows <= 0 || elements.width <= 0) return Status::Ok();
  const int64_t e = static_cast<int64_t>(elem);
  if (elements.rows == 1 ||
      (elements.width == elements.src_pitch && elements.width == elements.dst_pitch)) {
    IOS_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(dst, src, static_cast<size_t>(elements.rows * elements.width * e),
                        cudaMemcpyDeviceToDevice, stream));
    return Status::Ok();
  }
  const int64_t unit =
      RowCopyUnitBytes({elements.width * e, elements.src_pitch * e, elements.dst_pitch * e,
                        static_cast<int64_t>(reinterpret_cast<uintptr_t>(src) % 16),
                        static_cast<int64_t>(reinterpret_cast<uintptr_t>(dst) % 16)});
  RowCopy units = elements;
  units.width = elements.width * e / unit;
  units.src_pitch = elements.src_pitch * e / unit;
  units.dst_pitch = elements.dst_pitch * e / unit;
  IOS_CUDA_RETURN_IF_ERROR(LaunchRowCopy(units, src, dst, static_cast<size_t>(unit), stream));
  return Status::Ok();
}

// Concat (gather = true: input i goes to the output at offsets[i]) and Split (the reverse;
// an omitted, null, output is skipped).
class RowCopyCudaKernel : public CudaKernel {
 public:
  RowCopyCudaKernel(bool concat, int64_t outer, int64_t whole_chunk, std::vector<int64_t> chunks,
                    size_t elem)
      : concat_(concat),
        outer_(outer),
        whole_chunk_(whole_chunk),
        chunks_(std::move(chunks)),
        elem_(elem) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    int64_t offset = 0;
    for (size_t i = 0; i < chunks_.size(); ++i) {
      const int64_t byte_offset = offset * static_cast<int64_t>(elem_);
      offset += chunks_[i];
      RowCopy copy;
      copy.rows = outer_;
      copy.width = chunks_[i];
      if (concat_) {
        copy.src_pitch = chunks_[i];
        copy.dst_pitch = whole_chunk_;
        IOS_RETURN_IF_ERROR(EnqueueRowCopy(copy, elem_, inputs[i],
                                           static_cast<uint8_t*>(outputs[0]) + byte_offset,
                                           stream.stream));
      } else {
        if (outputs[i] == nullptr) continue;
        copy.src_pitch = whole_chunk_;
        copy.dst_pitch = chunks_[i];
        IOS_RETURN_IF_ERROR(EnqueueRowCopy(copy, elem_,
                                           static_cast<const uint8_t*>(inputs[0]) + byte_offset,
                                           outputs[i], stream.stream));
      }
    }
    return Status::Ok();
  }

 private:
  bool concat_;
  int64_t outer_;
  int64_t whole_chunk_;          // elements per outer index of the whole tensor
  std::vector<int64_t> chunks_;  // elements per outer index of each part
  size_t elem_;
};

class GatherCudaKernel : public CudaKernel {
 public:
  GatherCudaKernel(IndexMap map, int64_t count, size_t elem)
      : map_(map), count_(count), elem_(elem) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(
        LaunchGather(map_, inputs[0], outputs[0], count_, elem_, stream.stream));
    return Status::Ok();
  }

 private:
  IndexMap map_;
  int64_t count_;
  size_t elem_;
};

class PadCudaKernel : public CudaKernel {
 public:
  PadCudaKernel(PadMap map, int64_t count, size_t elem, uint64_t value_bits, bool value_from_input)
      : map_(map),
        count_(count),
        elem_(elem),
        value_bits_(value_bits),
        value_from_input_(value_from_input) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    const void* device_value = value_from_input_ ? inputs[2] : nullptr;
    IOS_CUDA_RETURN_IF_ERROR(LaunchPad(map_, inputs[0], outputs[0], count_, elem_, device_value,
                                       value_bits_, stream.stream));
    return Status::Ok();
  }

 private:
  PadMap map_;
  int64_t count_;
  size_t elem_;
  uint64_t value_bits_;
  bool value_from_input_;
};

CudaKernelOr GatherKernel(const Node& node, const IndexMap* map, bool built, const Dims& out,
                          size_t elem) {
  if (!built)
    return RefuseOnCuda(node,
                        "more than " + std::to_string(kMaxIndexRank) + " non-trivial dimensions");
  return CudaKernelOr(std::make_unique<GatherCudaKernel>(*map, NumElements(out), elem));
}

// The int64 values of constant input `index`, or Unsupported when it is computed at run time.
StatusOr<std::vector<int64_t>> ConstantInts(const CudaKernelContext& context, size_t index,
                                            const char* what) {
  const Tensor* value = CudaConstantInput(context, index);
  if (value == nullptr) return RefuseOnCuda(*context.node, std::string("a runtime ") + what);
  return ReadIntsInput(*context.node, *value, what);
}

}  // namespace

CudaKernelOr CreateConcatCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMovable(context, {}));
  if (!node.attrs.Has("axis")) return InvalidOnCuda(node, "axis is required");
  const Dims& out = context.output_types[0].dims;
  IOS_ASSIGN_OR_RETURN(int64_t axis_attr, node.attrs.GetInt("axis", 0));
  IOS_ASSIGN_OR_RETURN(int64_t axis,
                       NormalizeAxis(node, axis_attr, static_cast<int64_t>(out.size())));
  std::vector<int64_t> chunks;
  int64_t total = 0;
  for (size_t i = 0; i < context.input_types.size(); ++i) {
    const TensorType& in = context.input_types[i];
    bool compatible = CudaInputPresent(context, i) && in.dtype == context.input_types[0].dtype &&
                      in.dims.size() == out.size();
    for (size_t d = 0; compatible && d < out.size(); ++d)
      compatible = static_cast<int64_t>(d) == axis || in.dims[d] == out[d];
    if (!compatible)
      return InvalidOnCuda(node, "cannot concatenate " + DimsToString(in.dims) + " into " +
                                     DimsToString(out) + " on axis " + std::to_string(axis));
    total += in.dims[axis];
    chunks.push_back(NumElements(Dims(in.dims.begin() + axis, in.dims.end())));
  }
  if (total != out[axis])
    return InvalidOnCuda(node, "inputs add up to " + std::to_string(total) + " on axis " +
                                   std::to_string(axis) + ", the output has " +
                                   std::to_string(out[axis]));
  return CudaKernelOr(std::make_unique<RowCopyCudaKernel>(
      true, NumElements(Dims(out.begin(), out.begin() + axis)),
      NumElements(Dims(out.begin() + axis, out.end())), std::move(chunks),
      DTypeSize(context.input_types[0].dtype)));
}

CudaKernelOr CreateSplitCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMovable(context, {}));
  const Dims& x = context.input_types[0].dims;
  IOS_ASSIGN_OR_RETURN(int64_t axis_attr, node.attrs.GetInt("axis", 0));
  IOS_ASSIGN_OR_RETURN(int64_t axis,
                       NormalizeAxis(node, axis_attr, static_cast<int64_t>(x.size())));
  // The output types already carry the split sizes (from the attribute or constant input).
  std::vector<int64_t> chunks;
  int64_t total = 0;
  for (const TensorType& out : context.output_types) {
    bool compatible = out.dims.size() == x.size();
    for (size_t d = 0; compatible && d < x.size(); ++d)
      compatible = static_cast<int64_t>(d) == axis || out.dims[d] == x[d];
    if (!compatible)
      return InvalidOnCuda(node, "output " + DimsToString(out.dims) + " is not a split of " +
                                     DimsToString(x) + " on axis " + std::to_string(axis));
    total += out.dims[axis];
    chunks.push_back(NumElements(Dims(out.dims.begin() + axis, out.dims.end())));
  }
  if (total != x[axis])
    return InvalidOnCuda(node, "outputs add up to " + std::to_string(total) + " on axis " +
                                   std::to_string(axis) + ", the input has " +
                                   std::to_string(x[axis]));
  return CudaKernelOr(std::make_unique<RowCopyCudaKernel>(
      false, NumElements(Dims(x.begin(), x.begin() + axis)),
      NumElements(Dims(x.begin() + axis, x.end())), std::move(chunks),
      DTypeSize(context.input_types[0].dtype)));
}

CudaKernelOr CreateSliceCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMovable(context, {}));
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
      if (!CudaInputPresent(context, i)) {
        if (i <= 2) return InvalidOnCuda(node, std::string(names[i - 1]) + " is required");
        continue;
      }
      IOS_ASSIGN_OR_RETURN(*lists[i - 1], ConstantInts(context, i, names[i - 1]));
    }
  }
  if (starts.size() != ends.size()) return InvalidOnCuda(node, "starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return InvalidOnCuda(node, "starts, ends, axes and steps must have the same length");
  Dims begin(rank, 0);
  Dims step(rank, 1);
  Dims out = x;
  std::set<int64_t> seen;
  for (size_t i = 0; i < starts.size(); ++i) {
    IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, axes[i], rank));
    if (!seen.insert(axis).second) return InvalidOnCuda(node, "repeated axis in axes");
    if (steps[i] == 0) return InvalidOnCuda(node, "steps must not be 0");
    ClampSliceAxis(x[axis], starts[i], ends[i], steps[i], &begin[axis], &out[axis]);
    step[axis] = steps[i];
  }
  if (out != context.output_types[0].dims)
    return InvalidOnCuda(node, "computed output " + DimsToString(out) + " but the plan has " +
                                   DimsToString(context.output_types[0].dims));
  IndexMap map;
  const bool built = BuildSliceMap(x, begin, step, out, &map);
  return GatherKernel(node, &map, built, out, DTypeSize(context.input_types[0].dtype));
}

CudaKernelOr CreateTransposeCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMovable(context, {}));
  const Dims& x = context.input_types[0].dims;
  const int64_t rank = static_cast<int64_t>(x.size());
  Dims reversed(rank);
  for (int64_t d = 0; d < rank; ++d) reversed[d] = rank - 1 - d;
  IOS_ASSIGN_OR_RETURN(Dims perm, node.attrs.GetInts("perm", reversed));
  Dims sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != Dims(reversed.rbegin(), reversed.rend()))
    return InvalidOnCuda(node, "perm " + DimsToString(perm) + " is not a permutation of " +
                                   std::to_string(rank) + " axes");
  IndexMap map;
  const bool built = BuildTransposeMap(x, perm, &map);
  Dims out(rank);
  for (int64_t d = 0; d < rank; ++d) out[d] = x[perm[d]];
  if (out != context.output_types[0].dims)
    return InvalidOnCuda(node, "computed output " + DimsToString(out) + " but the plan has " +
                                   DimsToString(context.output_types[0].dims));
  return GatherKernel(node, &map, built, out, DTypeSize(context.input_types[0].dtype));
}

CudaKernelOr CreateExpandCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMovable(context, {}));
  const Dims& x = context.input_types[0].dims;
  const Dims& out = context.output_types[0].dims;
  // The output type carries the shape (from the shape input); check that x broadcasts to it.
  StatusOr<Dims> broadcast = BroadcastDims(x, out);
  if (!broadcast.ok() || broadcast.value() != out)
    return InvalidOnCuda(node, DimsToString(x) + " does not expand to " + DimsToString(out));
  IndexMap map;
  const bool built = BuildIndexMap(out, BroadcastReadStrides(x, out), 0, &map);
  return GatherKernel(node, &map, built, out, DTypeSize(context.input_types[0].dtype));
}

CudaKernelOr CreatePadCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMovable(context, {2}));
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
    return InvalidOnCuda(node, "unknown mode '" + mode_name + "'");
  }
  std::vector<int64_t> pads;
  std::vector<int64_t> axes;
  uint64_t value_bits = 0;
  bool value_from_input = false;
  if (OpsetBefore(node, 11)) {
    const char* pads_attr = OpsetBefore(node, 2) ? "paddings" : "pads";
    if (!node.attrs.Has(pads_attr))
      return InvalidOnCuda(node, std::string(pads_attr) + " is required");
    IOS_ASSIGN_OR_RETURN(pads, node.attrs.GetInts(pads_attr, {}));
    IOS_ASSIGN_OR_RETURN(float attr_value, node.attrs.GetFloat("value", 0.f));
    if (attr_value != 0.f) {
      if (x.dtype != DType::kFloat32)
        return RefuseOnCuda(node, "a non-zero pad value attribute on " + DTypeName(x.dtype));
      std::memcpy(&value_bits, &attr_value, sizeof(float));
    }
  } else {
    if (!CudaInputPresent(context, 1)) return InvalidOnCuda(node, "pads is required");
    IOS_ASSIGN_OR_RETURN(pads, ConstantInts(context, 1, "pads"));
    if (CudaInputPresent(context, 2) && NumElements(context.input_types[2].dims) > 0) {
      if (NumElements(context.input_types[2].dims) != 1)
        return InvalidOnCuda(node, "constant_value must be a scalar of the input's type");
      if (const Tensor* value = CudaConstantInput(context, 2)) {
        std::memcpy(&value_bits, value->raw(), elem);
      } else {
        value_from_input = true;
      }
    }
    if (CudaInputPresent(context, 3)) {
      IOS_ASSIGN_OR_RETURN(axes, ConstantInts(context, 3, "axes"));
    }
  }
  const int64_t rank = static_cast<int64_t>(x.dims.size());
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  if (pads.size() != 2 * axes.size())
    return InvalidOnCuda(node, "pads has " + std::to_string(pads.size()) + " values for " +
                                   std::to_string(axes.size()) + " axes");
  const size_t n_axes = axes.size();
  Dims begin(rank, 0);
  Dims out = x.dims;
  for (size_t i = 0; i < n_axes; ++i) {
    IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, axes[i], rank));
    begin[axis] = pads[i];
    out[axis] = x.dims[axis] + pads[i] + pads[n_axes + i];
    if (out[axis] < 0) return InvalidOnCuda(node, "pads crop more than the input");
    const bool grows = pads[i] > 0 || pads[n_axes + i] > 0;
    if (mode != PadMode::kConstant && grows && x.dims[axis] == 0)
      return InvalidOnCuda(node, mode_name + " padding of an empty dimension");
  }
  if (out != context.output_types[0].dims)
    return InvalidOnCuda(node, "computed output " + DimsToString(out) + " but the plan has " +
                                   DimsToString(context.output_types[0].dims));
  PadMap map;
  if (!BuildPadMap(mode, x.dims, begin, out, &map))
    return RefuseOnCuda(node, "rank " + std::to_string(rank));
  return CudaKernelOr(
      std::make_unique<PadCudaKernel>(map, NumElements(out), elem, value_bits, value_from_input));
}

}  // namespace ios
