// Choosing a cuDNN forward convolution algorithm: from the plan (iosc measured it), from cuDNN's
// heuristics, or by measuring on the device (what iosc does for each conv of a CUDA plan).
//
// TF32. onnxruntime's CUDA execution provider enables TF32 by default (`use_tf32`, default true
// in CUDAExecutionProviderInfo): fp32 convs run with CUDNN_DEFAULT_MATH, which lets cuDNN use
// TF32 tensor cores on Ampere and later, and cuBLAS with TF32 tensor-op math. With use_tf32=0 it
// uses CUDNN_FMA_MATH (no tensor cores for fp32). ios follows the same rule: allow_tf32 selects
// CUDNN_DEFAULT_MATH, otherwise CUDNN_FMA_MATH; the plan/iosc default should be allow_tf32 =
// true to match onnxruntime (--check compares against it with a TF32-sized tolerance).
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <vector>

#include "iosplan.pb.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"
#include "util/status.h"

namespace ios {

cudnnMathType_t ConvMathType(bool allow_tf32);

struct ConvAlgorithmChoice {
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnMathType_t math_type = CUDNN_FMA_MATH;
  size_t workspace_bytes = 0;
};

// The plan's recorded choice, checked (algo and math type in range). Without TF32 the math type
// is FMA whatever was recorded. workspace_bytes is what the plan recorded; a caller with a
// handle should ask cuDNN again (ConvWorkspaceBytes).
StatusOr<ConvAlgorithmChoice> ConvAlgorithmFromPlan(const plan::ConvAlgorithm& recorded,
                                                    bool allow_tf32);

// The workspace a conv may ask for when cuDNN's heuristics choose its algorithm: every stream
// of a session holds the largest kernel workspace, so one FFT algorithm asking for gigabytes
// must not size them all (the same bound as iosc's measurement, conv_algorithm_selection.h).
inline constexpr size_t kHeuristicConvWorkspaceLimit = size_t{64} << 20;

// cuDNN's heuristic choice (cudnnGetConvolutionForwardAlgorithm_v7): the first algorithm it
// ranks as supported whose workspace fits `workspace_limit`. Sets the chosen math type on
// descriptors.conv.
StatusOr<ConvAlgorithmChoice> ChooseConvAlgorithmByHeuristic(
    cudnnHandle_t handle, const ConvDescriptors& descriptors, bool allow_tf32,
    size_t workspace_limit = kHeuristicConvWorkspaceLimit);

// The workspace cuDNN needs for `algo` with these descriptors (as they are, math type included).
StatusOr<size_t> ConvWorkspaceBytes(cudnnHandle_t handle, const ConvDescriptors& descriptors,
                                    cudnnConvolutionFwdAlgo_t algo);

// Device buffers for a measurement: x and w as the conv reads them, y of ConvMeasureOutputBytes
// (cuDNN's full output, see cudnn_descriptors.h), and scratch that bounds the workspace.
struct ConvMeasureBuffers {
  const void* x = nullptr;
  const void* w = nullptr;
  void* y = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;  // the limit: algorithms needing more are not considered
};

size_t ConvMeasureOutputBytes(const ConvDescriptors& descriptors);

// Runs every algorithm cuDNN can run for the conv (cudnnFindConvolutionForwardAlgorithmEx) and
// returns those that fit the workspace, fastest first, as the plan records them (op =
// op_index). Needs a device; the handle must be bound to the stream the caller wants the
// measurement on.
StatusOr<std::vector<plan::ConvAlgorithm>> FindConvAlgorithms(
    cudnnHandle_t handle, const ConvDescriptors& descriptors, int op_index, bool allow_tf32,
    const ConvMeasureBuffers& buffers);

// The first of FindConvAlgorithms: the fastest as plain cudnnConvolutionForward.
StatusOr<plan::ConvAlgorithm> MeasureConvAlgorithm(cudnnHandle_t handle,
                                                   const ConvDescriptors& descriptors, int op_index,
                                                   bool allow_tf32,
                                                   const ConvMeasureBuffers& buffers);

// A choice as the plan records it.
plan::ConvAlgorithm ToPlanConvAlgorithm(const ConvAlgorithmChoice& choice, int op_index);

}  // namespace ios
