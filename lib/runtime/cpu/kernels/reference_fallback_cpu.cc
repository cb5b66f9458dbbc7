// The CPU kernel for ops without a fast kernel: copies the inputs into Tensors, runs the
// reference kernel and copies the results out. Correct for every op the reference handles;
// single-threaded and slow.
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "kernels/reference/reference_kernels.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/kernels/layout_adapter_cpu.h"

namespace ios {
namespace {

class ReferenceFallbackCpuKernel : public CpuKernel {
 public:
  explicit ReferenceFallbackCpuKernel(const CpuKernelContext& context)
      : node_(*context.node), input_types_(context.input_types),
        output_types_(context.output_types) {
    // Constants are copied: the kernel must not depend on the lifetime of the graph.
    constants_.resize(input_types_.size());
    for (size_t i = 0; i < context.constants.size() && i < constants_.size(); ++i)
      if (context.constants[i] != nullptr) constants_[i] = *context.constants[i];
  }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const std::string label = node_.op_type + " '" + node_.name + "': ";
    if (inputs.size() != input_types_.size() || outputs.size() != output_types_.size())
      return Internal(label + "expected " + std::to_string(input_types_.size()) + " inputs and " +
                      std::to_string(output_types_.size()) + " outputs, got " +
                      std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
    std::vector<Tensor> copies(inputs.size());
    std::vector<const Tensor*> args(inputs.size(), nullptr);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (constants_[i].has_value()) {
        args[i] = &*constants_[i];
      } else if (inputs[i] != nullptr) {
        copies[i] = Tensor(input_types_[i].dtype, input_types_[i].dims);
        if (copies[i].num_bytes() > 0)  // an empty tensor's buffer may be null
          std::memcpy(copies[i].raw(), inputs[i], copies[i].num_bytes());
        args[i] = &copies[i];
      }
    }
    std::vector<Tensor> results(outputs.size());
    IOS_RETURN_IF_ERROR(EvaluateReference(node_, args, &results));
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i] == nullptr) continue;  // an output nobody reads
      const TensorType& want = output_types_[i];
      const Tensor& got = results[i];
      if (got.dtype() != want.dtype || NumElements(got.dims()) != NumElements(want.dims))
        return Internal(label + "the reference computed output " + std::to_string(i) + " as " +
                        DTypeName(got.dtype()) + " " + DimsToString(got.dims()) +
                        ", the plan expects " + DTypeName(want.dtype) + " " +
                        DimsToString(want.dims));
      if (got.num_bytes() > 0) std::memcpy(outputs[i], got.raw(), got.num_bytes());
    }
    return Status::Ok();
  }

 private:
  Node node_;
  std::vector<TensorType> input_types_;
  std::vector<TensorType> output_types_;
  std::vector<std::optional<Tensor>> constants_;
};

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateReferenceFallbackCpuKernel(
    const CpuKernelContext& context) {
  if (FindReferenceKernel(context.node->op_type) == nullptr)
    return Unsupported(context.node->op_type + " '" + context.node->name +
                       "': no CPU kernel (neither a fast nor a reference one)");
  return std::unique_ptr<CpuKernel>(new ReferenceFallbackCpuKernel(context));
}

bool IsReferenceFallbackCpuKernel(const CpuKernel& kernel) {
  if (const CpuKernel* inner = LayoutAdapterInner(kernel))
    return IsReferenceFallbackCpuKernel(*inner);
  return dynamic_cast<const ReferenceFallbackCpuKernel*>(&kernel) != nullptr;
}

}  // namespace ios
