// cuDNN descriptors built from ios's own node attributes and types: one place that the conv and
// pool kernels, the algorithm measurement and the descriptor agreement test all use.
//
// Geometry. cuDNN pads every spatial axis symmetrically and has no ceil_mode. ios resolves
// auto_pad, asymmetric pads and ceil_mode into one window per axis: begin pad `pb` and the
// output count ios inferred. cuDNN gets the symmetric pad p = pb + s * ceil((e - pb) / s), where
// e = max(pb, the end pad the last window needs), so that output o' of cuDNN starts at input
// o' * s - p, which is ios's output o = o' - (p - pb) / s. cuDNN's output is then a superset of
// ios's: ios's output is a crop of it (crop_begin per axis), that a kernel computes into
// workspace and copies out with cudnnTransformTensor. Symmetric pads without ceil overrun need
// no crop. The extra padding only ever lies under cropped-away outputs, except the end overrun
// of a ceil_mode window, which is harmless for convs (none have ceil_mode), max pooling
// (padding never wins) and average pooling that excludes padding; average pooling that counts
// padding would divide by the whole window where onnxruntime cuts it at the end padding, so
// that one case is refused.
//
// Refused (Unsupported naming the node and op): non-float32 tensors; pools with dilations
// other than 1 (cuDNN pooling has none); AveragePool with count_include_pad=1 whose ceil_mode
// window overruns the end padding; more than 3 spatial axes (cuDNN's Nd limit); any dim or
// window parameter beyond int32.
//
// Rank. cuDNN's Nd calls want at least 4 dims: a 1-D conv or pool gains a trailing spatial axis
// of size 1 (kernel 1, stride 1, no pad), which keeps the memory layout.
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "kernels/math/index_math.h"  // DenseStrides
#include "util/status.h"

namespace ios {

// cuDNN's Nd convolutions and pooling take 2-D and 3-D windows.
constexpr size_t kCudnnMaxSpatialAxes = 3;

// One owned cuDNN descriptor (created by Make, destroyed with the object).
template <typename Handle, cudnnStatus_t (*CreateFn)(Handle*), cudnnStatus_t (*DestroyFn)(Handle)>
class CudnnDescriptor {
 public:
  CudnnDescriptor() = default;
  ~CudnnDescriptor() { Reset(); }
  CudnnDescriptor(CudnnDescriptor&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)) {}
  CudnnDescriptor& operator=(CudnnDescriptor&& other) noexcept {
    if (this != &other) {
      Reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;

  static StatusOr<CudnnDescriptor> Make() {
    CudnnDescriptor descriptor;
    const cudnnStatus_t status = CreateFn(&descriptor.handle_);
    if (status != CUDNN_STATUS_SUCCESS) {
      descriptor.handle_ = nullptr;
      return Internal(std::string("creating a cuDNN descriptor failed: ") +
                      cudnnGetErrorString(status));
    }
    return descriptor;
  }
  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

 private:
  void Reset() {
    // A destroy failure cannot be reported from a destructor; the handle is gone either way.
    if (handle_ != nullptr) (void)DestroyFn(handle_);
    handle_ = nullptr;
  }
  Handle handle_ = nullptr;
};

using CudnnTensorDescriptor = CudnnDescriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor,
                                              cudnnDestroyTensorDescriptor>;
using CudnnFilterDescriptor = CudnnDescriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor,
                                              cudnnDestroyFilterDescriptor>;
using CudnnConvolutionDescriptor =
    CudnnDescriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                    cudnnDestroyConvolutionDescriptor>;
using CudnnPoolingDescriptor =
    CudnnDescriptor<cudnnPoolingDescriptor_t, cudnnCreatePoolingDescriptor,
                    cudnnDestroyPoolingDescriptor>;
using CudnnActivationDescriptor =
    CudnnDescriptor<cudnnActivationDescriptor_t, cudnnCreateActivationDescriptor,
                    cudnnDestroyActivationDescriptor>;

// ---- Tensors
// -------------------------------------------------------------------------------------

// Dims with trailing 1s appended up to rank 4 (cuDNN's Nd minimum).
Dims PadToCudnnRank(const Dims& dims);

// A float32 tensor with explicit strides (both padded to rank 4 the same way).
StatusOr<CudnnTensorDescriptor> MakeTensorDescriptor(const Dims& dims, const Dims& strides);
// A dense float32 tensor.
StatusOr<CudnnTensorDescriptor> MakeTensorDescriptor(const Dims& dims);
// A dense float32 tensor, except that batch items lie `batch_stride` elements apart when it is
// not 0 (a strided view, plan/tensor_views.h).
StatusOr<CudnnTensorDescriptor> MakeBatchStridedDescriptor(const Dims& dims, int64_t batch_stride);
// A tensor [N, c, spatial...] that is the channel range [c0, c0 + c) of a dense buffer
// [N, total_channels, spatial...]: strides {total_channels * S, S, ..., 1} (S = spatial
// product). The caller offsets the pointer by ChannelSliceOffset(dims, c0) elements.
StatusOr<CudnnTensorDescriptor> MakeChannelSliceDescriptor(const Dims& dims,
                                                           int64_t total_channels);
int64_t ChannelSliceOffset(const Dims& dims, int64_t first_channel);

// What a conv-like op writes: `y_full` (cuDNN's output), `y` (ios's, with the batch stride of a
// strided view when `y_batch_stride` is not 0) and, when they differ, `y_crop_view` (ios's output
// inside cuDNN's dense one); y_full is y itself when nothing is cropped, else dense workspace.
struct CudnnOutputDescriptors {
  CudnnTensorDescriptor y_full;
  CudnnTensorDescriptor y;
  CudnnTensorDescriptor y_crop_view;
};
StatusOr<CudnnOutputDescriptors> MakeOutputDescriptors(const Dims& full_output, const Dims& output,
                                                       int64_t y_batch_stride = 0);

// A float32 filter of ONNX's weight dims (padded to rank 4); `label` prefixes errors.
StatusOr<CudnnFilterDescriptor> MakeFilterDescriptor(const Dims& w, const std::string& label);
// A float32 cross-correlation (ONNX's Conv, no kernel flip) with these per-axis parameters,
// `groups` and `math_type`.
StatusOr<CudnnConvolutionDescriptor> MakeConvolutionDescriptor(const std::vector<int>& pads,
                                                               const std::vector<int>& strides,
                                                               const std::vector<int>& dilations,
                                                               int64_t groups,
                                                               cudnnMathType_t math_type);

// True when `value` fits cuDNN's int parameters.
bool FitsInt(int64_t value);
// `status` with `label` ("node 'x' (Op): ") before its message.
Status WithLabel(const std::string& label, Status status);

// The dims and strides a tensor descriptor holds (cudnnGetTensorNdDescriptor).
struct TensorDescriptorInfo {
  Dims dims;
  Dims strides;
};
StatusOr<TensorDescriptorInfo> ReadTensorDescriptor(cudnnTensorDescriptor_t descriptor);

// ---- Window geometry
// -----------------------------------------------------------------------------

// One conv or pool window over the spatial axes, in the form cuDNN takes (see the file comment).
// Every vector has one entry per spatial axis after padding to rank 4.
struct CudnnWindowGeometry {
  std::vector<int> kernel;
  std::vector<int> pads;  // symmetric: the same before and after
  std::vector<int> strides;
  std::vector<int> dilations;
  Dims full_output;                 // [N, C, spatial...] as cuDNN computes it
  Dims output;                      // ios's output, padded to rank 4 like full_output
  std::vector<int64_t> crop_begin;  // per spatial axis: cuDNN's index of ios's first output
  bool cropped() const { return full_output != output; }
  // Element offset of ios's first output inside the dense full output.
  int64_t CropOffset() const;
};

// Adds a spatial axis of kernel 1, stride 1, no pad and no crop: how a 1-D window reaches
// cuDNN's rank 4 without moving any element.
void AppendUnitWindowAxis(CudnnWindowGeometry* g);

// The window of a Conv node with input dims x, weights w and ios's output y.
StatusOr<CudnnWindowGeometry> PlanConvWindow(const Node& node, const Dims& x, const Dims& w,
                                             const Dims& y);
// The window of a MaxPool, AveragePool, GlobalMaxPool or GlobalAveragePool node.
StatusOr<CudnnWindowGeometry> PlanPoolWindow(const Node& node, const Dims& x, const Dims& y);

// ---- Bundles
// -------------------------------------------------------------------------------------

// The batch strides, in elements, of a conv's or pool's X and Y when they are strided views
// (plan/tensor_views.h): channel slices of a wider tensor. 0: dense.
struct WindowBatchStrides {
  int64_t x = 0;
  int64_t y = 0;
};

// Everything a Conv needs. `y_full` is what cuDNN writes; when the geometry is cropped,
// `y_crop_view` describes ios's output inside it (the full output's strides) and `y` the
// output buffer, else y_full and y describe the same tensor. x and y carry the batch strides.
struct ConvDescriptors {
  CudnnWindowGeometry geometry;
  int64_t groups = 1;
  WindowBatchStrides batch_strides;
  CudnnTensorDescriptor x;
  CudnnFilterDescriptor w;
  CudnnConvolutionDescriptor conv;
  CudnnTensorDescriptor y_full;
  CudnnTensorDescriptor y;
  CudnnTensorDescriptor y_crop_view;  // only when cropped
  CudnnTensorDescriptor bias;         // [1, M, 1, 1]
};

// Checks float32, reads the node's attributes (pads, strides, dilations, auto_pad, group) and
// builds every descriptor, with `math_type` on the convolution.
StatusOr<ConvDescriptors> BuildConvDescriptors(const Node& node, const Dims& x, const Dims& w,
                                               const Dims& y, cudnnMathType_t math_type,
                                               const WindowBatchStrides& batch_strides = {});

struct PoolDescriptors {
  CudnnWindowGeometry geometry;
  WindowBatchStrides batch_strides;
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  CudnnTensorDescriptor x;
  CudnnPoolingDescriptor pool;
  CudnnTensorDescriptor y_full;
  CudnnTensorDescriptor y;
  CudnnTensorDescriptor y_crop_view;  // only when cropped
};

StatusOr<PoolDescriptors> BuildPoolDescriptors(const Node& node, const Dims& x, const Dims& y,
                                               const WindowBatchStrides& batch_strides = {});

// What cuDNN computes as the output dims for these descriptors
// (cudnnGetConvolutionNdForwardOutputDim / cudnnGetPoolingNdForwardOutputDim).
StatusOr<Dims> CudnnConvOutputDims(const ConvDescriptors& descriptors, size_t rank);
StatusOr<Dims> CudnnPoolOutputDims(const PoolDescriptors& descriptors, size_t rank);

// "node 'name' (Op): " for messages.
std::string CudnnNodeLabel(const Node& node);

}  // namespace ios
