// What oneDNN on this CPU prefers for a conv's tensors, probed once per process: the compile
// pipeline's layout choices (passes/assign_layouts.h) and the CPU conv kernel read it.
#pragma once

namespace ios {

// True when one of oneDNN's JIT convs runs a typical conv on channels-last tensors on this CPU
// (AVX-512 and AVX2 machines), which makes channels-last tensors pay.
bool CpuPrefersChannelsLast();

// True when oneDNN on this CPU, left to choose, stores a typical 3x3 conv's tensors with blocked
// channels rather than NHWC (nChw8c on AVX2). Its spatial convs there run 1.2-2.5x faster on
// blocked tensors than on NHWC ones (2 threads, oneDNN 2.6, AVX2 EPYC: 80 -> 192 3x3 at 73x73
// 10.5 against 19.5 ms, 288 -> 384 3x3 stride 2 at 35x35 5.8 against 14.7), so a channels-last
// plan's dense spatial convs reorder into and out of oneDNN's layout (conv_cpu.cc).
bool CpuBlocksSpatialConvs();

}  // namespace ios
