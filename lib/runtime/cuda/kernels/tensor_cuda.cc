// Data movement on dense row-major buffers of any dtype, by element size: Concat and Split as
// row copies, Slice, Transpose, DepthToSpace/SpaceToDepth (transposes of a six-dim view) and
// Expand as gathers through an IndexMap, Pad (every mode).
// The index math is kernels/math/tensor_math.h; everything shape-dependent is planned at
// creation, so Enqueue only launches. Slice and Pad need their starts/pads to be constants.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference/reference_util.h"
#include "ops/op_params.h"
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
// an omitted, null, output is skipped). A slice that already lies where it would be copied (a
// view of the whole at its own offset, plan/tensor_views.h: SlicesInPlace) is skipped too.
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
        uint8_t* dst = static_cast<uint8_t*>(outputs[0]) + byte_offset;
        if (inputs[i] == dst) continue;  // in place
        copy.src_pitch = chunks_[i];
        copy.dst_pitch = whole_chunk_;
        IOS_RETURN_IF_ERROR(EnqueueRowCopy(copy, elem_, inputs[i], dst, stream.stream));
      } else {
        if (outputs[i] == nullptr ||
            outputs[i] == static_cast<const uint8_t*>(inputs[0]) + byte_offset)
          continue;  // omitted, or in place
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

}  // namespace

CudaKernelOr IndexMapGatherKernel(const Node& node, const IndexMap* map, bool built,
                                  const Dims& out, size_t elem) {
  if (!built)
    return RefuseOnCuda(node,
                        "more than " + std::to_string(kMaxIndexRank) + " non-trivial dimensions");
  return CudaKernelOr(std::make_unique<GatherCudaKernel>(*map, NumElements(out), elem));
}

CudaKernelOr CreateConcatCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMovable(context, {}));
  StatusOr<AxisParts> concat = ParseConcat(CudaNodeInputs(context), context.output_types[0].dims);
  if (!concat.ok()) return ParamsErrorOnCuda(node, concat.status());
  return CudaKernelOr(std::make_unique<RowCopyCudaKernel>(true, concat->outer, concat->whole,
                                                          std::move(concat->parts),
                                                          DTypeSize(context.input_types[0].dtype)));
}

CudaKernelOr CreateSplitCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMovable(context, {}));
  StatusOr<AxisParts> split = ParseSplit(CudaNodeInputs(context), context.output_types);
  if (!split.ok()) return ParamsErrorOnCuda(node, split.status());
  return CudaKernelOr(std::make_unique<RowCopyCudaKernel>(false, split->outer, split->whole,
                                                          std::move(split->parts),
                                                          DTypeSize(context.input_types[0].dtype)));
}

CudaKernelOr CreateSliceCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMovable(context, {}));
  StatusOr<SliceParams> slice = ParseSlice(CudaNodeInputs(context));
  if (!slice.ok()) return ParamsErrorOnCuda(node, slice.status());
  IOS_RETURN_IF_ERROR(
      ParamsErrorOnCuda(node, CheckPlannedOutput(slice->out_dims, context.output_types[0].dims)));
  IndexMap map;
  const bool built =
      BuildSliceMap(context.input_types[0].dims, slice->begin, slice->step, slice->out_dims, &map);
  return IndexMapGatherKernel(node, &map, built, slice->out_dims,
                              DTypeSize(context.input_types[0].dtype));
}

CudaKernelOr CreateTransposeCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMovable(context, {}));
  const Dims& x = context.input_types[0].dims;
  StatusOr<TransposeParams> transpose = ParseTranspose(node, x);
  if (!transpose.ok()) return ParamsErrorOnCuda(node, transpose.status());
  IOS_RETURN_IF_ERROR(ParamsErrorOnCuda(
      node, CheckPlannedOutput(transpose->out_dims, context.output_types[0].dims)));
  IndexMap map;
  const bool built = BuildTransposeMap(x, transpose->perm, &map);
  return IndexMapGatherKernel(node, &map, built, transpose->out_dims,
                              DTypeSize(context.input_types[0].dtype));
}

// DepthToSpace and SpaceToDepth: the transpose of the input read as six dims.
CudaKernelOr CreateDepthSpaceCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMovable(context, {}));
  StatusOr<DepthSpaceParams> params = ParseDepthSpace(node, context.input_types[0].dims);
  if (!params.ok()) return ParamsErrorOnCuda(node, params.status());
  IOS_RETURN_IF_ERROR(
      ParamsErrorOnCuda(node, CheckPlannedOutput(params->out_dims, context.output_types[0].dims)));
  IndexMap map;
  const bool built = BuildTransposeMap(params->view, params->perm, &map);
  return IndexMapGatherKernel(node, &map, built, params->out_dims,
                              DTypeSize(context.input_types[0].dtype));
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
  return IndexMapGatherKernel(node, &map, built, out, DTypeSize(context.input_types[0].dtype));
}

CudaKernelOr CreatePadCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireMovable(context, {2}));
  const TensorType& x = context.input_types[0];
  const size_t elem = DTypeSize(x.dtype);
  StatusOr<PadParams> pad = ParsePad(CudaNodeInputs(context));
  if (!pad.ok()) return ParamsErrorOnCuda(node, pad.status());
  // The pad value is baked in unless it is a run-time input.
  uint64_t value_bits = 0;
  bool value_from_device = false;
  if (pad->value_from_attribute && pad->attribute_value != 0.f) {
    if (x.dtype != DType::kFloat32)
      return RefuseOnCuda(node, "a non-zero pad value attribute on " + DTypeName(x.dtype));
    std::memcpy(&value_bits, &pad->attribute_value, sizeof(float));
  } else if (pad->value_from_input) {
    if (pad->value_constant != nullptr) {
      std::memcpy(&value_bits, pad->value_constant->raw(), elem);
    } else {
      value_from_device = true;
    }
  }
  IOS_RETURN_IF_ERROR(
      ParamsErrorOnCuda(node, CheckPlannedOutput(pad->out_dims, context.output_types[0].dims)));
  PadMap map;
  if (!BuildPadMap(pad->mode, x.dims, pad->begin, pad->out_dims, &map))
    return RefuseOnCuda(node, "rank " + std::to_string(x.dims.size()));
  return CudaKernelOr(std::make_unique<PadCudaKernel>(map, NumElements(pad->out_dims), elem,
                                                      value_bits, value_from_device));
}

}  // namespace ios
