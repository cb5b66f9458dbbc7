// BatchNormalization: y = (x - mean) / sqrt(var + epsilon) · scale + B, with the given
// statistics, or the batch's own with training_mode=1 (opset 14+).
// LayerNormalization (opset 17): each row of the dims [axis, rank) normalised by its own mean
// and variance, then scaled and shifted; optional outputs Mean and InvStdDev per row.
#include <string>
#include <vector>

#include "ops/layer_norm_params.h"
#include "ops/op_registry.h"
#include "ops/op_util.h"

namespace ios {
namespace {

constexpr const char* kBatchNormParamNames[] = {"X", "scale", "B", "input_mean", "input_var"};

Status InferBatchNorm(const Node& node, const std::vector<InferInput>& inputs,
                      std::vector<TensorType>* outputs) {
  IOS_ASSIGN_OR_RETURN(int64_t training_mode, node.attrs.GetInt("training_mode", 0));
  if (training_mode != 0 && training_mode != 1)
    return InvalidInput("training_mode=" + std::to_string(training_mode) + "; expected 0 or 1");
  // training_mode=1 (opset 14+) normalises with the batch's own statistics. Exporters emit it
  // for weight standardisation (timm's ScaledStdConv, NFNet), where X is a weight and the node
  // folds to a constant; the running-statistic outputs are then plain values too.
  const bool training = training_mode == 1;
  if (training && node.opset != 0 && node.opset < 14)
    return InvalidInput("training_mode is an attribute from opset 14; this node is opset " +
                        std::to_string(node.opset));
  if (training && node.outputs.size() > 3)
    return InvalidInput("has " + std::to_string(node.outputs.size()) + " outputs; at most 3");
  // Before opset 14 the extra outputs (mean, var, saved mean and var) exist only for training.
  for (size_t i = 1; i < node.outputs.size() && !training; ++i) {
    if (node.outputs[i] != kNoValue) {
      return Unsupported("output " + std::to_string(i) +
                         " (a training statistic) is not supported: ios runs inference only "
                         "and BatchNormalization must have a single output Y");
    }
  }
  if (node.opset < 9) {
    // Before opset 9, spatial=0 meant per-element statistics of shape [C, H, W].
    IOS_ASSIGN_OR_RETURN(int64_t spatial, node.attrs.GetInt("spatial", 1));
    if (spatial != 1) {
      return Unsupported("spatial=" + std::to_string(spatial) +
                         " is not supported; only spatial=1 (per-channel statistics)");
    }
  }
  IOS_RETURN_IF_ERROR(node.attrs.GetFloat("epsilon", 1e-5f).status());
  const Dims& x = inputs[0].type.dims;
  if (x.size() < 2) {
    return InvalidInput("input X has shape " + DimsToString(x) +
                        "; expected at least 2 dims (N, C, ...)");
  }
  for (size_t i = 1; i < 5; ++i) {
    if (inputs[i].type.dims != Dims{x[1]}) {
      return InvalidInput("input '" + std::string(kBatchNormParamNames[i]) + "' has shape " +
                          DimsToString(inputs[i].type.dims) + ", expected [" +
                          std::to_string(x[1]) + "] (one value per channel of X)");
    }
  }
  (*outputs)[0] = inputs[0].type;
  // running_mean and running_var (training_mode=1): one value per channel.
  for (size_t i = 1; i < outputs->size(); ++i)
    (*outputs)[i] = TensorType{inputs[0].type.dtype, Dims{x[1]}};
  return Status::Ok();
}

Status InferLayerNorm(const Node& node, const std::vector<InferInput>& inputs,
                      std::vector<TensorType>* outputs) {
  if (node.opset < 17)
    return InvalidInput("LayerNormalization exists from opset 17; this node is opset " +
                        std::to_string(node.opset));
  const TensorType& x = inputs[0].type;
  if (x.dtype != DType::kFloat32 && x.dtype != DType::kFloat64 && x.dtype != DType::kFloat16)
    return InvalidInput("input X has type " + DTypeName(x.dtype) + "; expected a float type");
  const InferInput* bias = OptionalInput(inputs, 2);
  IOS_RETURN_IF_ERROR(CheckSameDType(inputs));
  IOS_ASSIGN_OR_RETURN(LayerNormParams params,
                       ParseLayerNorm(node, x.dims, inputs[1].type.dims,
                                      bias != nullptr ? &bias->type.dims : nullptr));
  (*outputs)[0] = x;
  // Mean and InvStdDev: one float32 value per row (stash_type 1), with the normalised dims as 1s.
  for (size_t i = 1; i < outputs->size(); ++i)
    (*outputs)[i] = TensorType{DType::kFloat32, params.stats_dims};
  return Status::Ok();
}

}  // namespace

void RegisterNormalizationOps(OpRegistry& registry) {
  // Up to 5 outputs so that a training-mode node gets a clear message rather than a count error.
  // Cost: scale and shift fold into one multiply-add per element.
  RegisterOp(registry,
             OpSchema{"BatchNormalization", 5, 5, 1, 5, InferBatchNorm, MakeElementwiseCost(2)});
  // LayerNormalization: a sum and a sum of squared deviations over each row (3 ops per
  // element), then subtract, scale by the inverse deviation, scale and shift (4 ops).
  RegisterOp(registry,
             OpSchema{"LayerNormalization", 2, 3, 1, 3, InferLayerNorm, MakeElementwiseCost(7)});
}

}  // namespace ios
