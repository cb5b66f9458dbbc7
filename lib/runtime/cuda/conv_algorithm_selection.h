// The per-plan pass that measures every conv's cuDNN algorithm on the device, after scheduling
// and operator merging, so that iosrun runs the measured algorithm instead of searching again.
// Its result is the plan's CudaOptions (proto/iosplan.proto): allow_tf32 and, per Conv op, the
// algorithm, its workspace and the math type it was measured with.
//
// Every live Conv of the final graph is measured, merged convs included, with
// MeasureConvAlgorithm (runtime/cuda/conv_algorithm.h: cudnnFindConvolutionForwardAlgorithmEx)
// on device buffers this pass owns: the conv's input filled once with random data in [-1, 1),
// its weights uploaded, cuDNN's full output, and a workspace that bounds the algorithms
// considered. The input, output and workspace buffers grow and are reused from conv to conv.
//
// Workspace limit: each stream of a CUDA session has its own workspace, sized by the largest
// algorithm workspace of the plan, and a plan runs up to 8 streams (iosc's GPU default), so a
// 64 MiB limit bounds the workspaces at 512 MiB; the limit is also held under half the device
// memory free when the pass starts. onnxruntime's CUDA EP measures with its maximum workspace
// by default (cudnn_conv_use_max_workspace), but runs one stream.
#pragma once

#include <cstddef>
#include <vector>

#include "iosplan.pb.h"
#include "ir/graph.h"
#include "util/status.h"

namespace ios {

struct ConvAlgorithmSelectionOptions {
  int device = 0;
  bool allow_tf32 = true;
  size_t workspace_limit_bytes = size_t{64} << 20;
};

// The live Conv nodes of `graph`, in node order: what SelectConvAlgorithms measures.
std::vector<NodeId> ConvNodesToMeasure(const Graph& graph);

// Measures every live Conv of `graph` on the device and returns the plan's CUDA options.
// ConvAlgorithm::op is the conv's NodeId, which is the plan's op index (BuildPlan numbers op i =
// node i of the compacted graph). A conv whose weights are not a constant is an Unsupported
// error naming it.
StatusOr<plan::CudaOptions> SelectConvAlgorithms(const Graph& graph,
                                                 const ConvAlgorithmSelectionOptions& options);

}  // namespace ios
