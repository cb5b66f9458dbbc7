#include "runtime/cuda/kernels/own_kernel_util.h"

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

}  // namespace ios
