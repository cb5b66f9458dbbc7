// Reference Conv and ConvTranspose: direct loops over N-d windows (1-D, 2-D and 3-D alike).
#include <algorithm>
#include <vector>

#include "ir/fused_activation.h"
#include "kernels/math/activation_math.h"
#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"
#include "ops/conv_transpose_params.h"
#include "util/checked_int.h"

namespace ios {
namespace {

// Checks the X/W/B operands shared by Conv and ConvTranspose: float32 or float64, all alike.
Status CheckConvOperands(const Node& node, const Tensor& x, const Tensor& w, const Tensor* b,
                         int64_t bias_size) {
  const std::string label = NodeLabel(node);
  if ((x.dtype() != DType::kFloat32 && x.dtype() != DType::kFloat64) || w.dtype() != x.dtype() ||
      (b != nullptr && b->dtype() != x.dtype()))
    return Unsupported(label + "only float32 or float64 operands of one type are supported, got " +
                       DTypeName(x.dtype()) + " and " + DTypeName(w.dtype()));
  if (x.rank() < 3)
    return InvalidInput(label + "input must have rank >= 3 (N, C, spatial...), has " +
                        DimsToString(x.dims()));
  if (w.rank() != x.rank())
    return InvalidInput(label + "weight " + DimsToString(w.dims()) +
                        " must have the input's rank " + std::to_string(x.rank()));
  if (b != nullptr && (b->rank() != 1 || b->dims()[0] != bias_size))
    return InvalidInput(label + "bias " + DimsToString(b->dims()) + " must have shape [" +
                        std::to_string(bias_size) + "]");
  return Status::Ok();
}

// A float32 or float64 tensor's elements as doubles (the reference computes in double).
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> values(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = t.dtype() == DType::kFloat64 ? t.data<double>()[i]
                                             : static_cast<double>(t.data<float>()[i]);
  return values;
}

void StoreDouble(Tensor& t, int64_t i, double value) {
  if (t.dtype() == DType::kFloat64)
    t.data<double>()[i] = value;
  else
    t.data<float>()[i] = static_cast<float>(value);
}

// Offset of a spatial multi-index in a tensor laid out [N, C, spatial...].
int64_t SpatialOffset(const Dims& index, const Dims& strides) {
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[2 + d];
  return offset;
}

// kernel_shape, when given, must agree with the weight.
Status CheckKernelShape(const Node& node, const Dims& kernel) {
  IOS_ASSIGN_OR_RETURN(Dims kernel_attr, node.attrs.GetInts("kernel_shape", kernel));
  if (kernel_attr != kernel)
    return InvalidInput(NodeLabel(node) + "kernel_shape " + DimsToString(kernel_attr) +
                        " disagrees with the weight's spatial shape " + DimsToString(kernel));
  return Status::Ok();
}

// Y = act(conv(X, W) + B). X [N, C, in...], W [M, C/group, k...], B [M].
Status ConvKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                  std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 1));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  const Tensor& w = *inputs[1];
  const Tensor* b = OptionalInput(inputs, 2);
  const std::string label = NodeLabel(node);
  if (w.rank() < 1) return InvalidInput(label + "weight must not be a scalar");
  const int64_t out_channels = w.dims()[0];
  IOS_RETURN_IF_ERROR(CheckConvOperands(node, x, w, b, out_channels));

  IOS_ASSIGN_OR_RETURN(int64_t group, node.attrs.GetInt("group", 1));
  const int64_t batch = x.dims()[0];
  const int64_t in_channels = x.dims()[1];
  const int64_t group_in_channels = w.dims()[1];
  if (group < 1 || CheckedInt64(group_in_channels) * group != in_channels ||
      out_channels % group != 0)
    return InvalidInput(label + "input channels " + std::to_string(in_channels) + ", weight " +
                        DimsToString(w.dims()) + " and group " + std::to_string(group) +
                        " do not match");
  const int64_t group_out_channels = out_channels / group;

  const Dims in_spatial(x.dims().begin() + 2, x.dims().end());
  const Dims kernel(w.dims().begin() + 2, w.dims().end());
  IOS_RETURN_IF_ERROR(CheckKernelShape(node, kernel));
  IOS_ASSIGN_OR_RETURN(WindowGeometry geo,
                       ComputeWindowGeometry(node, in_spatial, kernel, /*ceil_mode=*/false));
  const Activation act = GetFusedActivation(node.attrs);

  Dims out_dims = {batch, out_channels};
  out_dims.insert(out_dims.end(), geo.output.begin(), geo.output.end());
  Tensor y(x.dtype(), out_dims);

  const size_t n_spatial = in_spatial.size();
  const Dims x_strides = RowMajorStrides(x.dims());
  const Dims w_strides = RowMajorStrides(w.dims());
  const Dims y_strides = RowMajorStrides(out_dims);
  const std::vector<double> xd = AsDoubles(x);
  const std::vector<double> wd = AsDoubles(w);
  const std::vector<double> bd = b != nullptr ? AsDoubles(*b) : std::vector<double>();
  // A fused residual (ir/fused_activation.h): added before the activation.
  const Tensor* residual = HasFusedResidual(node) ? OptionalInput(inputs, 3) : nullptr;
  if (residual != nullptr && (residual->dtype() != x.dtype() || residual->dims() != out_dims))
    return InvalidInput(label + "the fused residual " + DimsToString(residual->dims()) +
                        " must have the output's shape " + DimsToString(out_dims));
  const std::vector<double> rd = residual != nullptr ? AsDoubles(*residual) : std::vector<double>();

  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t m = 0; m < out_channels; ++m) {
      const int64_t g = m / group_out_channels;
      ForEachIndex(geo.output, [&](const Dims& o) {
        double acc = b != nullptr ? bd[static_cast<size_t>(m)] : 0.0;
        for (int64_t c = 0; c < group_in_channels; ++c) {
          const int64_t ic = g * group_in_channels + c;
          ForEachIndex(kernel, [&](const Dims& k) {
            int64_t x_offset = n * x_strides[0] + ic * x_strides[1];
            int64_t w_offset = m * w_strides[0] + c * w_strides[1];
            for (size_t d = 0; d < n_spatial; ++d) {
              int64_t pos = o[d] * geo.strides[d] - geo.pads_begin[d] + k[d] * geo.dilations[d];
              if (pos < 0 || pos >= in_spatial[d]) return;  // padding contributes zero
              x_offset += pos * x_strides[2 + d];
              w_offset += k[d] * w_strides[2 + d];
            }
            acc += xd[static_cast<size_t>(x_offset)] * wd[static_cast<size_t>(w_offset)];
          });
        }
        int64_t y_offset = n * y_strides[0] + m * y_strides[1];
        for (size_t d = 0; d < n_spatial; ++d) y_offset += o[d] * y_strides[2 + d];
        if (residual != nullptr) acc += rd[static_cast<size_t>(y_offset)];
        StoreDouble(y, y_offset, ApplyActivation<double>(act.kind, act.alpha, act.beta, acc));
      });
    }
  }
  (*outputs)[0] = std::move(y);
  return Status::Ok();
}

// Y = act(convtranspose(X, W) + B). X [N, C, in...], W [C, M/group, k...], B [M]. Each input
// element scatters x * W into the output window it maps to.
Status ConvTransposeKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                           std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 1));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  const Tensor& w = *inputs[1];
  const Tensor* b = OptionalInput(inputs, 2);
  const std::string label = NodeLabel(node);
  if (w.rank() < 2) return InvalidInput(label + "weight must have rank >= 2");

  IOS_ASSIGN_OR_RETURN(int64_t group, node.attrs.GetInt("group", 1));
  if (group < 1) return InvalidInput(label + "group must be positive");
  const int64_t out_channels = w.dims()[1] * group;
  IOS_RETURN_IF_ERROR(CheckConvOperands(node, x, w, b, out_channels));
  const int64_t batch = x.dims()[0];
  const int64_t in_channels = x.dims()[1];
  if (w.dims()[0] != in_channels || in_channels % group != 0)
    return InvalidInput(label + "input channels " + std::to_string(in_channels) + ", weight " +
                        DimsToString(w.dims()) + " and group " + std::to_string(group) +
                        " do not match");
  const int64_t group_in_channels = in_channels / group;
  const int64_t group_out_channels = w.dims()[1];

  const Dims in_spatial(x.dims().begin() + 2, x.dims().end());
  const Dims kernel(w.dims().begin() + 2, w.dims().end());
  const size_t n = in_spatial.size();
  StatusOr<ConvTransposeParams> parsed = ParseConvTranspose(node, x.dims(), w.dims());
  // label ends in ": ", which WithContext adds itself.
  if (!parsed.ok()) return parsed.status().WithContext(label.substr(0, label.size() - 2));
  const Dims& strides = parsed->strides;
  const Dims& dilations = parsed->dilations;
  const Dims& pads_begin = parsed->pads_begin;
  const Dims out_spatial(parsed->out_dims.begin() + 2, parsed->out_dims.end());

  Dims out_dims = {batch, out_channels};
  out_dims.insert(out_dims.end(), out_spatial.begin(), out_spatial.end());
  std::vector<double> acc(static_cast<size_t>(NumElements(out_dims)), 0.0);
  const Dims x_strides = RowMajorStrides(x.dims());
  const Dims w_strides = RowMajorStrides(w.dims());
  const Dims y_strides = RowMajorStrides(out_dims);
  const std::vector<double> xd = AsDoubles(x);
  const std::vector<double> wd = AsDoubles(w);

  for (int64_t nb = 0; nb < batch; ++nb) {
    for (int64_t c = 0; c < in_channels; ++c) {
      const int64_t g = c / group_in_channels;
      ForEachIndex(in_spatial, [&](const Dims& i) {
        const double xv = xd[static_cast<size_t>(nb * x_strides[0] + c * x_strides[1] +
                                                 SpatialOffset(i, x_strides))];
        for (int64_t mo = 0; mo < group_out_channels; ++mo) {
          const int64_t m = g * group_out_channels + mo;
          ForEachIndex(kernel, [&](const Dims& k) {
            int64_t y_offset = nb * y_strides[0] + m * y_strides[1];
            for (size_t d = 0; d < n; ++d) {
              int64_t pos = i[d] * strides[d] - pads_begin[d] + k[d] * dilations[d];
              if (pos < 0 || pos >= out_spatial[d]) return;  // cropped by the padding
              y_offset += pos * y_strides[2 + d];
            }
            const int64_t w_offset =
                c * w_strides[0] + mo * w_strides[1] + SpatialOffset(k, w_strides);
            acc[static_cast<size_t>(y_offset)] += xv * wd[static_cast<size_t>(w_offset)];
          });
        }
      });
    }
  }

  // A fused activation (the CPU lowering's, ir/fused_activation.h), after the bias.
  const Activation act = GetFusedActivation(node.attrs);
  Tensor y(x.dtype(), out_dims);
  const std::vector<double> bd = b != nullptr ? AsDoubles(*b) : std::vector<double>();
  const int64_t spatial_size = NumElements(out_spatial);
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    const int64_t m = (i / spatial_size) % out_channels;
    const double sum = acc[static_cast<size_t>(i)] + (b != nullptr ? bd[static_cast<size_t>(m)] : 0.0);
    StoreDouble(y, i, ApplyActivation<double>(act.kind, act.alpha, act.beta, sum));
  }
  (*outputs)[0] = std::move(y);
  return Status::Ok();
}

}  // namespace

void AddConvReferenceKernels(ReferenceKernelTable& table) {
  table["Conv"] = ConvKernel;
  table["ConvTranspose"] = ConvTransposeKernel;
}

}  // namespace ios
