// Reference pooling: MaxPool (with optional Indices), AveragePool, GlobalAveragePool and
// GlobalMaxPool, over any number of spatial dimensions.
#include <limits>

#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"

namespace ios {
namespace {

struct PoolSetup {
  int64_t batch = 0;
  int64_t channels = 0;
  Dims in_spatial;
  WindowGeometry geo;
  Dims out_dims;
};

// Reads kernel_shape, ceil_mode and the window attributes for MaxPool/AveragePool.
StatusOr<PoolSetup> SetUpPool(const Node& node, const Tensor& x) {
  const std::string label = NodeLabel(node);
  if (x.rank() < 3)
    return InvalidInput(label + "input must have rank >= 3 (N, C, spatial...), has " +
                        DimsToString(x.dims()));
  PoolSetup s;
  s.batch = x.dims()[0];
  s.channels = x.dims()[1];
  s.in_spatial.assign(x.dims().begin() + 2, x.dims().end());
  if (!node.attrs.Has("kernel_shape")) return InvalidInput(label + "kernel_shape is required");
  IOS_ASSIGN_OR_RETURN(Dims kernel, node.attrs.GetInts("kernel_shape", {}));
  IOS_ASSIGN_OR_RETURN(int64_t ceil_mode, node.attrs.GetInt("ceil_mode", 0));
  IOS_ASSIGN_OR_RETURN(s.geo, ComputeWindowGeometry(node, s.in_spatial, kernel, ceil_mode != 0));
  s.out_dims = {s.batch, s.channels};
  s.out_dims.insert(s.out_dims.end(), s.geo.output.begin(), s.geo.output.end());
  return s;
}

// Position along dimension d of kernel tap k for output index o (may lie in the padding).
int64_t WindowPosition(const WindowGeometry& geo, size_t d, int64_t o, int64_t k) {
  return o * geo.strides[d] - geo.pads_begin[d] + k * geo.dilations[d];
}

// MaxPool: the largest input value in each window (padding never wins). The optional second
// output holds the flat input index of that value, row-major or, with storage_order=1, with
// the spatial dimensions column-major.
Status MaxPoolKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                     std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  IOS_ASSIGN_OR_RETURN(PoolSetup s, SetUpPool(node, x));
  IOS_ASSIGN_OR_RETURN(int64_t storage_order, node.attrs.GetInt("storage_order", 0));
  const bool want_indices = outputs->size() > 1;
  const size_t n_spatial = s.in_spatial.size();
  const int64_t spatial_size = NumElements(s.in_spatial);
  const Dims row_major = RowMajorStrides(s.in_spatial);
  Dims col_major(n_spatial, 1);
  for (size_t d = 1; d < n_spatial; ++d) col_major[d] = col_major[d - 1] * s.in_spatial[d - 1];

  return DispatchNumeric(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    Tensor y(x.dtype(), s.out_dims);
    Tensor indices(DType::kInt64, s.out_dims);
    const T* xd = x.data<T>();
    int64_t out_offset = 0;
    for (int64_t nc = 0; nc < s.batch * s.channels; ++nc) {
      const T* plane = xd + nc * spatial_size;
      ForEachIndex(s.geo.output, [&](const Dims& o) {
        T best = std::numeric_limits<T>::lowest();
        int64_t best_index = -1;
        ForEachIndex(s.geo.kernel, [&](const Dims& k) {
          int64_t offset = 0;
          int64_t stored_offset = 0;
          for (size_t d = 0; d < n_spatial; ++d) {
            const int64_t pos = WindowPosition(s.geo, d, o[d], k[d]);
            if (pos < 0 || pos >= s.in_spatial[d]) return;
            offset += pos * row_major[d];
            stored_offset += pos * (storage_order == 1 ? col_major[d] : row_major[d]);
          }
          if (best_index < 0 || plane[offset] > best) {
            best = plane[offset];
            best_index = nc * spatial_size + stored_offset;
          }
        });
        y.data<T>()[out_offset] = best;
        indices.data<int64_t>()[out_offset] = best_index;
        ++out_offset;
      });
    }
    (*outputs)[0] = std::move(y);
    if (want_indices) (*outputs)[1] = std::move(indices);
    return Status::Ok();
  });
}

// AveragePool. The divisor counts the window's taps inside the input, or with
// count_include_pad=1 the taps inside the padded input [-pad_begin, in + pad_end): a window
// that ceil_mode lets run past the end padding is cut there, as onnxruntime does.
Status AveragePoolKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                         std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  IOS_ASSIGN_OR_RETURN(PoolSetup s, SetUpPool(node, x));
  IOS_ASSIGN_OR_RETURN(int64_t count_include_pad, node.attrs.GetInt("count_include_pad", 0));
  const size_t n_spatial = s.in_spatial.size();
  const int64_t spatial_size = NumElements(s.in_spatial);
  const Dims strides = RowMajorStrides(s.in_spatial);

  return DispatchFloat(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    Tensor y(x.dtype(), s.out_dims);
    int64_t out_offset = 0;
    for (int64_t nc = 0; nc < s.batch * s.channels; ++nc) {
      const T* plane = x.data<T>() + nc * spatial_size;
      ForEachIndex(s.geo.output, [&](const Dims& o) {
        double sum = 0.0;
        int64_t inside_input = 0;
        int64_t inside_padded = 0;
        ForEachIndex(s.geo.kernel, [&](const Dims& k) {
          bool in_input = true;
          bool in_padded = true;
          int64_t offset = 0;
          for (size_t d = 0; d < n_spatial; ++d) {
            const int64_t pos = WindowPosition(s.geo, d, o[d], k[d]);
            if (pos < 0 || pos >= s.in_spatial[d]) in_input = false;
            if (pos < -s.geo.pads_begin[d] || pos >= s.in_spatial[d] + s.geo.pads_end[d])
              in_padded = false;
            offset += pos * strides[d];
          }
          if (in_padded) ++inside_padded;
          if (!in_input) return;
          ++inside_input;
          sum += static_cast<double>(plane[offset]);
        });
        const int64_t divisor = count_include_pad != 0 ? inside_padded : inside_input;
        y.data<T>()[out_offset++] = divisor > 0 ? static_cast<T>(sum / divisor) : T(0);
      });
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

// GlobalAveragePool / GlobalMaxPool: one value per (N, C) over all spatial dimensions.
Status GlobalPoolKernel(bool is_max, const Node& node, const std::vector<const Tensor*>& inputs,
                        std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  if (x.rank() < 2)
    return InvalidInput(NodeLabel(node) + "input must have rank >= 2, has " +
                        DimsToString(x.dims()));
  Dims out_dims(x.rank(), 1);
  out_dims[0] = x.dims()[0];
  out_dims[1] = x.dims()[1];
  const int64_t spatial_size = NumElements(Dims(x.dims().begin() + 2, x.dims().end()));
  if (spatial_size == 0) return InvalidInput(NodeLabel(node) + "empty spatial dimensions");
  const int64_t planes = out_dims[0] * out_dims[1];
  auto body = [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    Tensor y(x.dtype(), out_dims);
    for (int64_t p = 0; p < planes; ++p) {
      const T* plane = x.data<T>() + p * spatial_size;
      if (is_max) {
        T best = plane[0];
        for (int64_t i = 1; i < spatial_size; ++i)
          if (plane[i] > best) best = plane[i];
        y.data<T>()[p] = best;
      } else {
        double sum = 0.0;
        for (int64_t i = 0; i < spatial_size; ++i) sum += static_cast<double>(plane[i]);
        y.data<T>()[p] = static_cast<T>(sum / static_cast<double>(spatial_size));
      }
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  };
  return is_max ? DispatchNumeric(x.dtype(), node.op_type, body)
                : DispatchFloat(x.dtype(), node.op_type, body);
}

}  // namespace

void AddPoolReferenceKernels(ReferenceKernelTable& table) {
  table["MaxPool"] = MaxPoolKernel;
  table["AveragePool"] = AveragePoolKernel;
  table["GlobalAveragePool"] = [](const Node& node, const std::vector<const Tensor*>& inputs,
                                  std::vector<Tensor>* outputs) {
    return GlobalPoolKernel(/*is_max=*/false, node, inputs, outputs);
  };
  table["GlobalMaxPool"] = [](const Node& node, const std::vector<const Tensor*>& inputs,
                              std::vector<Tensor>* outputs) {
    return GlobalPoolKernel(/*is_max=*/true, node, inputs, outputs);
  };
}

}  // namespace ios
