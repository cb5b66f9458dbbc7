// cuDNN descriptors for ConvTranspose, built from ios's node attributes and types, for the
// kernel (kernels/conv_transpose_cuda.cc) and the descriptor test.
//
// Mapping. ConvTranspose(X, W) is the data gradient of a forward convolution: the forward conv
// takes a tensor dx of ConvTranspose's output channels M to X's C channels with the filter W,
// whose ONNX layout [C, M/group, k...] is exactly cuDNN's forward filter layout [K = C, C/group =
// M/group, k...]. So the kernel calls cudnnConvolutionBackwardData with wDesc = W, dyDesc = X and
// dxDesc = the output (groups through cudnnSetConvolutionGroupCount, cross-correlation as ONNX's
// Conv), then cudnnAddTensor for the bias.
//
// Geometry. Per spatial axis the transposed output is full = s(in - 1) + output_padding +
// (k - 1)d + 1 positions, of which ios's output keeps [pb, full - pe). The pads come from `pads`
// (NOTSET), are 0 (VALID), or split the total full - out of output_shape or of SAME_UPPER/
// SAME_LOWER's in * s as the reference kernel does. cuDNN pads symmetrically: with p = min(pb,
// pe), cuDNN's dx position j is ios's j - (pb - p), and dx gets the extent E = s(in - 1) +
// (k - 1)d + 1 - 2p + r, r = max(0, output_padding + p - pe), the smallest that holds ios's
// output and for which the forward conv of dx gives back `in` positions (which needs r < s).
// When ios's output is not all of dx (asymmetric pads, or output_padding that the end pad eats),
// the kernel computes dx into workspace and copies ios's part out with cudnnTransformTensor.
//
// Refused here (Unsupported naming the node and op): pads that resolve to a negative value (an
// output_shape or SAME output larger than the full transposed output); output_padding beyond
// what one extra stride can hold (r >= s); more than 3 spatial axes; any dim or window
// parameter beyond int32. The kernel's factory also refuses non-float32 tensors and a fused
// activation.
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"
#include "util/status.h"

namespace ios {

// The backward-data problem for one ConvTranspose: the window of the forward conv whose data
// gradient it is, where `full_output` is cuDNN's dx and `crop_begin` indexes dx (a 1-D
// ConvTranspose gains a unit axis, as Conv does), plus that conv's output, cuDNN's dy.
struct ConvTransposeGeometry : CudnnWindowGeometry {
  Dims input;  // X [N, C, spatial...]: cuDNN's dy, padded to rank 4
};

// Resolves the node's pads (see the file comment) for input x, weights w and ios's output y
// (the dims shape inference gave), and plans cuDNN's symmetric pads and the crop.
StatusOr<ConvTransposeGeometry> PlanConvTransposeWindow(const Node& node, const Dims& x,
                                                        const Dims& w, const Dims& y);

struct ConvTransposeDescriptors {
  ConvTransposeGeometry geometry;
  int64_t groups = 1;
  CudnnTensorDescriptor x;  // dy
  CudnnFilterDescriptor w;  // [C, M/group, k...]
  CudnnConvolutionDescriptor conv;
  CudnnTensorDescriptor y_full;       // dx, as cuDNN writes it
  CudnnTensorDescriptor y;            // ios's dense output
  CudnnTensorDescriptor y_crop_view;  // ios's output inside dx (only when cropped)
  CudnnTensorDescriptor bias;         // [1, M, 1, 1]
};

// Reads the node's attributes (pads, strides, dilations, output_padding, output_shape,
// auto_pad, group) and builds every descriptor for float32 tensors, with `math_type` on the
// convolution. The caller checks the dtypes.
StatusOr<ConvTransposeDescriptors> BuildConvTransposeDescriptors(const Node& node, const Dims& x,
                                                                 const Dims& w, const Dims& y,
                                                                 cudnnMathType_t math_type);

// The output dims of the forward convolution these descriptors describe, run on dx
// (cudnnGetConvolutionNdForwardOutputDim(conv, y_full, w)): X's dims when the problem is
// consistent, which cudnnConvolutionBackwardData requires of dyDesc.
StatusOr<Dims> CudnnTransposeForwardDims(const ConvTransposeDescriptors& descriptors);

struct ConvTransposeAlgorithm {
  cudnnConvolutionBwdDataAlgo_t algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  cudnnMathType_t math_type = CUDNN_FMA_MATH;
  size_t workspace_bytes = 0;
};

// cuDNN's heuristic choice (cudnnGetConvolutionBackwardDataAlgorithm_v7): the first algorithm
// it ranks as supported whose workspace (cudnnGetConvolutionBackwardDataWorkspaceSize) fits
// `workspace_limit`. Sets the chosen math type on descriptors.conv (TF32 only when allowed, as
// for Conv: conv_algorithm.h).
StatusOr<ConvTransposeAlgorithm> ChooseConvTransposeAlgorithm(cudnnHandle_t handle,
                                                              const ConvTransposeDescriptors& d,
                                                              bool allow_tf32,
                                                              size_t workspace_limit);

}  // namespace ios
