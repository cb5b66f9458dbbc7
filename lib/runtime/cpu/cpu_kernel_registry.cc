// CreateCpuKernel / HasFastCpuKernel: one explicit table of the fast kernels; every other op
// (and every node a fast kernel declines, such as a non-float Add) runs its reference kernel.
#include <iterator>
#include <string>

#include "plan/tensor_views.h"
#include "runtime/cpu/cpu_kernel.h"
#include "runtime/cpu/cpu_kernel_factories.h"

namespace ios {
namespace {

struct FastKernelEntry {
  const char* op_type;
  CpuKernelFactory create;
};

constexpr FastKernelEntry kFastKernels[] = {
    // conv_cpu.cc (oneDNN)
    {"Conv", CreateConvCpuKernel},
    // matmul_cpu.cc (oneDNN)
    {"Gemm", CreateGemmCpuKernel},
    {"MatMul", CreateMatMulCpuKernel},
    // pool_cpu.cc
    {"MaxPool", CreateMaxPoolCpuKernel},
    {"AveragePool", CreateAveragePoolCpuKernel},
    {"GlobalAveragePool", CreateGlobalPoolCpuKernel},
    {"GlobalMaxPool", CreateGlobalPoolCpuKernel},
    // elementwise_cpu.cc
    {"Add", CreateElementwiseCpuKernel},
    {"Sub", CreateElementwiseCpuKernel},
    {"Mul", CreateElementwiseCpuKernel},
    {"Div", CreateElementwiseCpuKernel},
    {"Sum", CreateElementwiseCpuKernel},
    {"Max", CreateElementwiseCpuKernel},
    {"Min", CreateElementwiseCpuKernel},
    {"PRelu", CreateElementwiseCpuKernel},
    // activation_cpu.cc
    {"Relu", CreateActivationCpuKernel},
    {"LeakyRelu", CreateActivationCpuKernel},
    {"Clip", CreateActivationCpuKernel},
    {"Sigmoid", CreateActivationCpuKernel},
    {"Tanh", CreateActivationCpuKernel},
    {"HardSigmoid", CreateActivationCpuKernel},
    {"HardSwish", CreateActivationCpuKernel},
    {"Elu", CreateActivationCpuKernel},
    {"Softplus", CreateActivationCpuKernel},
    {"Mish", CreateActivationCpuKernel},
    {"Selu", CreateActivationCpuKernel},
    {"Celu", CreateActivationCpuKernel},
    {"Softsign", CreateActivationCpuKernel},
    {"ThresholdedRelu", CreateActivationCpuKernel},
    // tensor_cpu.cc
    {"Concat", CreateConcatCpuKernel},
    {"Split", CreateSplitCpuKernel},
    {"Slice", CreateSliceCpuKernel},
    {"Transpose", CreateTransposeCpuKernel},
    {"DepthToSpace", CreateDepthSpaceCpuKernel},
    {"SpaceToDepth", CreateDepthSpaceCpuKernel},
    {"Reshape", CreateCopyCpuKernel},
    {"Flatten", CreateCopyCpuKernel},
    {"Squeeze", CreateCopyCpuKernel},
    {"Unsqueeze", CreateCopyCpuKernel},
    {"Identity", CreateCopyCpuKernel},
    {"Pad", CreatePadCpuKernel},
    // softmax_cpu.cc
    {"Softmax", CreateSoftmaxCpuKernel},
    {"LogSoftmax", CreateSoftmaxCpuKernel},
    // reduction_cpu.cc
    {"ReduceMean", CreateReduceCpuKernel},
    {"ReduceSum", CreateReduceCpuKernel},
    {"ReduceMax", CreateReduceCpuKernel},
    {"ReduceMin", CreateReduceCpuKernel},
    {"ReduceProd", CreateReduceCpuKernel},
    {"ReduceL1", CreateReduceCpuKernel},
    {"ReduceL2", CreateReduceCpuKernel},
    {"ReduceSumSquare", CreateReduceCpuKernel},
    {"ReduceLogSumExp", CreateReduceCpuKernel},
    {"ArgMax", CreateArgReduceCpuKernel},
    {"ArgMin", CreateArgReduceCpuKernel},
    // unary_cpu.cc
    {"Erf", CreateErfCpuKernel},
    // gelu_cpu.cc (oneDNN)
    {"Gelu", CreateGeluCpuKernel},
    // layer_norm_cpu.cc (oneDNN)
    {"LayerNormalization", CreateLayerNormCpuKernel},
    // resize_cpu.cc
    {"Resize", CreateResizeCpuKernel},
    {"Upsample", CreateResizeCpuKernel},
};

const FastKernelEntry* FindFastKernel(const std::string& op_type) {
  for (const FastKernelEntry& entry : kFastKernels)
    if (op_type == entry.op_type) return &entry;
  return nullptr;
}

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateCpuKernel(const CpuKernelContext& context) {
  if (context.node == nullptr) return InvalidInput("CreateCpuKernel: no node");
  // Only some kernels take strided views (plan/tensor_views.h: TakesStridedBatchSlice).
  if (context.batch_strides.any() && !OpTakesStridedBatchSlices(context.node->op_type))
    return Internal(context.node->op_type + " '" + context.node->name +
                    "' touches a strided view, which its CPU kernel cannot take");
  if (const FastKernelEntry* entry = FindFastKernel(context.node->op_type)) {
    StatusOr<std::unique_ptr<CpuKernel>> kernel = entry->create(context);
    if (!kernel.ok()) {
      return kernel.status().WithContext(context.node->op_type + " '" + context.node->name +
                                         "' (CPU kernel)");
    }
    if (kernel.value() != nullptr) return kernel;
  }
  // The reference kernels read and write dense tensors only.
  if (context.batch_strides.any())
    return Internal(context.node->op_type + " '" + context.node->name +
                    "' touches a strided view, but runs the reference kernel, which cannot");
  return CreateReferenceFallbackCpuKernel(context);
}

bool HasFastCpuKernel(const std::string& op_type) { return FindFastKernel(op_type) != nullptr; }

}  // namespace ios
