// The per-plan pass that measures every conv's cuDNN algorithm on the device, after scheduling
// and operator merging, so that iosrun runs the measured algorithm instead of searching again.
// iosc runs it only with --conv-algorithms measure; by default plans record no algorithm and
// take cuDNN's heuristic choice, as the stage profiler does.
// Its result is the plan's CudaOptions (proto/iosplan.proto): allow_tf32 and, per Conv op, the
// algorithm, its workspace and the math type it was measured with.
//
// Every live Conv of the final graph gets a measured algorithm, merged convs included; convs
// alike in shape and layout (ConvMeasureKey below) share one measurement, made with
// FindConvAlgorithms (runtime/cuda/kernels/conv_algorithm.h: cudnnFindConvolutionForwardAlgorithmEx),
// whose fastest kConvCandidatesTimedAsRun and the heuristic's choice are then timed in the call
// the session makes (conv_run_timing.h: the fused bias and ReLU call where it applies, which
// cudnnFind does not time), and the fastest is recorded. The buffers are this pass's own: the
// conv's input filled once with random data in [-1, 1), its weights uploaded, cuDNN's full
// output, and a workspace that bounds the algorithms considered. The input, output and
// workspace buffers grow and are reused from conv to conv.
//
// Layout: each conv is measured on x and y laid out as the session will find them in the plan's
// arena (ConvMeasureLayoutInPlan): the same batch strides (a strided view at batch > 1) and the
// same offset past a 256-byte boundary (a channel slice of a Concat's output can start at any
// multiple of 4 bytes). Some algorithms need aligned pointers (cuDNN refuses them with
// CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER), so one measured on aligned, dense buffers could
// fail, or be another speed, on the real tensors.
//
// Workspace limit: each stream of a CUDA session has its own workspace, sized by the largest
// algorithm workspace of the plan, and a plan runs up to 8 streams (iosc's GPU default), so a
// 64 MiB limit bounds the workspaces at 512 MiB; the limit is also held under half the device
// memory free when the pass starts. onnxruntime's CUDA EP measures with its maximum workspace
// by default (cudnn_conv_use_max_workspace), but runs one stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "iosplan.pb.h"
#include "ir/graph.h"
#include "plan/memory_plan.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"
#include "util/status.h"

namespace ios {

// Where a conv's x and y lie in the session's memory (cuda_session.cc places the arena, which
// cudaMalloc aligns to 256 bytes, and each tensor at its placement's offset). Host-only.
struct ConvMeasureLayout {
  WindowBatchStrides batch_strides;  // in elements, as the session's kernel gets them
  int64_t x_offset = 0;              // bytes past a 256-byte boundary where x starts
  int64_t y_offset = 0;
  int64_t x_bytes = 0;  // from x's first byte to the end of its last batch item
  int64_t y_bytes = 0;
};

inline constexpr int64_t kConvMeasureBoundary = 256;  // what cudaMalloc guarantees

// The layout of `conv`'s input 0 and output 0 under `memory`. A constant x (uploaded on its
// own by the session) is aligned and dense.
StatusOr<ConvMeasureLayout> ConvMeasureLayoutInPlan(const Graph& graph, const MemoryPlan& memory,
                                                    NodeId conv);

struct ConvAlgorithmSelectionOptions {
  int device = 0;
  bool allow_tf32 = true;
  size_t workspace_limit_bytes = size_t{64} << 20;
  // Time cudnnFind's fastest kConvCandidatesTimedAsRun and the heuristic's choice in the call
  // the session makes (conv_run_timing.h) and record the fastest; false: cudnnFind's first.
  bool time_as_run = true;
};

inline constexpr size_t kConvCandidatesTimedAsRun = 3;

// What a conv's measurement depends on: its input, weight and output dims, its window (pads,
// strides, dilations, crop), its groups, and where x and y lie (ConvMeasureLayout: batch strides
// and offsets past a 256-byte boundary). SelectConvAlgorithms measures each key once and gives
// every conv with that key the same algorithm: cuDNN's candidates and their speed do not depend
// on the values, which the key leaves out, as onnxruntime's and PyTorch's algorithm caches key on
// shapes. RandWire's and NasNet's repeated separable convs then cost one measurement per shape.
// Host-only.
StatusOr<std::string> ConvMeasureKey(const Graph& graph, NodeId conv,
                                     const ConvMeasureLayout& layout);

// The live Conv nodes of `graph`, in node order: what SelectConvAlgorithms measures.
std::vector<NodeId> ConvNodesToMeasure(const Graph& graph);

// Measures every live Conv of `graph` (once per ConvMeasureKey) on the device, laid out as
// `memory` places it, and returns the plan's CUDA options. ConvAlgorithm::op is the conv's
// NodeId, which is the plan's op index (BuildPlan numbers op i = node i of the compacted graph).
// A conv whose weights are not a constant is an Unsupported error naming it.
StatusOr<plan::CudaOptions> SelectConvAlgorithms(const Graph& graph, const MemoryPlan& memory,
                                                 const ConvAlgorithmSelectionOptions& options);

}  // namespace ios
