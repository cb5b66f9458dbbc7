// Reference DepthToSpace and SpaceToDepth, written from ONNX's element formulas (the kernels
// use the six-dim transpose of ParseDepthSpace instead; ops/op_params.h reads the node for
// both). With b the block size and (i, j) the position inside a block:
//   DepthToSpace DCR: out[n, c, h·b + i, w·b + j] = in[n, (i·b + j)·C' + c, h, w]  (C' = C/b²)
//   DepthToSpace CRD: out[n, c, h·b + i, w·b + j] = in[n, c·b² + i·b + j, h, w]
//   SpaceToDepth DCR: out[n, (i·b + j)·C + c, h, w] = in[n, c, h·b + i, w·b + j]
//   SpaceToDepth CRD: out[n, c·b² + i·b + j, h, w] = in[n, c, h·b + i, w·b + j]
// Any element type with a known size.
#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"
#include "ops/op_params.h"

namespace ios {
namespace {

Status DepthSpaceKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                        std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  if (!IsCopyableDType(x.dtype()))
    return Unsupported(NodeLabel(node) + "element type " + DTypeName(x.dtype()));
  StatusOr<DepthSpaceParams> parsed = ParseDepthSpace(node, x.dims());
  if (!parsed.ok())
    return Status(parsed.status().code(), NodeLabel(node) + parsed.status().message());
  IOS_RETURN_IF_ERROR(CheckOutputDims(node, parsed->out_dims));
  const bool to_space = node.op_type == "DepthToSpace";
  IOS_ASSIGN_OR_RETURN(std::string mode, node.attrs.GetString("mode", "DCR"));
  const bool dcr = mode == "DCR";
  IOS_ASSIGN_OR_RETURN(int64_t b, node.attrs.GetInt("blocksize", 0));
  Tensor y(x.dtype(), parsed->out_dims);
  const size_t elem = DTypeSize(x.dtype());
  // The space side (big H, W) and the depth side (small H, W) of the op.
  const Dims& space = to_space ? y.dims() : x.dims();
  const Dims& depth = to_space ? x.dims() : y.dims();
  const int64_t channels = space[1];  // C' for DepthToSpace, C for SpaceToDepth
  const uint8_t* src = static_cast<const uint8_t*>(x.raw());
  uint8_t* dst = static_cast<uint8_t*>(y.raw());
  for (int64_t n = 0; n < space[0]; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t h = 0; h < depth[2]; ++h)
        for (int64_t w = 0; w < depth[3]; ++w)
          for (int64_t i = 0; i < b; ++i)
            for (int64_t j = 0; j < b; ++j) {
              const int64_t dc = dcr ? (i * b + j) * channels + c : c * b * b + i * b + j;
              const int64_t space_at =
                  ((n * channels + c) * space[2] + h * b + i) * space[3] + w * b + j;
              const int64_t depth_at = ((n * depth[1] + dc) * depth[2] + h) * depth[3] + w;
              const int64_t from = to_space ? depth_at : space_at;
              const int64_t to = to_space ? space_at : depth_at;
              std::memcpy(dst + to * elem, src + from * elem, elem);
            }
  (*outputs)[0] = std::move(y);
  return Status::Ok();
}

}  // namespace

void AddDepthSpaceReferenceKernels(ReferenceKernelTable& table) {
  table["DepthToSpace"] = DepthSpaceKernel;
  table["SpaceToDepth"] = DepthSpaceKernel;
}

}  // namespace ios
