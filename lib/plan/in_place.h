// Elementwise ops that write their output over an input's bytes, as onnxruntime's planner lets
// its elementwise kernels do. An in-place output stays where the last write left the input, in
// the cache, instead of pulling cold arena lines in: a squeeze-excite scale of EfficientNet-B0
// at batch 8 (14.5 MB in, 14.5 MB out) took 0.72 ms out of place and 0.21 ms in onnxruntime,
// and a loop of the same shape 0.70 against 0.28 ms in place.
//
// The memory plan (memory_plan.h) decides where; the backend's kernel table says which ops may
// (KernelCaps::in_place, ops/kernel_caps.h): today the CPU's two-input elementwise ops, its
// standalone activations, an inference BatchNormalization over X and a Conv over its fused
// residual. The input must also be float32 with the output's dims and layout. CUDA plans do not
// use in-place outputs.
#pragma once

#include <cstddef>

#include "ir/graph.h"
#include "ops/kernel_caps.h"

namespace ios {

bool MayRunInPlace(const Graph& graph, const Node& node, size_t input_index,
                   const KernelCapsTable& kernels);

}  // namespace ios
