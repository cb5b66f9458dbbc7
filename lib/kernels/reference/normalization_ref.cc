// Reference BatchNormalization (given or batch statistics) and LayerNormalization.
#include <cmath>
#include <string>
#include <vector>

#include "ir/fused_activation.h"
#include "kernels/math/activation_math.h"
#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"

namespace ios {
namespace {

// Y = scale * (X - mean) / sqrt(var + epsilon) + B, per channel (dimension 1). With
// training_mode=1 the mean and (population) variance are X's own over every axis but 1, and
// outputs 1 and 2, when present, are input_mean/var · momentum + batch mean/var · (1 − momentum).
Status BatchNormalizationKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                                std::vector<Tensor>* outputs) {
  for (size_t i = 0; i < 5; ++i) IOS_RETURN_IF_ERROR(RequireInput(node, inputs, i));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const std::string label = NodeLabel(node);
  IOS_ASSIGN_OR_RETURN(int64_t training_mode, node.attrs.GetInt("training_mode", 0));
  if (training_mode != 0 && training_mode != 1)
    return InvalidInput(label + "training_mode must be 0 or 1");
  const bool training = training_mode == 1;
  IOS_ASSIGN_OR_RETURN(int64_t spatial, node.attrs.GetInt("spatial", 1));
  if (spatial != 1) return Unsupported(label + "spatial=0 is not supported");
  IOS_ASSIGN_OR_RETURN(float epsilon, node.attrs.GetFloat("epsilon", 1e-5f));
  IOS_ASSIGN_OR_RETURN(float momentum, node.attrs.GetFloat("momentum", 0.9f));

  const Tensor& x = *inputs[0];
  if (x.rank() < 2)
    return InvalidInput(label + "input must have rank >= 2, has " + DimsToString(x.dims()));
  const int64_t channels = x.dims()[1];
  for (size_t i = 1; i < 5; ++i) {
    if (inputs[i]->dtype() != x.dtype())
      return InvalidInput(label + "all inputs must have the same element type");
    if (inputs[i]->num_elements() != channels)
      return InvalidInput(label + "input " + std::to_string(i) + " " +
                          DimsToString(inputs[i]->dims()) + " must have " +
                          std::to_string(channels) + " elements");
  }
  const int64_t inner = NumElements(Dims(x.dims().begin() + 2, x.dims().end()));
  const int64_t batch = x.dims()[0];

  return DispatchFloat(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* xd = x.data<T>();
    std::vector<double> mean(static_cast<size_t>(channels));
    std::vector<double> var(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
      mean[c] = inputs[3]->data<T>()[c];
      var[c] = inputs[4]->data<T>()[c];
    }
    if (training) {
      for (size_t k = 1; k < outputs->size() && k < 3; ++k)
        (*outputs)[k] = Tensor(x.dtype(), Dims{channels});
      const double count = static_cast<double>(batch * inner);
      for (int64_t c = 0; c < channels; ++c) {
        double sum = 0;
        for (int64_t n = 0; n < batch; ++n)
          for (int64_t i = 0; i < inner; ++i) sum += xd[(n * channels + c) * inner + i];
        const double batch_mean = count > 0 ? sum / count : 0.0;
        double squares = 0;
        for (int64_t n = 0; n < batch; ++n) {
          for (int64_t i = 0; i < inner; ++i) {
            const double d = xd[(n * channels + c) * inner + i] - batch_mean;
            squares += d * d;
          }
        }
        const double batch_var = count > 0 ? squares / count : 0.0;
        // The running statistics blend the given ones with the batch's.
        const double running_mean = mean[c] * momentum + batch_mean * (1.0 - momentum);
        const double running_var = var[c] * momentum + batch_var * (1.0 - momentum);
        mean[c] = batch_mean;
        var[c] = batch_var;
        for (size_t k = 1; k < outputs->size() && k < 3; ++k)
          (*outputs)[k].data<T>()[c] = static_cast<T>(k == 1 ? running_mean : running_var);
      }
    }
    const T* scale = inputs[1]->data<T>();
    const T* bias = inputs[2]->data<T>();
    // A CPU plan's lowering fuses the activation after an inference BN into it.
    const Activation act = GetFusedActivation(node.attrs);
    Tensor y(x.dtype(), x.dims());
    T* yd = y.data<T>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        const double inv_std = 1.0 / std::sqrt(var[c] + epsilon);
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t offset = (n * channels + c) * inner + i;
          const double v = static_cast<double>(scale[c]) *
                               (static_cast<double>(xd[offset]) - mean[c]) * inv_std +
                           bias[c];
          yd[offset] = static_cast<T>(ApplyActivation<double>(act.kind, act.alpha, act.beta, v));
        }
      }
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

// For each element of a row (the dims `row`), the offset of the element of `param` it reads,
// `param` broadcasting to `row` (numpy, right-aligned). InvalidInput naming `what` otherwise.
StatusOr<std::vector<int64_t>> RowParamOffsets(const Node& node, const Tensor& param,
                                               const Dims& row, const char* what) {
  StatusOr<Dims> joined = BroadcastShapes(node, {param.dims(), row});
  if (!joined.ok() || joined.value() != row)
    return InvalidInput(NodeLabel(node) + "input " + what + " " + DimsToString(param.dims()) +
                        " does not broadcast to the normalised dims " + DimsToString(row));
  const Dims strides = BroadcastStrides(param.dims(), row);
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<size_t>(NumElements(row)));
  ForEachIndex(row, [&](const Dims& index) { offsets.push_back(OffsetOf(index, strides)); });
  return offsets;
}

// LayerNormalization (opset 17): every row of the dims [axis, rank) gets
// Y = (X - mean) * inv_std_dev * Scale + B with inv_std_dev = 1 / sqrt(var + epsilon) and var the
// mean squared deviation (two passes, in double). Outputs 1 and 2, when asked for, are the rows'
// mean and inv_std_dev as float32 (stash_type 1), shaped as X with the normalised dims 1.
Status LayerNormalizationKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                                std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 1));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const std::string label = NodeLabel(node);
  const Tensor& x = *inputs[0];
  const Tensor& scale = *inputs[1];
  const Tensor* bias = OptionalInput(inputs, 2);
  IOS_ASSIGN_OR_RETURN(int64_t axis_attr, node.attrs.GetInt("axis", -1));
  IOS_ASSIGN_OR_RETURN(float epsilon, node.attrs.GetFloat("epsilon", 1e-5f));
  IOS_ASSIGN_OR_RETURN(int64_t stash_type, node.attrs.GetInt("stash_type", 1));
  if (stash_type != 1)
    return Unsupported(label + "stash_type=" + std::to_string(stash_type) +
                       " is not supported; only 1 (float32 statistics)");
  if (x.rank() < 1) return InvalidInput(label + "input X must have rank >= 1");
  IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, axis_attr, x.rank()));
  if (scale.dtype() != x.dtype() || (bias != nullptr && bias->dtype() != x.dtype()))
    return InvalidInput(label + "Scale and B must have X's element type " + DTypeName(x.dtype()));
  const Dims& dims = x.dims();
  const Dims row(dims.begin() + axis, dims.end());
  const int64_t rows = NumElements(Dims(dims.begin(), dims.begin() + axis));
  const int64_t row_size = NumElements(row);
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> scale_at, RowParamOffsets(node, scale, row, "Scale"));
  std::vector<int64_t> bias_at;
  if (bias != nullptr) {
    IOS_ASSIGN_OR_RETURN(bias_at, RowParamOffsets(node, *bias, row, "B"));
  }
  Dims stats_dims(dims.begin(), dims.begin() + axis);
  stats_dims.resize(dims.size(), 1);

  return DispatchFloat(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    Tensor y(x.dtype(), dims);
    Tensor mean_out(DType::kFloat32, stats_dims);
    Tensor inv_std_out(DType::kFloat32, stats_dims);
    const T* xd = x.data<T>();
    const T* sd = scale.data<T>();
    const T* bd = bias != nullptr ? bias->data<T>() : nullptr;
    for (int64_t r = 0; r < rows; ++r) {
      const T* xs = xd + r * row_size;
      double sum = 0.0;
      for (int64_t j = 0; j < row_size; ++j) sum += static_cast<double>(xs[j]);
      const double mean = sum / static_cast<double>(row_size);
      double squares = 0.0;
      for (int64_t j = 0; j < row_size; ++j) {
        const double d = static_cast<double>(xs[j]) - mean;
        squares += d * d;
      }
      const double variance = squares / static_cast<double>(row_size);
      const double inv_std = 1.0 / std::sqrt(variance + static_cast<double>(epsilon));
      for (int64_t j = 0; j < row_size; ++j) {
        double value =
            (static_cast<double>(xs[j]) - mean) * inv_std * static_cast<double>(sd[scale_at[j]]);
        if (bd != nullptr) value += static_cast<double>(bd[bias_at[j]]);
        y.data<T>()[r * row_size + j] = static_cast<T>(value);
      }
      mean_out.data<float>()[r] = static_cast<float>(mean);
      inv_std_out.data<float>()[r] = static_cast<float>(inv_std);
    }
    (*outputs)[0] = std::move(y);
    if (outputs->size() > 1) (*outputs)[1] = std::move(mean_out);
    if (outputs->size() > 2) (*outputs)[2] = std::move(inv_std_out);
    return Status::Ok();
  });
}

}  // namespace

void AddNormalizationReferenceKernels(ReferenceKernelTable& table) {
  table["BatchNormalization"] = BatchNormalizationKernel;
  table["LayerNormalization"] = LayerNormalizationKernel;
}

}  // namespace ios
