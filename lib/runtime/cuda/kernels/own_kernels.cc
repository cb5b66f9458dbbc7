// The CUDA kernels ios writes itself, listed for the kernel table (cuda_kernel.h).
#include "runtime/cuda/kernels/own_kernel_factories.h"

namespace ios {

void AddOwnCudaKernels(std::vector<CudaKernelEntry>& table) {
  const CudaKernelEntry entries[] = {
      // Activations (kernels/math/activation_math.h).
      {"Relu", CreateActivationCudaKernel},
      {"LeakyRelu", CreateActivationCudaKernel},
      {"Clip", CreateActivationCudaKernel},
      {"Sigmoid", CreateActivationCudaKernel},
      {"Tanh", CreateActivationCudaKernel},
      {"HardSigmoid", CreateActivationCudaKernel},
      {"HardSwish", CreateActivationCudaKernel},
      {"Elu", CreateActivationCudaKernel},
      {"Softplus", CreateActivationCudaKernel},
      {"Mish", CreateActivationCudaKernel},
      {"Selu", CreateActivationCudaKernel},
      {"Celu", CreateActivationCudaKernel},
      {"Softsign", CreateActivationCudaKernel},
      {"ThresholdedRelu", CreateActivationCudaKernel},
      // Elementwise arithmetic with broadcasting, and unary math.
      {"Add", CreateBinaryCudaKernel},
      {"Sub", CreateBinaryCudaKernel},
      {"Mul", CreateBinaryCudaKernel},
      {"Div", CreateBinaryCudaKernel},
      {"Pow", CreateBinaryCudaKernel},
      {"Max", CreateBinaryCudaKernel},
      {"Min", CreateBinaryCudaKernel},
      {"Sum", CreateBinaryCudaKernel},
      {"PRelu", CreateBinaryCudaKernel},
      {"Neg", CreateUnaryCudaKernel},
      {"Abs", CreateUnaryCudaKernel},
      {"Sqrt", CreateUnaryCudaKernel},
      {"Exp", CreateUnaryCudaKernel},
      {"Log", CreateUnaryCudaKernel},
      {"Reciprocal", CreateUnaryCudaKernel},
      {"Floor", CreateUnaryCudaKernel},
      {"Ceil", CreateUnaryCudaKernel},
      {"Erf", CreateUnaryCudaKernel},
      {"Gelu", CreateGeluCudaKernel},
      {"Mean", CreateMeanCudaKernel},
      // Comparisons (bool output) and selection.
      {"Equal", CreateCompareCudaKernel},
      {"Less", CreateCompareCudaKernel},
      {"Greater", CreateCompareCudaKernel},
      {"Not", CreateNotCudaKernel},
      {"Where", CreateWhereCudaKernel},
      // Conversion.
      {"Cast", CreateCastCudaKernel},
      // Data movement (any dtype).
      {"Concat", CreateConcatCudaKernel},
      {"Split", CreateSplitCudaKernel},
      {"Slice", CreateSliceCudaKernel},
      {"Transpose", CreateTransposeCudaKernel},
      {"DepthToSpace", CreateDepthSpaceCudaKernel},
      {"SpaceToDepth", CreateDepthSpaceCudaKernel},
      {"Expand", CreateExpandCudaKernel},
      {"Pad", CreatePadCudaKernel},
      {"Reshape", CreateCopyCudaKernel},
      {"Flatten", CreateCopyCudaKernel},
      {"Squeeze", CreateCopyCudaKernel},
      {"Unsqueeze", CreateCopyCudaKernel},
      {"Identity", CreateCopyCudaKernel},
      {"Dropout", CreateCopyCudaKernel},
      {"Gather", CreateGatherCudaKernel},
      {"Tile", CreateTileCudaKernel},
      {"Resize", CreateResizeCudaKernel},
      {"Upsample", CreateResizeCudaKernel},
      // Reductions and normalisation.
      {"Softmax", CreateSoftmaxCudaKernel},
      {"LogSoftmax", CreateSoftmaxCudaKernel},
      {"ReduceMean", CreateReduceCudaKernel},
      {"ReduceSum", CreateReduceCudaKernel},
      {"ReduceMax", CreateReduceCudaKernel},
      {"ReduceMin", CreateReduceCudaKernel},
      {"ReduceProd", CreateReduceCudaKernel},
      {"ReduceL1", CreateReduceCudaKernel},
      {"ReduceL2", CreateReduceCudaKernel},
      {"ReduceSumSquare", CreateReduceCudaKernel},
      {"ReduceLogSumExp", CreateReduceCudaKernel},
      {"ArgMax", CreateArgReduceCudaKernel},
      {"ArgMin", CreateArgReduceCudaKernel},
      {"BatchNormalization", CreateBatchNormCudaKernel},
      {"LayerNormalization", CreateLayerNormCudaKernel},
  };
  for (const CudaKernelEntry& entry : entries) table.push_back(entry);
}

}  // namespace ios
