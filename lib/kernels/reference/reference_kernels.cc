#include "kernels/reference/reference_kernels.h"

#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"

namespace ios {
namespace {

ReferenceKernelTable BuildTable() {
  ReferenceKernelTable table;
  AddConvReferenceKernels(table);
  AddNormalizationReferenceKernels(table);
  AddActivationReferenceKernels(table);
  AddElementwiseReferenceKernels(table);
  AddPoolReferenceKernels(table);
  AddTensorReferenceKernels(table);
  AddDepthSpaceReferenceKernels(table);
  AddMatmulReferenceKernels(table);
  AddMiscReferenceKernels(table);
  AddReductionReferenceKernels(table);
  AddResizeReferenceKernels(table);
  AddScatterReferenceKernels(table);
  return table;
}

const ReferenceKernelTable& Table() {
  static const ReferenceKernelTable table = BuildTable();  // thread-safe initialisation
  return table;
}

}  // namespace

const ReferenceKernel* FindReferenceKernel(const std::string& op_type) {
  auto it = Table().find(op_type);
  return it == Table().end() ? nullptr : &it->second;
}

Status EvaluateReference(const Node& node, const std::vector<const Tensor*>& inputs,
                         std::vector<Tensor>* outputs) {
  const ReferenceKernel* kernel = FindReferenceKernel(node.op_type);
  if (kernel == nullptr)
    return Unsupported(NodeLabel(node) + "no reference kernel for op " + node.op_type);
  if (outputs == nullptr) return Internal(NodeLabel(node) + "null output vector");
  // Callers that build a node by hand may pass an empty vector: size it to the node.
  if (outputs->size() < node.outputs.size()) outputs->resize(node.outputs.size());
  if (outputs->empty()) outputs->resize(1);
  return (*kernel)(node, inputs, outputs);
}

}  // namespace ios
