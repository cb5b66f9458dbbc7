// Indexing: Gather (any element type moved by size, int32 or int64 indices, negative indices
// counting from the end, indices constant or computed at run time) and Tile (an IndexMap gather,
// kernels/math/indexing_math.h). Everything shape-dependent is planned at creation.
//
// Gather's indices are read on the device, so an index computed at run time cannot be checked
// before the kernel runs: one outside [-dim, dim) gives zeros instead of reading out of bounds.
// Constant indices are checked here (shape inference has already refused bad ones).
#include <memory>
#include <string>
#include <vector>

#include "ops/op_params.h"
#include "ops/op_util.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/indexing_impl.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"
#include "runtime/cuda/kernels/tensor_impl.h"

namespace ios {
namespace {

class GatherIndicesCudaKernel : public CudaKernel {
 public:
  GatherIndicesCudaKernel(GatherMap map, bool indices_int32, int64_t count, size_t elem)
      : map_(map), indices_int32_(indices_int32), count_(count), elem_(elem) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchGatherIndices(map_, inputs[0], inputs[1], indices_int32_,
                                                 outputs[0], count_, elem_, stream.stream));
    return Status::Ok();
  }

 private:
  GatherMap map_;
  bool indices_int32_;
  int64_t count_;
  size_t elem_;
};

// Refuses unless inputs 0 and 1 are present, input 0 has an element size the kernels move and
// the output has input 0's type.
Status RequireData(const CudaKernelContext& context) {
  const Node& node = *context.node;
  if (!CudaInputPresent(context, 0) || !CudaInputPresent(context, 1) ||
      context.output_types.empty())
    return InvalidOnCuda(node, "needs two inputs and an output");
  const DType dtype = context.input_types[0].dtype;
  const size_t elem = DTypeSize(dtype);
  if (elem != 1 && elem != 2 && elem != 4 && elem != 8)
    return RefuseOnCuda(node, "element type " + DTypeName(dtype));
  if (context.output_types[0].dtype != dtype)
    return InvalidOnCuda(node, "output type " + DTypeName(context.output_types[0].dtype) +
                                   " differs from input " + DTypeName(dtype));
  return Status::Ok();
}

}  // namespace

CudaKernelOr CreateGatherCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireData(context));
  const Dims& data = context.input_types[0].dims;
  const TensorType& indices = context.input_types[1];
  if (indices.dtype != DType::kInt32 && indices.dtype != DType::kInt64)
    return InvalidOnCuda(
        node, "indices of type " + DTypeName(indices.dtype) + " (int32 or int64 expected)");
  if (data.empty()) return InvalidOnCuda(node, "data must have rank >= 1");
  StatusOr<int64_t> attr_axis = node.attrs.GetInt("axis", 0);
  if (!attr_axis.ok()) return ParamsErrorOnCuda(node, attr_axis.status());
  StatusOr<int64_t> axis = NormalizeAxis(*attr_axis, static_cast<int64_t>(data.size()), "axis");
  if (!axis.ok()) return ParamsErrorOnCuda(node, axis.status());
  const int64_t dim = data[static_cast<size_t>(*axis)];
  if (const Tensor* constant = CudaConstantInput(context, 1)) {
    for (int64_t index : constant->ToInt64Vector()) {
      if (NormalizeGatherIndex(index, dim) < 0)
        return InvalidOnCuda(node, "index " + std::to_string(index) +
                                       " is out of range for a dimension of " +
                                       std::to_string(dim));
    }
  }
  Dims out(data.begin(), data.begin() + *axis);
  out.insert(out.end(), indices.dims.begin(), indices.dims.end());
  out.insert(out.end(), data.begin() + *axis + 1, data.end());
  IOS_RETURN_IF_ERROR(
      ParamsErrorOnCuda(node, CheckPlannedOutput(out, context.output_types[0].dims)));
  const GatherMap map = BuildGatherMap(data, *axis, NumElements(indices.dims));
  return CudaKernelOr(std::make_unique<GatherIndicesCudaKernel>(
      map, indices.dtype == DType::kInt32, NumElements(out),
      DTypeSize(context.input_types[0].dtype)));
}

CudaKernelOr CreateTileCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireData(context));
  const Dims& in = context.input_types[0].dims;
  const Dims& out = context.output_types[0].dims;
  if (out.size() != in.size())
    return InvalidOnCuda(
        node, "output " + DimsToString(out) + " and input " + DimsToString(in) + " differ in rank");
  // The repeats are the planned output over the input; a constant repeats input must agree.
  std::vector<int64_t> repeats(in.size(), 1);
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] > 0) {
      if (out[d] % in[d] != 0)
        return InvalidOnCuda(
            node, "output " + DimsToString(out) + " is no tiling of input " + DimsToString(in));
      repeats[d] = out[d] / in[d];
    }
  }
  if (const Tensor* constant = CudaConstantInput(context, 1)) {
    const std::vector<int64_t> given = constant->ToInt64Vector();
    Dims tiled = in;
    for (size_t d = 0; d < given.size() && d < tiled.size(); ++d) tiled[d] *= given[d];
    if (given.size() != in.size() || tiled != out)
      return InvalidOnCuda(node, "repeats " + DimsToString(given) + " do not tile " +
                                     DimsToString(in) + " into " + DimsToString(out));
  }
  IndexMap map;
  const bool built = BuildTileMap(in, repeats, &map);
  return IndexMapGatherKernel(node, &map, built, out, DTypeSize(context.input_types[0].dtype));
}

}  // namespace ios
