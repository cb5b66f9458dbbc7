// The factories of ios's own CUDA kernels, one group per op category file; cuda_kernel_table.cc
// lists them. A factory needs no device: it only checks the node and plans the
// launch; every device call happens in Enqueue.
#pragma once

#include <memory>

#include "runtime/cuda/kernels/cuda_kernel.h"

namespace ios {

// activation_cuda.cc: Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish, Elu, Softplus,
// Mish, Selu, Celu, Softsign, ThresholdedRelu.
CudaKernelOr CreateActivationCudaKernel(const CudaKernelContext& context);
// elementwise_cuda.cc: Add, Sub, Mul, Div, Pow, Max, Min, Sum (numpy broadcasting), PRelu (the
// slope broadcast to the input).
CudaKernelOr CreateBinaryCudaKernel(const CudaKernelContext& context);
// elementwise_cuda.cc: Neg, Abs, Sqrt, Exp, Log, Reciprocal, Floor, Ceil, Erf.
CudaKernelOr CreateUnaryCudaKernel(const CudaKernelContext& context);
// elementwise_cuda.cc: Gelu (both `approximate` forms).
CudaKernelOr CreateGeluCudaKernel(const CudaKernelContext& context);
// tensor_cuda.cc
CudaKernelOr CreateConcatCudaKernel(const CudaKernelContext& context);
CudaKernelOr CreateSplitCudaKernel(const CudaKernelContext& context);
CudaKernelOr CreateSliceCudaKernel(const CudaKernelContext& context);
CudaKernelOr CreateTransposeCudaKernel(const CudaKernelContext& context);
// tensor_cuda.cc: DepthToSpace and SpaceToDepth (a transpose of a six-dim view of the input).
CudaKernelOr CreateDepthSpaceCudaKernel(const CudaKernelContext& context);
CudaKernelOr CreateExpandCudaKernel(const CudaKernelContext& context);
CudaKernelOr CreatePadCudaKernel(const CudaKernelContext& context);
// copy_cuda.cc: Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout (inference).
CudaKernelOr CreateCopyCudaKernel(const CudaKernelContext& context);
// reduction_cuda.cc: Softmax and LogSoftmax; ReduceMean, ReduceSum, ReduceMax, ReduceMin,
// ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSumExp; ArgMax and ArgMin.
CudaKernelOr CreateSoftmaxCudaKernel(const CudaKernelContext& context);
CudaKernelOr CreateReduceCudaKernel(const CudaKernelContext& context);
CudaKernelOr CreateArgReduceCudaKernel(const CudaKernelContext& context);
// normalization_cuda.cc
CudaKernelOr CreateBatchNormCudaKernel(const CudaKernelContext& context);
// layer_norm_cuda.cc
CudaKernelOr CreateLayerNormCudaKernel(const CudaKernelContext& context);
// logical_cuda.cc: Equal, Less, Greater (bool output, numpy broadcasting); Not; Where.
CudaKernelOr CreateCompareCudaKernel(const CudaKernelContext& context);
CudaKernelOr CreateNotCudaKernel(const CudaKernelContext& context);
CudaKernelOr CreateWhereCudaKernel(const CudaKernelContext& context);
// mean_cuda.cc: Mean (float32, numpy broadcasting).
CudaKernelOr CreateMeanCudaKernel(const CudaKernelContext& context);
// cast_cuda.cc
CudaKernelOr CreateCastCudaKernel(const CudaKernelContext& context);
// indexing_cuda.cc
CudaKernelOr CreateGatherCudaKernel(const CudaKernelContext& context);
CudaKernelOr CreateTileCudaKernel(const CudaKernelContext& context);
// resize_cuda.cc: Resize and Upsample (float32).
CudaKernelOr CreateResizeCudaKernel(const CudaKernelContext& context);

}  // namespace ios
