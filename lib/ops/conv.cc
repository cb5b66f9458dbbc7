// Conv and ConvTranspose: attribute checks, output shapes and cost.
#include <algorithm>
#include <string>
#include <vector>

#include "ir/fused_activation.h"
#include "ops/conv_transpose_params.h"
#include "ops/op_registry.h"
#include "ops/op_util.h"
#include "util/checked_int.h"

namespace ios {
namespace {

// Checks X/W ranks and the optional kernel_shape attribute; returns W's spatial dims.
StatusOr<std::vector<int64_t>> ReadKernel(const Node& node, const Dims& x, const Dims& w) {
  if (x.size() < 3) {
    return InvalidInput("input X has shape " + DimsToString(x) +
                        "; expected at least 3 dims (N, C, spatial...)");
  }
  if (w.size() != x.size()) {
    return InvalidInput("weights W have shape " + DimsToString(w) + " (rank " +
                        std::to_string(w.size()) + ") but input X has rank " +
                        std::to_string(x.size()));
  }
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  if (node.attrs.Has("kernel_shape")) {
    IOS_ASSIGN_OR_RETURN(std::vector<int64_t> attr, node.attrs.GetInts("kernel_shape", {}));
    if (attr != kernel) {
      return InvalidInput("attribute 'kernel_shape' " + DimsToString(attr) +
                          " does not match the weights' spatial dims " + DimsToString(kernel));
    }
  }
  return kernel;
}

StatusOr<int64_t> ReadGroup(const Node& node) {
  IOS_ASSIGN_OR_RETURN(int64_t group, node.attrs.GetInt("group", 1));
  if (group < 1) {
    return InvalidInput("attribute 'group' is " + std::to_string(group) + "; must be >= 1");
  }
  return group;
}

Status CheckBias(const std::vector<InferInput>& inputs, int64_t out_channels) {
  const InferInput* bias = OptionalInput(inputs, 2);
  if (bias == nullptr) return Status::Ok();
  if (bias->type.dims != Dims{out_channels}) {
    return InvalidInput("bias B has shape " + DimsToString(bias->type.dims) + ", expected [" +
                        std::to_string(out_channels) + "] (one per output channel)");
  }
  return Status::Ok();
}

Status InferConv(const Node& node, const std::vector<InferInput>& inputs,
                 std::vector<TensorType>* outputs) {
  const Dims& x = inputs[0].type.dims;
  const Dims& w = inputs[1].type.dims;
  IOS_RETURN_IF_ERROR(CheckSameDType({inputs[0], inputs[1]}));
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ReadKernel(node, x, w));
  IOS_ASSIGN_OR_RETURN(int64_t group, ReadGroup(node));
  const int64_t in_channels = x[1];
  const int64_t out_channels = w[0];
  if (in_channels % group != 0 || out_channels % group != 0) {
    return InvalidInput("group " + std::to_string(group) + " does not divide the input channels " +
                        std::to_string(in_channels) + " and the output channels " +
                        std::to_string(out_channels));
  }
  const CheckedInt64 expected_channels = CheckedInt64(w[1]) * group;
  if (expected_channels != in_channels) {
    return InvalidInput("input X has " + std::to_string(in_channels) + " channels but weights W " +
                        DimsToString(w) + " with group " + std::to_string(group) + " expect " +
                        (expected_channels.ok() ? std::to_string(*expected_channels.get())
                                                : std::string("more than 2^63")));
  }
  IOS_RETURN_IF_ERROR(CheckBias(inputs, out_channels));
  IOS_ASSIGN_OR_RETURN(WindowParams params, ReadWindowParams(node, kernel));
  IOS_ASSIGN_OR_RETURN(Dims spatial,
                       WindowOutputDims(Dims(x.begin() + 2, x.end()), false, &params));
  Dims out = {x[0], out_channels};
  out.insert(out.end(), spatial.begin(), spatial.end());
  // ONNX's Conv has three inputs; a fourth is ios's fused residual (ir/fused_activation.h).
  IOS_ASSIGN_OR_RETURN(int64_t residual_flag, node.attrs.GetInt(kFusedResidualAttr, 0));
  const InferInput* residual = OptionalInput(inputs, 3);
  if (residual != nullptr && residual_flag == 0)
    return InvalidInput("Conv takes at most 3 inputs, got " + std::to_string(inputs.size()));
  if (residual_flag != 0) {
    if (residual == nullptr) return InvalidInput("a fused residual needs its input (input 3)");
    if (residual->type.dtype != inputs[0].type.dtype || residual->type.dims != out)
      return InvalidInput("the fused residual " + DTypeName(residual->type.dtype) +
                          DimsToString(residual->type.dims) + " must be the output's " +
                          DTypeName(inputs[0].type.dtype) + DimsToString(out));
  }
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

// 2·MACs for the convolution, one add per output for the bias and one op per output for a
// fused activation (the same as the standalone activation op, so fusion keeps total FLOPs).
OpCost ConvCost(const Node& node, const std::vector<TensorType>& inputs,
                const std::vector<TensorType>& outputs) {
  const Dims& w = inputs[1].dims;
  const double out_elements = static_cast<double>(NumElements(outputs[0].dims));
  // W is [M, C/group, k...]: every output element reads C/group · prod(k) weights.
  const double macs_per_output = static_cast<double>(NumElements(Dims(w.begin() + 1, w.end())));
  OpCost cost;
  cost.flops = 2 * out_elements * macs_per_output;
  if (inputs.size() > 2 && inputs[2].dtype != DType::kUndefined) cost.flops += out_elements;
  if (GetFusedActivation(node.attrs).kind != ActivationKind::kNone) cost.flops += out_elements;
  if (inputs.size() > 3 && inputs[3].dtype != DType::kUndefined) cost.flops += out_elements;
  cost.bytes_moved = BytesMoved(inputs, outputs);
  return cost;
}

Status InferConvTranspose(const Node& node, const std::vector<InferInput>& inputs,
                          std::vector<TensorType>* outputs) {
  IOS_RETURN_IF_ERROR(CheckSameDType({inputs[0], inputs[1]}));
  IOS_ASSIGN_OR_RETURN(ConvTransposeParams params,
                       ParseConvTranspose(node, inputs[0].type.dims, inputs[1].type.dims));
  IOS_RETURN_IF_ERROR(CheckBias(inputs, params.out_channels));
  (*outputs)[0] = TensorType{inputs[0].type.dtype, params.out_dims};
  return Status::Ok();
}

// Every input element scatters into (M/group)·prod(k) outputs: 2 FLOPs each, plus the bias.
OpCost ConvTransposeCost(const Node& node, const std::vector<TensorType>& inputs,
                         const std::vector<TensorType>& outputs) {
  const Dims& w = inputs[1].dims;
  const double in_elements = static_cast<double>(NumElements(inputs[0].dims));
  const double out_elements = static_cast<double>(NumElements(outputs[0].dims));
  OpCost cost;
  cost.flops = 2 * in_elements * static_cast<double>(NumElements(Dims(w.begin() + 1, w.end())));
  if (inputs.size() > 2 && inputs[2].dtype != DType::kUndefined) cost.flops += out_elements;
  cost.bytes_moved = BytesMoved(inputs, outputs);
  return cost;
}

}  // namespace

void RegisterConvOps(OpRegistry& registry) {
  // The fourth input: a fused residual (ios.residual), refused without the attribute.
  RegisterOp(registry, OpSchema{"Conv", 2, 4, 1, 1, InferConv, ConvCost});
  RegisterOp(registry,
             OpSchema{"ConvTranspose", 2, 3, 1, 1, InferConvTranspose, ConvTransposeCost});
}

}  // namespace ios
