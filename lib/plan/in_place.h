// Elementwise ops that write their output over an input's bytes, as onnxruntime's planner lets
// its elementwise kernels do. An in-place output stays where the last write left the input, in
// the cache, instead of pulling cold arena lines in: a squeeze-excite scale of EfficientNet-B0
// at batch 8 (14.5 MB in, 14.5 MB out) took 0.72 ms out of place and 0.21 ms in onnxruntime,
// and a loop of the same shape 0.70 against 0.28 ms in place.
//
// The memory plan (memory_plan.h) decides where; this file says which ops may. A node may write
// output 0 over input `index` when it is a float32 Add, Sub, Mul, Div, Max, Min or Sum of two
// inputs and that input has the output's dims, dtype and layout: every backend's kernel for
// those (runtime/cpu/kernels/elementwise_cpu.cc, runtime/cuda/kernels/elementwise_impl.cu) computes
// element i of the output from element i of that input and writes nothing else, so reading and
// writing the same bytes gives the same result. So may a float32 standalone activation (Relu,
// LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish, Elu, Softplus, Mish, Selu, Celu,
// Softsign, ThresholdedRelu) over its input X: the CPU kernels map element i to element i
// (runtime/cpu/kernels/activation_cpu.cc; oneDNN's eltwise primitive, which some kinds run, takes
// src == dst).
//
// So may an inference BatchNormalization over its X (the CPU kernel, runtime/cpu/kernels/batchnorm_cpu.cc,
// reads its per-channel parameters first, then maps element i to element i).
//
// A float32 Conv with a fused residual (passes/fuse_residual_add.h) may write its output over
// the residual (input 3) when no other input of it is that value: the CPU kernel then adds the
// residual as oneDNN's sum post-op, which reads element i of Y before writing it, as
// onnxruntime's Conv with a Sum input does (runtime/cpu/kernels/conv_cpu.cc). CUDA plans do not use
// in-place outputs.
#pragma once

#include <cstddef>

#include "ir/graph.h"

namespace ios {

bool MayRunInPlace(const Graph& graph, const Node& node, size_t input_index);

}  // namespace ios
