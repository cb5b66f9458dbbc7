// Which tensors of a CPU plan are stored channels-last (ir/layout.h), as onnxruntime's NCHWc
// transformer keeps its blocked layout between the ops that take it.
//
// oneDNN's fastest convolutions on AVX-512 read and write NHWC, and its AVX2 JIT convs take it
// too; a conv between row-major tensors reorders its input in and its output out (or, on AVX2,
// may run oneDNN's much slower gemm conv), which on MobileNetV2 cost as much as the convs
// themselves. So, walking the graph in topological order:
// - a float32 Conv's output is channels-last;
// - an op whose inputs stored differently in the two layouts are all channels-last (at least
//   one) has channels-last outputs when its CPU kernel takes them so (its kernel table says:
//   activations, binary elementwise ops, window pools, channel Concat and Split);
// - everything else is row-major: graph inputs, outputs and constants always, and the values
//   whose bytes are the same both ways ([N, C, 1, 1], one channel).
// An op whose kernel takes only row-major tensors reads and writes through a layout adapter
// (layout_adapter_cpu.h), so the reorders move to where a run of such ops begins or ends.
#pragma once

#include "ir/graph.h"
#include "ops/kernel_caps.h"

namespace ios {

// Where oneDNN blocks spatial convs' channels (CpuBlocksSpatialConvs), the channels-last values
// with a multiple of 8 channels whose producer and consumers all run on nChw8c as it is are
// stored channels-blocked-8 instead: dense 2-D convs (as X, Y or fused residual; a 1x1 conv's X
// and Y, and a fused residual and the Y it is added to, both or neither), activations,
// same-shape binary elementwise ops, window and global pools, and channel Concat and Split. A
// run of such ops then reorders only at its ends, where the conv at each end reordered both its
// sides before (Inception V3's modules: 1x1 convs, pools and the Concat between its spatial
// convs; ResNet's bottlenecks; onnxruntime keeps its NCHWc layout between the same ops).
//
// Sets every value's layout as above, asking `kernels` (the CPU's) which nodes take which
// layouts (row-major everywhere when `channels_last` is false; blocked values only when
// `blocked`, which the compile pipeline sets where CpuBlocksSpatialConvs,
// runtime/cpu/cpu_layout.h) and returns how many values are not row-major.
int AssignCpuLayouts(Graph& graph, const KernelCapsTable& kernels, bool channels_last = true,
                     bool blocked = false);

}  // namespace ios
