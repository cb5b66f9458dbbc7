#include "runtime/cuda/kernels/conv_transpose_descriptors.h"

#include <algorithm>
#include <string>

#include "ops/conv_transpose_params.h"
#include "runtime/cuda/cuda_check.h"

namespace ios {
namespace {

// One spatial axis of the problem (see the header).
struct TransposeAxis {
  int64_t pad = 0;
  int64_t full_output = 0;
  int64_t crop_begin = 0;
};

}  // namespace

StatusOr<ConvTransposeGeometry> PlanConvTransposeWindow(const Node& node, const Dims& x,
                                                        const Dims& w, const Dims& y) {
  const std::string label = CudnnNodeLabel(node);
  if (x.size() < 3 || w.size() != x.size() || y.size() != x.size()) {
    return Internal(label + "input " + DimsToString(x) + ", weights " + DimsToString(w) +
                    " and output " + DimsToString(y) + " do not fit a transposed convolution");
  }
  const size_t n = x.size() - 2;
  if (n > kCudnnMaxSpatialAxes) {
    return Unsupported(label + std::to_string(n) + " spatial axes (cuDNN takes 1 to 3 here)");
  }
  // The pads, sizes and their checks: ops/conv_transpose_params.h, as for every backend.
  auto params = ParseConvTranspose(node, x, w);
  if (!params.ok()) return WithLabel(label, params.status());
  if (params->out_dims != y) {
    return Internal(label + "output " + DimsToString(y) + " differs from the window's " +
                    DimsToString(params->out_dims));
  }

  ConvTransposeGeometry g;
  g.input = PadToCudnnRank(x);
  Dims full = {y[0], y[1]};
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = x[2 + i];
    const int64_t k = params->kernel[i];
    const int64_t s = params->strides[i];
    const int64_t d = params->dilations[i];
    const int64_t extent = (k - 1) * d + 1;
    const int64_t pad_begin = params->pads_begin[i];
    const int64_t pad_end = params->pads_end[i];
    const int64_t out = y[2 + i];
    if (pad_begin < 0 || pad_end < 0) {
      return Unsupported(label + "an output of " + std::to_string(out) + " on spatial axis " +
                         std::to_string(i) + ", larger than the " +
                         std::to_string(params->full[i]) +
                         " positions the transposed convolution computes (negative pads)");
    }
    TransposeAxis axis;
    axis.pad = std::min(pad_begin, pad_end);
    const int64_t extra = std::max<int64_t>(0, params->output_padding[i] + axis.pad - pad_end);
    if (extra >= s) {
      return Unsupported(label + "output_padding " + std::to_string(params->output_padding[i]) +
                         " on spatial axis " + std::to_string(i) + " with stride " +
                         std::to_string(s) + " and pads " + std::to_string(pad_begin) + "/" +
                         std::to_string(pad_end) +
                         ": cuDNN's forward convolution of the output would not give back the "
                         "input size");
    }
    axis.full_output = s * (in - 1) + extent - 2 * axis.pad + extra;
    axis.crop_begin = pad_begin - axis.pad;
    if (axis.crop_begin + out > axis.full_output) {
      return Internal(label + "transposed window plan overruns cuDNN's output on spatial axis " +
                      std::to_string(i));
    }
    for (int64_t v : {k, s, d, axis.pad}) {
      if (!FitsInt(v)) return Unsupported(label + "a window parameter exceeds int32");
    }
    g.kernel.push_back(static_cast<int>(k));
    g.pads.push_back(static_cast<int>(axis.pad));
    g.strides.push_back(static_cast<int>(s));
    g.dilations.push_back(static_cast<int>(d));
    g.crop_begin.push_back(axis.crop_begin);
    full.push_back(axis.full_output);
  }
  if (n == 1) AppendUnitWindowAxis(&g);  // cuDNN's Nd calls want rank 4 (cudnn_descriptors.h)
  g.full_output = PadToCudnnRank(full);
  g.output = PadToCudnnRank(y);
  return g;
}

StatusOr<ConvTransposeDescriptors> BuildConvTransposeDescriptors(const Node& node, const Dims& x,
                                                                 const Dims& w, const Dims& y,
                                                                 cudnnMathType_t math_type) {
  const std::string label = CudnnNodeLabel(node);
  ConvTransposeDescriptors d;
  IOS_ASSIGN_OR_RETURN(d.geometry, PlanConvTransposeWindow(node, x, w, y));
  auto group = node.attrs.GetInt("group", 1);
  if (!group.ok()) return WithLabel(label, group.status());
  d.groups = *group;
  if (!FitsInt(d.groups) || d.groups < 1) return Unsupported(label + "group out of range");
  if (x[1] != w[0] || x[1] % d.groups != 0 || y[1] != w[1] * d.groups) {
    return Internal(label + "input " + DimsToString(x) + ", weights " + DimsToString(w) +
                    ", output " + DimsToString(y) + " and group " + std::to_string(d.groups) +
                    " do not match");
  }
  const ConvTransposeGeometry& g = d.geometry;
  for (const Dims* dims : {&g.input, &g.full_output}) {
    for (int64_t v : *dims) {
      if (!FitsInt(v))
        return Unsupported(label + "tensor " + DimsToString(*dims) + " exceeds int32");
    }
  }
  IOS_ASSIGN_OR_RETURN(d.x, MakeTensorDescriptor(g.input));
  // The forward filter layout [K, C/group, k...] with K = X's channels, C = the output's: ONNX's
  // ConvTranspose weights as they are. ConvTranspose is the data gradient of that conv.
  IOS_ASSIGN_OR_RETURN(d.w, MakeFilterDescriptor(w, label));
  auto conv = MakeConvolutionDescriptor(g.pads, g.strides, g.dilations, d.groups, math_type);
  if (!conv.ok()) return WithLabel(label, conv.status());
  d.conv = std::move(conv).value();
  IOS_ASSIGN_OR_RETURN(CudnnOutputDescriptors out, MakeOutputDescriptors(g.full_output, g.output));
  d.y_full = std::move(out.y_full);
  d.y = std::move(out.y);
  d.y_crop_view = std::move(out.y_crop_view);
  Dims bias_dims(g.output.size(), 1);
  bias_dims[1] = g.output[1];
  IOS_ASSIGN_OR_RETURN(d.bias, MakeTensorDescriptor(bias_dims));
  return d;
}

StatusOr<Dims> CudnnTransposeForwardDims(const ConvTransposeDescriptors& descriptors) {
  const size_t rank = descriptors.geometry.full_output.size();
  std::vector<int> out(rank);
  IOS_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionNdForwardOutputDim(
      descriptors.conv.get(), descriptors.y_full.get(), descriptors.w.get(), static_cast<int>(rank),
      out.data()));
  return Dims(out.begin(), out.end());
}

StatusOr<ConvTransposeAlgorithm> ChooseConvTransposeAlgorithm(cudnnHandle_t handle,
                                                              const ConvTransposeDescriptors& d,
                                                              bool allow_tf32,
                                                              size_t workspace_limit) {
  if (handle == nullptr) return Internal("choosing a ConvTranspose algorithm needs a cuDNN handle");
  const cudnnMathType_t requested = allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  IOS_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionMathType(d.conv.get(), requested));
  cudnnConvolutionBwdDataAlgoPerf_t perfs[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  int returned = 0;
  IOS_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardDataAlgorithm_v7(
      handle, d.w.get(), d.x.get(), d.conv.get(), d.y_full.get(),
      CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned, perfs));
  for (int i = 0; i < returned && i < CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT; ++i) {
    if (perfs[i].status != CUDNN_STATUS_SUCCESS) continue;
    ConvTransposeAlgorithm choice;
    choice.algo = perfs[i].algo;
    // As for Conv (conv_algorithm.h): TF32 only when allowed, never a conversion to fp16.
    choice.math_type = !allow_tf32 ? CUDNN_FMA_MATH
                       : perfs[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION
                           ? CUDNN_DEFAULT_MATH
                           : perfs[i].mathType;
    IOS_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionMathType(d.conv.get(), choice.math_type));
    IOS_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardDataWorkspaceSize(
        handle, d.w.get(), d.x.get(), d.conv.get(), d.y_full.get(), choice.algo,
        &choice.workspace_bytes));
    if (choice.workspace_bytes > workspace_limit) continue;
    return choice;
  }
  return Unsupported(
      "cuDNN's heuristics offer no backward-data algorithm for this transposed "
      "convolution within " +
      std::to_string(workspace_limit) + " bytes of workspace");
}

}  // namespace ios
