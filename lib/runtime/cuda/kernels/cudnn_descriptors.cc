#include "runtime/cuda/kernels/cudnn_descriptors.h"

#include <algorithm>
#include <limits>

#include "ops/op_util.h"
#include "runtime/cuda/cuda_check.h"

namespace ios {
namespace {

StatusOr<std::vector<int>> ToInts(const Dims& dims, const std::string& what) {
  std::vector<int> out;
  out.reserve(dims.size());
  for (int64_t d : dims) {
    if (!FitsInt(d)) return Unsupported(what + " " + DimsToString(dims) + " exceeds int32");
    out.push_back(static_cast<int>(d));
  }
  return out;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// One spatial axis: ios's window (begin pad, end pad, output count) as cuDNN's symmetric pad and
// the crop of cuDNN's output that is ios's output (see the header).
struct AxisPlan {
  int64_t pad = 0;
  int64_t crop_begin = 0;
  int64_t full_output = 0;
  bool overruns_end_pad = false;  // the last window reaches past ios's end pad (ceil_mode)
};

StatusOr<AxisPlan> PlanAxis(int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                            int64_t pad_begin, int64_t pad_end, int64_t out) {
  const int64_t extent = (kernel - 1) * dilation + 1;
  // The end padding that ios's last window needs.
  const int64_t needed_end = std::max<int64_t>(0, (out - 1) * stride - pad_begin + extent - in);
  const int64_t target = std::max(pad_begin, needed_end);
  AxisPlan plan;
  plan.pad = pad_begin + stride * CeilDiv(target - pad_begin, stride);
  plan.crop_begin = (plan.pad - pad_begin) / stride;
  plan.full_output = (in + 2 * plan.pad - extent) / stride + 1;
  plan.overruns_end_pad = needed_end > pad_end;
  if (out < 1 || plan.full_output < plan.crop_begin + out) {
    return Internal("window plan: input " + std::to_string(in) + ", kernel " +
                    std::to_string(kernel) + ", stride " + std::to_string(stride) + ", pads " +
                    std::to_string(pad_begin) + "/" + std::to_string(pad_end) + " cannot give " +
                    std::to_string(out) + " outputs");
  }
  return plan;
}

// Fills the geometry from per-axis window parameters (resolved pads in ONNX order).
StatusOr<CudnnWindowGeometry> PlanWindow(const Dims& x, const Dims& y, int64_t out_channels,
                                         const WindowParams& params, std::vector<bool>* overruns) {
  const size_t n = params.kernel.size();
  if (n == 0 || n > kCudnnMaxSpatialAxes) {
    return Unsupported(std::to_string(n) + " spatial axes (cuDNN takes 1 to 3 here)");
  }
  if (x.size() != n + 2 || y.size() != n + 2) {
    return Internal("window plan: input " + DimsToString(x) + " and output " + DimsToString(y) +
                    " do not have " + std::to_string(n) + " spatial axes");
  }
  CudnnWindowGeometry g;
  Dims full = {y[0], out_channels};
  for (size_t i = 0; i < n; ++i) {
    IOS_ASSIGN_OR_RETURN(
        AxisPlan axis, PlanAxis(x[2 + i], params.kernel[i], params.strides[i], params.dilations[i],
                                params.pads[i], params.pads[i + n], y[2 + i]));
    for (int64_t v : {params.kernel[i], params.strides[i], params.dilations[i], axis.pad}) {
      if (!FitsInt(v)) return Unsupported("a window parameter exceeds int32");
    }
    g.kernel.push_back(static_cast<int>(params.kernel[i]));
    g.pads.push_back(static_cast<int>(axis.pad));
    g.strides.push_back(static_cast<int>(params.strides[i]));
    g.dilations.push_back(static_cast<int>(params.dilations[i]));
    g.crop_begin.push_back(axis.crop_begin);
    full.push_back(axis.full_output);
    if (overruns != nullptr) overruns->push_back(axis.overruns_end_pad);
  }
  if (n == 1) AppendUnitWindowAxis(&g);  // a 1-D window gains a unit axis (see the header)
  g.full_output = PadToCudnnRank(full);
  g.output = PadToCudnnRank(y);
  return g;
}

}  // namespace

StatusOr<CudnnOutputDescriptors> MakeOutputDescriptors(const Dims& full_output, const Dims& output,
                                                       int64_t y_batch_stride) {
  CudnnOutputDescriptors d;
  const bool cropped = full_output != output;
  IOS_ASSIGN_OR_RETURN(d.y_full, cropped ? MakeTensorDescriptor(full_output)
                                         : MakeBatchStridedDescriptor(full_output, y_batch_stride));
  IOS_ASSIGN_OR_RETURN(d.y, MakeBatchStridedDescriptor(output, y_batch_stride));
  if (cropped) {
    IOS_ASSIGN_OR_RETURN(d.y_crop_view, MakeTensorDescriptor(output, DenseStrides(full_output)));
  }
  return d;
}

StatusOr<CudnnFilterDescriptor> MakeFilterDescriptor(const Dims& w, const std::string& label) {
  IOS_ASSIGN_OR_RETURN(std::vector<int> filter, ToInts(PadToCudnnRank(w), label + "weights"));
  IOS_ASSIGN_OR_RETURN(CudnnFilterDescriptor descriptor, CudnnFilterDescriptor::Make());
  IOS_CUDNN_RETURN_IF_ERROR(
      cudnnSetFilterNdDescriptor(descriptor.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                 static_cast<int>(filter.size()), filter.data()));
  return descriptor;
}

StatusOr<CudnnConvolutionDescriptor> MakeConvolutionDescriptor(const std::vector<int>& pads,
                                                               const std::vector<int>& strides,
                                                               const std::vector<int>& dilations,
                                                               int64_t groups,
                                                               cudnnMathType_t math_type) {
  if (!FitsInt(groups) || groups < 1)
    return Unsupported("group " + std::to_string(groups) + " out of range");
  IOS_ASSIGN_OR_RETURN(CudnnConvolutionDescriptor conv, CudnnConvolutionDescriptor::Make());
  // ONNX Conv is a cross-correlation (no kernel flip); float32 accumulation.
  IOS_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionNdDescriptor(
      conv.get(), static_cast<int>(pads.size()), pads.data(), strides.data(), dilations.data(),
      CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  IOS_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionGroupCount(conv.get(), static_cast<int>(groups)));
  IOS_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionMathType(conv.get(), math_type));
  return conv;
}

bool FitsInt(int64_t value) {
  return value >= std::numeric_limits<int>::min() && value <= std::numeric_limits<int>::max();
}

Status WithLabel(const std::string& label, Status status) {
  if (status.ok()) return status;
  return Status(status.code(), label + status.message());
}

std::string CudnnNodeLabel(const Node& node) {
  return "node '" + node.name + "' (" + node.op_type + "): ";
}

Dims PadToCudnnRank(const Dims& dims) {
  Dims out = dims;
  while (out.size() < 4) out.push_back(1);
  return out;
}

StatusOr<CudnnTensorDescriptor> MakeTensorDescriptor(const Dims& dims, const Dims& strides) {
  if (dims.size() != strides.size() || dims.empty()) {
    return Internal("tensor descriptor: dims " + DimsToString(dims) + " and strides " +
                    DimsToString(strides) + " differ in rank");
  }
  // Trailing unit dims with stride 1 keep every element where it was.
  const Dims padded_dims = PadToCudnnRank(dims);
  Dims padded_strides = strides;
  while (padded_strides.size() < padded_dims.size()) padded_strides.push_back(1);
  if (padded_dims.size() > CUDNN_DIM_MAX) {
    return Unsupported("tensor of rank " + std::to_string(dims.size()) + " exceeds cuDNN's " +
                       std::to_string(CUDNN_DIM_MAX));
  }
  IOS_ASSIGN_OR_RETURN(std::vector<int> d, ToInts(padded_dims, "tensor dims"));
  IOS_ASSIGN_OR_RETURN(std::vector<int> s, ToInts(padded_strides, "tensor strides"));
  IOS_ASSIGN_OR_RETURN(CudnnTensorDescriptor descriptor, CudnnTensorDescriptor::Make());
  IOS_CUDNN_RETURN_IF_ERROR(cudnnSetTensorNdDescriptor(
      descriptor.get(), CUDNN_DATA_FLOAT, static_cast<int>(d.size()), d.data(), s.data()));
  return descriptor;
}

StatusOr<CudnnTensorDescriptor> MakeTensorDescriptor(const Dims& dims) {
  return MakeTensorDescriptor(dims, DenseStrides(dims));
}

StatusOr<CudnnTensorDescriptor> MakeBatchStridedDescriptor(const Dims& dims, int64_t batch_stride) {
  Dims strides = DenseStrides(dims);
  if (batch_stride != 0) {
    if (dims.empty() || batch_stride < strides[0]) {
      return Internal("tensor " + DimsToString(dims) + " cannot have a batch stride of " +
                      std::to_string(batch_stride) + " elements (its items would overlap)");
    }
    strides[0] = batch_stride;
  }
  return MakeTensorDescriptor(dims, strides);
}

StatusOr<CudnnTensorDescriptor> MakeChannelSliceDescriptor(const Dims& dims,
                                                           int64_t total_channels) {
  if (dims.size() < 2 || total_channels < dims[1]) {
    return Internal("channel slice " + DimsToString(dims) + " of a buffer with " +
                    std::to_string(total_channels) + " channels");
  }
  Dims buffer = dims;
  buffer[1] = total_channels;
  return MakeTensorDescriptor(dims, DenseStrides(buffer));
}

int64_t ChannelSliceOffset(const Dims& dims, int64_t first_channel) {
  int64_t spatial = 1;
  for (size_t i = 2; i < dims.size(); ++i) spatial *= dims[i];
  return first_channel * spatial;
}

StatusOr<TensorDescriptorInfo> ReadTensorDescriptor(cudnnTensorDescriptor_t descriptor) {
  cudnnDataType_t dtype;
  int rank = 0;
  int dims[CUDNN_DIM_MAX];
  int strides[CUDNN_DIM_MAX];
  IOS_CUDNN_RETURN_IF_ERROR(
      cudnnGetTensorNdDescriptor(descriptor, CUDNN_DIM_MAX, &dtype, &rank, dims, strides));
  TensorDescriptorInfo info;
  for (int i = 0; i < rank && i < CUDNN_DIM_MAX; ++i) {
    info.dims.push_back(dims[i]);
    info.strides.push_back(strides[i]);
  }
  return info;
}

int64_t CudnnWindowGeometry::CropOffset() const {
  const Dims strides = DenseStrides(full_output);
  int64_t offset = 0;
  for (size_t i = 0; i < crop_begin.size() && 2 + i < strides.size(); ++i)
    offset += crop_begin[i] * strides[2 + i];
  return offset;
}

void AppendUnitWindowAxis(CudnnWindowGeometry* g) {
  g->kernel.push_back(1);
  g->pads.push_back(0);
  g->strides.push_back(1);
  g->dilations.push_back(1);
  g->crop_begin.push_back(0);
}

StatusOr<CudnnWindowGeometry> PlanConvWindow(const Node& node, const Dims& x, const Dims& w,
                                             const Dims& y) {
  const std::string label = CudnnNodeLabel(node);
  if (x.size() < 3 || w.size() != x.size() || y.size() != x.size()) {
    return Internal(label + "input " + DimsToString(x) + ", weights " + DimsToString(w) +
                    " and output " + DimsToString(y) + " do not fit a convolution");
  }
  const std::vector<int64_t> kernel(w.begin() + 2, w.end());
  auto params = ReadWindowParams(node, kernel);
  if (!params.ok()) return WithLabel(label, params.status());
  // Resolves auto_pad into explicit pads, exactly as shape inference did.
  auto spatial = WindowOutputDims(Dims(x.begin() + 2, x.end()), false, &*params);
  if (!spatial.ok()) return WithLabel(label, spatial.status());
  if (*spatial != Dims(y.begin() + 2, y.end())) {
    return Internal(label + "output " + DimsToString(y) + " differs from the window's " +
                    DimsToString(*spatial));
  }
  auto geometry = PlanWindow(x, y, w[0], *params, nullptr);
  if (!geometry.ok()) return WithLabel(label, geometry.status());
  return geometry;
}

StatusOr<CudnnWindowGeometry> PlanPoolWindow(const Node& node, const Dims& x, const Dims& y) {
  const std::string label = CudnnNodeLabel(node);
  if (x.size() < 3 || y.size() != x.size()) {
    return Internal(label + "input " + DimsToString(x) + " and output " + DimsToString(y) +
                    " do not fit a pooling");
  }
  const bool global = node.op_type == "GlobalAveragePool" || node.op_type == "GlobalMaxPool";
  WindowParams params;
  bool ceil_mode = false;
  bool count_include_pad = false;
  if (global) {
    const size_t n = x.size() - 2;
    params.kernel.assign(x.begin() + 2, x.end());
    params.strides.assign(n, 1);
    params.dilations.assign(n, 1);
    params.pads.assign(2 * n, 0);
  } else {
    auto kernel = node.attrs.GetInts("kernel_shape", {});
    if (!kernel.ok()) return WithLabel(label, kernel.status());
    auto read = ReadWindowParams(node, *kernel);
    if (!read.ok()) return WithLabel(label, read.status());
    params = *read;
    auto ceil = node.attrs.GetInt("ceil_mode", 0);
    auto include = node.attrs.GetInt("count_include_pad", 0);
    if (!ceil.ok()) return WithLabel(label, ceil.status());
    if (!include.ok()) return WithLabel(label, include.status());
    ceil_mode = *ceil != 0;
    count_include_pad = node.op_type == "AveragePool" && *include != 0;
    for (int64_t d : params.dilations) {
      if (d != 1) {
        return Unsupported(label + "dilations " + DimsToString(params.dilations) +
                           ": cuDNN pooling has no dilation");
      }
    }
    auto spatial = WindowOutputDims(Dims(x.begin() + 2, x.end()), ceil_mode, &params);
    if (!spatial.ok()) return WithLabel(label, spatial.status());
    if (*spatial != Dims(y.begin() + 2, y.end())) {
      return Internal(label + "output " + DimsToString(y) + " differs from the window's " +
                      DimsToString(*spatial));
    }
  }
  std::vector<bool> overruns;
  auto geometry = PlanWindow(x, y, x[1], params, &overruns);
  if (!geometry.ok()) return WithLabel(label, geometry.status());
  if (count_include_pad && std::find(overruns.begin(), overruns.end(), true) != overruns.end()) {
    return Unsupported(label +
                       "count_include_pad=1 with a ceil_mode window past the end padding: "
                       "cuDNN would count the whole window where onnxruntime cuts it");
  }
  return geometry;
}

StatusOr<ConvDescriptors> BuildConvDescriptors(const Node& node, const Dims& x, const Dims& w,
                                               const Dims& y, cudnnMathType_t math_type,
                                               const WindowBatchStrides& batch_strides) {
  const std::string label = CudnnNodeLabel(node);
  ConvDescriptors d;
  IOS_ASSIGN_OR_RETURN(d.geometry, PlanConvWindow(node, x, w, y));
  auto group = node.attrs.GetInt("group", 1);
  if (!group.ok()) return WithLabel(label, group.status());
  d.groups = *group;
  const CudnnWindowGeometry& g = d.geometry;
  d.batch_strides = batch_strides;
  IOS_ASSIGN_OR_RETURN(d.x, MakeBatchStridedDescriptor(PadToCudnnRank(x), batch_strides.x));
  IOS_ASSIGN_OR_RETURN(d.w, MakeFilterDescriptor(w, label));
  auto conv = MakeConvolutionDescriptor(g.pads, g.strides, g.dilations, d.groups, math_type);
  if (!conv.ok()) return WithLabel(label, conv.status());
  d.conv = std::move(conv).value();
  IOS_ASSIGN_OR_RETURN(CudnnOutputDescriptors out,
                       MakeOutputDescriptors(g.full_output, g.output, batch_strides.y));
  d.y_full = std::move(out.y_full);
  d.y = std::move(out.y);
  d.y_crop_view = std::move(out.y_crop_view);
  Dims bias_dims(g.output.size(), 1);
  bias_dims[1] = g.output[1];
  IOS_ASSIGN_OR_RETURN(d.bias, MakeTensorDescriptor(bias_dims));
  return d;
}

StatusOr<PoolDescriptors> BuildPoolDescriptors(const Node& node, const Dims& x, const Dims& y,
                                               const WindowBatchStrides& batch_strides) {
  const std::string label = CudnnNodeLabel(node);
  PoolDescriptors d;
  IOS_ASSIGN_OR_RETURN(d.geometry, PlanPoolWindow(node, x, y));
  if (node.op_type == "MaxPool" || node.op_type == "GlobalMaxPool") {
    d.mode = CUDNN_POOLING_MAX;
  } else if (node.op_type == "AveragePool") {
    auto include = node.attrs.GetInt("count_include_pad", 0);
    if (!include.ok()) return WithLabel(label, include.status());
    d.mode = *include != 0 ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                           : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
  } else if (node.op_type == "GlobalAveragePool") {
    d.mode = CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;  // no padding either way
  } else {
    return Internal(label + "not a pooling op");
  }
  const CudnnWindowGeometry& g = d.geometry;
  d.batch_strides = batch_strides;
  IOS_ASSIGN_OR_RETURN(d.x, MakeBatchStridedDescriptor(PadToCudnnRank(x), batch_strides.x));
  IOS_ASSIGN_OR_RETURN(d.pool, CudnnPoolingDescriptor::Make());
  IOS_CUDNN_RETURN_IF_ERROR(cudnnSetPoolingNdDescriptor(
      d.pool.get(), d.mode, CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(g.kernel.size()),
      g.kernel.data(), g.pads.data(), g.strides.data()));
  IOS_ASSIGN_OR_RETURN(CudnnOutputDescriptors out,
                       MakeOutputDescriptors(g.full_output, g.output, batch_strides.y));
  d.y_full = std::move(out.y_full);
  d.y = std::move(out.y);
  d.y_crop_view = std::move(out.y_crop_view);
  return d;
}

StatusOr<Dims> CudnnConvOutputDims(const ConvDescriptors& descriptors, size_t rank) {
  std::vector<int> out(rank);
  IOS_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionNdForwardOutputDim(
      descriptors.conv.get(), descriptors.x.get(), descriptors.w.get(), static_cast<int>(rank),
      out.data()));
  return Dims(out.begin(), out.end());
}

StatusOr<Dims> CudnnPoolOutputDims(const PoolDescriptors& descriptors, size_t rank) {
  std::vector<int> out(rank);
  IOS_CUDNN_RETURN_IF_ERROR(cudnnGetPoolingNdForwardOutputDim(
      descriptors.pool.get(), descriptors.x.get(), static_cast<int>(rank), out.data()));
  return Dims(out.begin(), out.end());
}

}  // namespace ios
