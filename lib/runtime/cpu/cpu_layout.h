// Which tensors of a CPU plan are stored channels-last (ir/layout.h), as onnxruntime's NCHWc
// transformer keeps its blocked layout between the ops that take it.
//
// oneDNN's fastest convolutions on AVX-512 read and write NHWC, and its AVX2 JIT convs take it
// too; a conv between row-major tensors reorders its input in and its output out (or, on AVX2,
// may run oneDNN's much slower gemm conv), which on MobileNetV2 cost as much as the convs
// themselves. So, walking the graph in topological order:
// - a float32 Conv's output is channels-last;
// - an op whose inputs stored differently in the two layouts are all channels-last (at least
//   one) has channels-last outputs when its CPU kernel takes them so (CpuKernelTakesLayouts:
//   activations, binary elementwise ops, window pools, channel Concat and Split);
// - everything else is row-major: graph inputs, outputs and constants always, and the values
//   whose bytes are the same both ways ([N, C, 1, 1], one channel).
// An op whose kernel takes only row-major tensors reads and writes through a layout adapter
// (layout_adapter_cpu.h), so the reorders move to where a run of such ops begins or ends.
#pragma once

#include "ir/graph.h"

namespace ios {

// True when one of oneDNN's JIT convs runs a typical conv on channels-last tensors on this CPU
// (AVX-512 and AVX2 machines), which makes channels-last tensors pay.
bool CpuPrefersChannelsLast();

// Sets every value's layout as above (row-major everywhere when `channels_last` is false) and
// returns how many values are channels-last.
int AssignCpuLayouts(Graph& graph, bool channels_last = true);

}  // namespace ios
