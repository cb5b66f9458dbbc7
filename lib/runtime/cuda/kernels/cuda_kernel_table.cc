// The CUDA backend's kernel table: every op it runs, the factory that makes the kernel, and what
// the kernel can do (ops/kernel_caps.h). Plain C++ compiled in every build, so that a GPU plan
// made where the CUDA backend is not built asks the same table; its factories are null there.
#include "runtime/cuda/kernels/cuda_kernel_table.h"

#include <algorithm>

#include "ir/fused_activation.h"
#ifdef IOS_HAVE_CUDA
#include "runtime/cuda/kernels/library_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#define IOS_CUDA_FACTORY(factory) (factory)
#else
#define IOS_CUDA_FACTORY(factory) nullptr
#endif

namespace ios {
namespace {

// Conv (conv_cuda.cc): cuDNN's descriptors carry X's and Y's batch strides; the activations a
// conv carries fused are applied after cuDNN's conv.
constexpr KernelCaps kConvCaps{StridedSlices::kWindow, nullptr, ConvFusesActivation};
// MaxPool and AveragePool (pool_cuda.cc): cuDNN's 4-D descriptors take strides.
constexpr KernelCaps kWindowCaps{StridedSlices::kWindow};
// Add, Sub, Mul, Div, Max, Min, Sum (elementwise_cuda.cc): the broadcast index math takes any
// operand's batch stride. CUDA plans use no in-place outputs.
constexpr KernelCaps kSameShapeCaps{StridedSlices::kElementwise};

const CudaKernelEntry kCudaKernels[] = {
    // cuDNN and cuBLAS (library_kernel_factories.h).
    {"Conv", IOS_CUDA_FACTORY(CreateConvCudaKernel), kConvCaps},
    {"ConvTranspose", IOS_CUDA_FACTORY(CreateConvTransposeCudaKernel)},
    {"MaxPool", IOS_CUDA_FACTORY(CreatePoolCudaKernel), kWindowCaps},
    {"AveragePool", IOS_CUDA_FACTORY(CreatePoolCudaKernel), kWindowCaps},
    {"GlobalMaxPool", IOS_CUDA_FACTORY(CreatePoolCudaKernel)},
    {"GlobalAveragePool", IOS_CUDA_FACTORY(CreatePoolCudaKernel)},
    {"Gemm", IOS_CUDA_FACTORY(CreateGemmCudaKernel)},
    {"MatMul", IOS_CUDA_FACTORY(CreateMatMulCudaKernel)},
    // ios's own kernels (own_kernel_factories.h).
    // Activations (kernels/math/activation_math.h).
    {"Relu", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"LeakyRelu", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"Clip", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"Sigmoid", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"Tanh", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"HardSigmoid", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"HardSwish", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"Elu", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"Softplus", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"Mish", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"Selu", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"Celu", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"Softsign", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    {"ThresholdedRelu", IOS_CUDA_FACTORY(CreateActivationCudaKernel)},
    // Elementwise arithmetic with broadcasting, and unary math.
    {"Add", IOS_CUDA_FACTORY(CreateBinaryCudaKernel), kSameShapeCaps},
    {"Sub", IOS_CUDA_FACTORY(CreateBinaryCudaKernel), kSameShapeCaps},
    {"Mul", IOS_CUDA_FACTORY(CreateBinaryCudaKernel), kSameShapeCaps},
    {"Div", IOS_CUDA_FACTORY(CreateBinaryCudaKernel), kSameShapeCaps},
    {"Pow", IOS_CUDA_FACTORY(CreateBinaryCudaKernel)},
    {"Max", IOS_CUDA_FACTORY(CreateBinaryCudaKernel), kSameShapeCaps},
    {"Min", IOS_CUDA_FACTORY(CreateBinaryCudaKernel), kSameShapeCaps},
    {"Sum", IOS_CUDA_FACTORY(CreateBinaryCudaKernel), kSameShapeCaps},
    {"PRelu", IOS_CUDA_FACTORY(CreateBinaryCudaKernel)},
    {"Neg", IOS_CUDA_FACTORY(CreateUnaryCudaKernel)},
    {"Abs", IOS_CUDA_FACTORY(CreateUnaryCudaKernel)},
    {"Sqrt", IOS_CUDA_FACTORY(CreateUnaryCudaKernel)},
    {"Exp", IOS_CUDA_FACTORY(CreateUnaryCudaKernel)},
    {"Log", IOS_CUDA_FACTORY(CreateUnaryCudaKernel)},
    {"Reciprocal", IOS_CUDA_FACTORY(CreateUnaryCudaKernel)},
    {"Floor", IOS_CUDA_FACTORY(CreateUnaryCudaKernel)},
    {"Ceil", IOS_CUDA_FACTORY(CreateUnaryCudaKernel)},
    {"Erf", IOS_CUDA_FACTORY(CreateUnaryCudaKernel)},
    {"Sign", IOS_CUDA_FACTORY(CreateUnaryCudaKernel)},
    {"Gelu", IOS_CUDA_FACTORY(CreateGeluCudaKernel)},
    {"Mean", IOS_CUDA_FACTORY(CreateMeanCudaKernel)},
    // Comparisons (bool output) and selection.
    {"Equal", IOS_CUDA_FACTORY(CreateCompareCudaKernel)},
    {"Less", IOS_CUDA_FACTORY(CreateCompareCudaKernel)},
    {"Greater", IOS_CUDA_FACTORY(CreateCompareCudaKernel)},
    {"Not", IOS_CUDA_FACTORY(CreateNotCudaKernel)},
    {"Where", IOS_CUDA_FACTORY(CreateWhereCudaKernel)},
    // Conversion.
    {"Cast", IOS_CUDA_FACTORY(CreateCastCudaKernel)},
    // Data movement (any dtype).
    {"Concat", IOS_CUDA_FACTORY(CreateConcatCudaKernel)},
    {"Split", IOS_CUDA_FACTORY(CreateSplitCudaKernel)},
    {"Slice", IOS_CUDA_FACTORY(CreateSliceCudaKernel)},
    {"Transpose", IOS_CUDA_FACTORY(CreateTransposeCudaKernel)},
    {"DepthToSpace", IOS_CUDA_FACTORY(CreateDepthSpaceCudaKernel)},
    {"SpaceToDepth", IOS_CUDA_FACTORY(CreateDepthSpaceCudaKernel)},
    {"Expand", IOS_CUDA_FACTORY(CreateExpandCudaKernel)},
    {"Pad", IOS_CUDA_FACTORY(CreatePadCudaKernel)},
    {"Reshape", IOS_CUDA_FACTORY(CreateCopyCudaKernel)},
    {"Flatten", IOS_CUDA_FACTORY(CreateCopyCudaKernel)},
    {"Squeeze", IOS_CUDA_FACTORY(CreateCopyCudaKernel)},
    {"Unsqueeze", IOS_CUDA_FACTORY(CreateCopyCudaKernel)},
    {"Identity", IOS_CUDA_FACTORY(CreateCopyCudaKernel)},
    {"Dropout", IOS_CUDA_FACTORY(CreateCopyCudaKernel)},
    {"Gather", IOS_CUDA_FACTORY(CreateGatherCudaKernel)},
    {"Tile", IOS_CUDA_FACTORY(CreateTileCudaKernel)},
    {"Resize", IOS_CUDA_FACTORY(CreateResizeCudaKernel)},
    {"Upsample", IOS_CUDA_FACTORY(CreateResizeCudaKernel)},
    // Reductions and normalisation.
    {"Softmax", IOS_CUDA_FACTORY(CreateSoftmaxCudaKernel)},
    {"LogSoftmax", IOS_CUDA_FACTORY(CreateSoftmaxCudaKernel)},
    {"ReduceMean", IOS_CUDA_FACTORY(CreateReduceCudaKernel)},
    {"ReduceSum", IOS_CUDA_FACTORY(CreateReduceCudaKernel)},
    {"ReduceMax", IOS_CUDA_FACTORY(CreateReduceCudaKernel)},
    {"ReduceMin", IOS_CUDA_FACTORY(CreateReduceCudaKernel)},
    {"ReduceProd", IOS_CUDA_FACTORY(CreateReduceCudaKernel)},
    {"ReduceL1", IOS_CUDA_FACTORY(CreateReduceCudaKernel)},
    {"ReduceL2", IOS_CUDA_FACTORY(CreateReduceCudaKernel)},
    {"ReduceSumSquare", IOS_CUDA_FACTORY(CreateReduceCudaKernel)},
    {"ReduceLogSumExp", IOS_CUDA_FACTORY(CreateReduceCudaKernel)},
    {"ArgMax", IOS_CUDA_FACTORY(CreateArgReduceCudaKernel)},
    {"ArgMin", IOS_CUDA_FACTORY(CreateArgReduceCudaKernel)},
    {"BatchNormalization", IOS_CUDA_FACTORY(CreateBatchNormCudaKernel)},
    {"LayerNormalization", IOS_CUDA_FACTORY(CreateLayerNormCudaKernel)},
};

class CudaKernelCapsTable final : public KernelCapsTable {
 public:
  const char* backend() const override { return "CUDA"; }
  const KernelCaps* Find(const std::string& op_type) const override {
    const CudaKernelEntry* entry = FindCudaKernelEntry(op_type);
    return entry != nullptr ? &entry->caps : nullptr;
  }
  std::vector<std::string> OpTypes() const override { return CudaSupportedOps(); }
  // GPU plans are row-major.
  bool TakesAssignedLayouts(const Graph& graph, const Node& node) const override {
    for (ValueId id : node.inputs)
      if (id != kNoValue && graph.values[id].layout != Layout::kRowMajor) return false;
    for (ValueId id : node.outputs)
      if (id != kNoValue && graph.values[id].layout != Layout::kRowMajor) return false;
    return true;
  }
};

}  // namespace

const CudaKernelEntry* FindCudaKernelEntry(const std::string& op_type) {
  for (const CudaKernelEntry& entry : kCudaKernels)
    if (op_type == entry.op_type) return &entry;
  return nullptr;
}

bool CudaSupportsOp(const std::string& op_type) { return FindCudaKernelEntry(op_type) != nullptr; }

std::vector<std::string> CudaSupportedOps() {
  std::vector<std::string> ops;
  for (const CudaKernelEntry& entry : kCudaKernels) ops.push_back(entry.op_type);
  std::sort(ops.begin(), ops.end());
  return ops;
}

const KernelCapsTable& CudaKernelCaps() {
  static const CudaKernelCapsTable table;
  return table;
}

}  // namespace ios
