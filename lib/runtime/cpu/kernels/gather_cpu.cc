// Gather, for any element type and int32 or int64 indices (constant ones checked once, when the
// kernel is made; others on every run). Row-major, each (outer, index) pair copies one contiguous
// block of the data. Channels-last, a 4-D [N, C, H, W] gathered along its channels into
// [N, K, H, W] (the channel shuffle as the CPU lowering writes it, passes/channel_shuffle.h):
// each pixel gathers its K channels, so the tensor stays NHWC between the convs around it. A
// shuffle's indices (channel j * g + i from i * C/g + j) interleave g runs of channels, which
// the loops below do without an index table (4x faster on ShuffleNetV2's, 2 groups).
#include <cstring>
#include <string>
#include <vector>

#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"

namespace ios {
namespace {

// The Gather's axis in [0, rank), or -1 when the attribute is out of range.
int64_t GatherAxis(const Node& node, size_t rank) {
  StatusOr<int64_t> axis = node.attrs.GetInt("axis", 0);
  if (!axis.ok()) return -1;
  const int64_t r = static_cast<int64_t>(rank);
  const int64_t a = axis.value() < 0 ? axis.value() + r : axis.value();
  return a >= 0 && a < r ? a : -1;
}

// Indices as in-range positions along a dimension of `dim`; an error names the bad one.
Status NormalizeIndices(const std::string& label, int64_t dim, std::vector<int64_t>* indices) {
  for (int64_t& index : *indices) {
    if (index < -dim || index >= dim)
      return InvalidInput(label + ": index " + std::to_string(index) +
                          " is out of range for a dimension of " + std::to_string(dim));
    if (index < 0) index += dim;
  }
  return Status::Ok();
}

// The g of a channel shuffle whose indices these are (index j * g + i is i * C/g + j, g >= 2 and
// C = the index count), else 0.
int64_t ShuffleGroups(const std::vector<int64_t>& indices, int64_t channels) {
  const int64_t count = static_cast<int64_t>(indices.size());
  if (count != channels || count < 2 || indices[0] != 0) return 0;
  const int64_t per_group = indices[1];  // C/g: index 1 is i = 1, j = 0
  if (per_group < 1 || count % per_group != 0) return 0;
  const int64_t groups = count / per_group;
  if (groups < 2) return 0;
  for (int64_t j = 0; j < per_group; ++j)
    for (int64_t i = 0; i < groups; ++i)
      if (indices[static_cast<size_t>(j * groups + i)] != i * per_group + j) return 0;
  return groups;
}

// NHWC pixels [begin, end) of 4-byte elements: out[p, k] = in[p, indices[k]].
IOS_VECTOR_CLONES void GatherPixels(const uint32_t* in, uint32_t* out, int64_t begin, int64_t end,
                                    int64_t channels, const int64_t* indices, int64_t count) {
  for (int64_t p = begin; p < end; ++p) {
    const uint32_t* src = in + p * channels;
    uint32_t* dst = out + p * count;
    for (int64_t k = 0; k < count; ++k) dst[k] = src[indices[k]];
  }
}

// The same for a shuffle of 2 groups (ShuffleNetV2's): each pixel interleaves its two halves.
IOS_VECTOR_CLONES void ShufflePixelsOf2(const uint32_t* in, uint32_t* out, int64_t begin,
                                        int64_t end, int64_t half) {
  for (int64_t p = begin; p < end; ++p) {
    const uint32_t* first = in + p * 2 * half;
    const uint32_t* second = first + half;
    uint32_t* dst = out + p * 2 * half;
    for (int64_t j = 0; j < half; ++j) {
      dst[2 * j] = first[j];
      dst[2 * j + 1] = second[j];
    }
  }
}

// And of any number of groups.
void ShufflePixels(const uint32_t* in, uint32_t* out, int64_t begin, int64_t end, int64_t groups,
                   int64_t per_group) {
  const int64_t channels = groups * per_group;
  for (int64_t p = begin; p < end; ++p) {
    const uint32_t* src = in + p * channels;
    uint32_t* dst = out + p * channels;
    for (int64_t j = 0; j < per_group; ++j)
      for (int64_t i = 0; i < groups; ++i) dst[j * groups + i] = src[i * per_group + j];
  }
}

class IndexGatherCpuKernel : public CpuKernel {
 public:
  struct Shape {
    int64_t outer = 1;     // the data's dims before the axis (channels-last: N)
    int64_t axis_dim = 1;  // the data's dim along the axis (channels-last: C)
    int64_t inner = 1;     // the data's dims after the axis (channels-last: H * W)
    int64_t count = 0;     // indices
    size_t elem = 0;       // bytes per element
  };

  IndexGatherCpuKernel(std::string label, Shape shape, bool channels_last, DType index_dtype,
                       std::vector<int64_t> constant_indices, bool constant)
      : label_(std::move(label)),
        shape_(shape),
        channels_last_(channels_last),
        index_dtype_(index_dtype),
        indices_(std::move(constant_indices)),
        constant_(constant),
        shuffle_groups_(channels_last && constant && shape.elem == 4
                            ? ShuffleGroups(indices_, shape.axis_dim)
                            : 0) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    std::vector<int64_t> read;
    const std::vector<int64_t>* indices = &indices_;
    if (!constant_) {
      read.resize(static_cast<size_t>(shape_.count));
      for (int64_t i = 0; i < shape_.count; ++i)
        read[i] = index_dtype_ == DType::kInt64 ? static_cast<const int64_t*>(inputs[1])[i]
                                                : static_cast<const int32_t*>(inputs[1])[i];
      IOS_RETURN_IF_ERROR(NormalizeIndices(label_, shape_.axis_dim, &read));
      indices = &read;
    }
    const uint8_t* in = static_cast<const uint8_t*>(inputs[0]);
    uint8_t* out = static_cast<uint8_t*>(outputs[0]);
    const int64_t moved = shape_.outer * shape_.count * shape_.inner;
    const int team = ThreadsForWork(threads, moved * static_cast<int64_t>(shape_.elem) / 4);
    if (channels_last_) {
      RunChannelsLast(*indices, in, out, team);
    } else {
      RunRowMajor(*indices, in, out, team);
    }
    return Status::Ok();
  }

 private:
  // out[o, k, :] = in[o, indices[k], :], one block of inner elements each.
  void RunRowMajor(const std::vector<int64_t>& indices, const uint8_t* in, uint8_t* out,
                   int team) const {
    const size_t block = static_cast<size_t>(shape_.inner) * shape_.elem;
    const int64_t count = shape_.count;
    const int64_t dim = shape_.axis_dim;
    ParallelFor(shape_.outer * count, team, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t o = row / count;
        const int64_t k = row % count;
        std::memcpy(out + row * block, in + (o * dim + indices[k]) * block, block);
      }
    });
  }

  // NHWC: out[pixel, k] = in[pixel, indices[k]] for each of the N * H * W pixels.
  void RunChannelsLast(const std::vector<int64_t>& indices, const uint8_t* in, uint8_t* out,
                       int team) const {
    const int64_t pixels = shape_.outer * shape_.inner;
    const int64_t count = shape_.count;
    const int64_t channels = shape_.axis_dim;
    if (shape_.elem == 4) {  // float32: the only dtype the layout pass stores channels-last
      const auto* src = reinterpret_cast<const uint32_t*>(in);
      auto* dst = reinterpret_cast<uint32_t*>(out);
      const int64_t groups = shuffle_groups_;
      ParallelFor(pixels, team, [&](int64_t begin, int64_t end) {
        if (groups == 2) {
          ShufflePixelsOf2(src, dst, begin, end, channels / 2);
        } else if (groups > 2) {
          ShufflePixels(src, dst, begin, end, groups, channels / groups);
        } else {
          GatherPixels(src, dst, begin, end, channels, indices.data(), count);
        }
      });
      return;
    }
    const int64_t elem = static_cast<int64_t>(shape_.elem);
    ParallelFor(pixels, team, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p)
        for (int64_t k = 0; k < count; ++k)
          std::memcpy(out + (p * count + k) * elem, in + (p * channels + indices[k]) * elem,
                      static_cast<size_t>(elem));
    });
  }

  std::string label_;
  Shape shape_;
  bool channels_last_;
  DType index_dtype_;
  std::vector<int64_t> indices_;  // normalised; the constant indices only
  bool constant_;
  int64_t shuffle_groups_;  // channels-last float32 with a shuffle's constant indices: its g
};

// Whether a tensor is stored channels-last, or its bytes are the same either way.
bool ChannelsLastBytes(const TensorType& type, Layout layout) {
  return layout == Layout::kChannelsLast || ChannelsLastIsRowMajor(type.dims);
}

}  // namespace

bool GatherTakesLayouts(const CpuKernelContext& context) {
  if (context.node == nullptr || context.input_types.size() != 2 ||
      context.output_types.size() != 1)
    return false;
  const TensorType& data = context.input_types[0];
  const TensorType& out = context.output_types[0];
  return data.dtype == DType::kFloat32 && data.dims.size() == 4 &&
         context.input_types[1].dims.size() == 1 && GatherAxis(*context.node, 4) == 1 &&
         context.input_layout(1) == Layout::kRowMajor &&
         ChannelsLastBytes(data, context.input_layout(0)) &&
         ChannelsLastBytes(out, context.output_layout(0));
}

StatusOr<std::unique_ptr<CpuKernel>> CreateGatherCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (context.input_types.size() != 2 || context.output_types.size() != 1)
    return std::unique_ptr<CpuKernel>();
  const TensorType& data = context.input_types[0];
  const TensorType& index_type = context.input_types[1];
  const int64_t axis = GatherAxis(node, data.dims.size());
  const size_t elem = DTypeSize(data.dtype);
  // Anything else (a bad axis, float indices) is the reference kernel's to report.
  if (elem == 0 || axis < 0 ||
      (index_type.dtype != DType::kInt64 && index_type.dtype != DType::kInt32))
    return std::unique_ptr<CpuKernel>();
  IndexGatherCpuKernel::Shape shape;
  shape.elem = elem;
  shape.axis_dim = data.dims[axis];
  shape.count = NumElements(index_type.dims);
  for (int64_t d = 0; d < axis; ++d) shape.outer *= data.dims[d];
  for (size_t d = axis + 1; d < data.dims.size(); ++d) shape.inner *= data.dims[d];
  Dims out_dims(data.dims.begin(), data.dims.begin() + axis);
  out_dims.insert(out_dims.end(), index_type.dims.begin(), index_type.dims.end());
  out_dims.insert(out_dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  if (out_dims != context.output_types[0].dims)
    return InvalidInput("the planned output " + DimsToString(context.output_types[0].dims) +
                        " is not the gather's " + DimsToString(out_dims));
  const std::string label = "Gather '" + node.name + "'";
  std::vector<int64_t> indices;
  const Tensor* constant = context.constants.size() > 1 ? context.constants[1] : nullptr;
  if (constant != nullptr) {
    indices = constant->ToInt64Vector();
    IOS_RETURN_IF_ERROR(NormalizeIndices(label, shape.axis_dim, &indices));
  }
  // GatherTakesLayouts let a non-row-major tensor through only as the NHWC channel gather.
  const bool channels_last = context.any_non_row_major();
  return std::unique_ptr<CpuKernel>(new IndexGatherCpuKernel(
      label, shape, channels_last, index_type.dtype, std::move(indices), constant != nullptr));
}

}  // namespace ios
