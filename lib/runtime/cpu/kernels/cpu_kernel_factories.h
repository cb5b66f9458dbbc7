// The CPU kernel factories, one group per op category file; cpu_kernel_registry.cc lists them
// all in one explicit table (nothing registers itself).
//
// A factory returns a kernel, an error for a node that is invalid, or a null kernel when the
// node is valid but outside what the fast kernel covers (another dtype, a non-constant
// starts/pads input, ...); CreateCpuKernel then wraps the reference kernel instead.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/math/activation_math.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "util/status.h"

namespace ios {

using CpuKernelFactory = StatusOr<std::unique_ptr<CpuKernel>> (*)(const CpuKernelContext&);

// conv_cpu.cc
StatusOr<std::unique_ptr<CpuKernel>> CreateConvCpuKernel(const CpuKernelContext& context);
// conv_transpose_cpu.cc (oneDNN)
StatusOr<std::unique_ptr<CpuKernel>> CreateConvTransposeCpuKernel(const CpuKernelContext& context);
// matmul_cpu.cc
StatusOr<std::unique_ptr<CpuKernel>> CreateGemmCpuKernel(const CpuKernelContext& context);
StatusOr<std::unique_ptr<CpuKernel>> CreateMatMulCpuKernel(const CpuKernelContext& context);
// pool_cpu.cc
StatusOr<std::unique_ptr<CpuKernel>> CreateMaxPoolCpuKernel(const CpuKernelContext& context);
StatusOr<std::unique_ptr<CpuKernel>> CreateAveragePoolCpuKernel(const CpuKernelContext& context);
StatusOr<std::unique_ptr<CpuKernel>> CreateGlobalPoolCpuKernel(const CpuKernelContext& context);
// elementwise_cpu.cc: Add, Sub, Mul, Div, Pow, Mod, PRelu, Sum, Mean, Max, Min (float32)
StatusOr<std::unique_ptr<CpuKernel>> CreateElementwiseCpuKernel(const CpuKernelContext& context);
// Whether it takes the context's layouts: always, but for a one-input Sum/Max/Min (a copy)
// whose input and output are stored differently.
bool ElementwiseTakesLayouts(const CpuKernelContext& context);
// activation_cpu.cc: Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish, Elu, Softplus,
// Mish, Selu, Celu, Softsign, ThresholdedRelu
StatusOr<std::unique_ptr<CpuKernel>> CreateActivationCpuKernel(const CpuKernelContext& context);
// tensor_cpu.cc
StatusOr<std::unique_ptr<CpuKernel>> CreateConcatCpuKernel(const CpuKernelContext& context);
StatusOr<std::unique_ptr<CpuKernel>> CreateSplitCpuKernel(const CpuKernelContext& context);
// Whether Concat/Split take the context's layouts: all row-major, or a channel (axis 1) concat
// or split whose tensors are all channels-last (rows of pixels: a concat of the last dim).
bool ConcatSplitTakesLayouts(const CpuKernelContext& context);
StatusOr<std::unique_ptr<CpuKernel>> CreateSliceCpuKernel(const CpuKernelContext& context);
StatusOr<std::unique_ptr<CpuKernel>> CreateTransposeCpuKernel(const CpuKernelContext& context);
// DepthToSpace and SpaceToDepth.
StatusOr<std::unique_ptr<CpuKernel>> CreateDepthSpaceCpuKernel(const CpuKernelContext& context);
// Reshape, Flatten, Squeeze, Unsqueeze, Identity: the bytes are unchanged, so a copy.
StatusOr<std::unique_ptr<CpuKernel>> CreateCopyCpuKernel(const CpuKernelContext& context);
StatusOr<std::unique_ptr<CpuKernel>> CreatePadCpuKernel(const CpuKernelContext& context);
// batchnorm_cpu.cc: inference BatchNormalization on float32 (with a fused activation)
StatusOr<std::unique_ptr<CpuKernel>> CreateBatchNormCpuKernel(const CpuKernelContext& context);
// Whether it takes the context's layouts: float32 inference, X and Y stored alike, in any of the
// three.
bool BatchNormTakesLayouts(const CpuKernelContext& context);
// gather_cpu.cc
StatusOr<std::unique_ptr<CpuKernel>> CreateGatherCpuKernel(const CpuKernelContext& context);
// Whether Gather takes the context's layouts: all row-major, or a float32 [N, C, H, W] gathered
// along its channels with 1-D indices, data and output channels-last.
bool GatherTakesLayouts(const CpuKernelContext& context);
// softmax_cpu.cc: Softmax and LogSoftmax
StatusOr<std::unique_ptr<CpuKernel>> CreateSoftmaxCpuKernel(const CpuKernelContext& context);
// reduction_cpu.cc: ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceSumSquare, ReduceLogSumExp (float32; constant axes)
StatusOr<std::unique_ptr<CpuKernel>> CreateReduceCpuKernel(const CpuKernelContext& context);
// Whether it takes the context's layouts: a row-major output (or the same bytes), and a
// channels-last input where the reduction is rows or columns of its stored order.
bool ReduceTakesLayouts(const CpuKernelContext& context);
// reduction_cpu.cc: ArgMax, ArgMin (float32 input)
StatusOr<std::unique_ptr<CpuKernel>> CreateArgReduceCpuKernel(const CpuKernelContext& context);
// unary_cpu.cc: Abs, Neg, Sqrt, Exp, Log, Reciprocal, Floor, Ceil, Erf (float32) and Not (bool)
StatusOr<std::unique_ptr<CpuKernel>> CreateUnaryCpuKernel(const CpuKernelContext& context);
// gelu_cpu.cc (oneDNN)
StatusOr<std::unique_ptr<CpuKernel>> CreateGeluCpuKernel(const CpuKernelContext& context);
// layer_norm_cpu.cc (oneDNN)
StatusOr<std::unique_ptr<CpuKernel>> CreateLayerNormCpuKernel(const CpuKernelContext& context);
// resize_cpu.cc: Resize and Upsample (float32; own loops over tap tables)
StatusOr<std::unique_ptr<CpuKernel>> CreateResizeCpuKernel(const CpuKernelContext& context);
// compare_cpu.cc: Equal, Greater, Less (any numeric or bool type, a bool out), Mod (float32 through
// elementwise_cpu.cc, int64 and int32 here) and Where (any element type)
StatusOr<std::unique_ptr<CpuKernel>> CreateCompareCpuKernel(const CpuKernelContext& context);
StatusOr<std::unique_ptr<CpuKernel>> CreateModCpuKernel(const CpuKernelContext& context);
StatusOr<std::unique_ptr<CpuKernel>> CreateIntegerModCpuKernel(const CpuKernelContext& context);
StatusOr<std::unique_ptr<CpuKernel>> CreateWhereCpuKernel(const CpuKernelContext& context);
// Whether the broadcasting kernels of compare_cpu.cc and broadcast_copy_cpu.cc take the
// context's layouts: any but channels-blocked-8 (each tensor is walked with its own strides).
bool BroadcastTakesLayouts(const CpuKernelContext& context);
// cast_cpu.cc
StatusOr<std::unique_ptr<CpuKernel>> CreateCastCpuKernel(const CpuKernelContext& context);
// broadcast_copy_cpu.cc: Expand (any layout) and Tile (row-major)
StatusOr<std::unique_ptr<CpuKernel>> CreateExpandCpuKernel(const CpuKernelContext& context);
StatusOr<std::unique_ptr<CpuKernel>> CreateTileCpuKernel(const CpuKernelContext& context);
// scatter_cpu.cc
StatusOr<std::unique_ptr<CpuKernel>> CreateScatterNDCpuKernel(const CpuKernelContext& context);
// tensor_cpu.cc: Dropout at inference (a copy, and an all-true mask)
StatusOr<std::unique_ptr<CpuKernel>> CreateDropoutCpuKernel(const CpuKernelContext& context);
// reference_fallback_cpu.cc: any op with a reference kernel.
StatusOr<std::unique_ptr<CpuKernel>> CreateReferenceFallbackCpuKernel(
    const CpuKernelContext& context);
// True for a kernel made by CreateReferenceFallbackCpuKernel, alone or behind a layout adapter
// (tests use it to check that the fast path really ran).
bool IsReferenceFallbackCpuKernel(const CpuKernel& kernel);

// activation_cpu.cc: data[i] = ApplyActivation(act, data[i]) for i < count, on up to `threads`
// threads. For kernels whose library cannot fuse an activation.
void ApplyActivationCpu(const Activation& act, float* data, int64_t count, int threads);

}  // namespace ios
