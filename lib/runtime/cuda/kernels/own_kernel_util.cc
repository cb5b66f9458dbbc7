#include "runtime/cuda/kernels/own_kernel_util.h"

#include "kernels/reference/reference_util.h"

namespace ios {
namespace {

std::string NodePrefix(const Node& node) {
  return "node '" + node.name + "' (" + node.op_type + "): ";
}

}  // namespace

Status RefuseOnCuda(const Node& node, const std::string& what) {
  return Unsupported(NodePrefix(node) + "the CUDA kernel does not support " + what);
}

Status InvalidOnCuda(const Node& node, const std::string& why) {
  return InvalidInput(NodePrefix(node) + why);
}

bool CudaInputPresent(const CudaKernelContext& context, size_t index) {
  return index < context.node->inputs.size() && context.node->inputs[index] != kNoValue &&
         index < context.input_types.size();
}

const Tensor* CudaConstantInput(const CudaKernelContext& context, size_t index) {
  return index < context.constants.size() ? context.constants[index] : nullptr;
}

NodeInputs CudaNodeInputs(const CudaKernelContext& context) {
  return NodeInputs{*context.node, context.input_types, context.constants};
}

Status ParamsErrorOnCuda(const Node& node, const Status& status) {
  if (status.ok()) return status;
  if (status.code() == StatusCode::kUnsupported) return RefuseOnCuda(node, status.message());
  // Errors of the shared helpers (NormalizeAxis, ReadIntsInput) already name the node.
  if (status.message().rfind(NodeLabel(node), 0) == 0) return status;
  return InvalidOnCuda(node, status.message());
}

Status RequireMainDType(const CudaKernelContext& context, DType dtype) {
  const Node& node = *context.node;
  if (!CudaInputPresent(context, 0) || context.output_types.empty())
    return InvalidOnCuda(node, "needs an input and an output");
  const DType in = context.input_types[0].dtype;
  const DType out = context.output_types[0].dtype;
  if (in != dtype || out != dtype)
    return RefuseOnCuda(
        node, DTypeName(in) + " -> " + DTypeName(out) + " (only " + DTypeName(dtype) + ")");
  return Status::Ok();
}

StatusOr<int64_t> ElementwiseCount(const CudaKernelContext& context, DType dtype) {
  IOS_RETURN_IF_ERROR(RequireMainDType(context, dtype));
  const int64_t count = NumElements(context.input_types[0].dims);
  if (NumElements(context.output_types[0].dims) != count)
    return InvalidOnCuda(*context.node, "output " + DimsToString(context.output_types[0].dims) +
                                            " does not match input " +
                                            DimsToString(context.input_types[0].dims));
  return count;
}


}  // namespace ios
