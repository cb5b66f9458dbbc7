// Activations and the unary math ops that exporters put in shape chains: the output has the
// input's type, and the cost is one op per element.
#include <string>
#include <vector>

#include "ir/fused_activation.h"
#include "ops/op_params.h"
#include "ops/op_registry.h"
#include "ops/op_util.h"

namespace ios {
namespace {

// An infer function for a unary op whose float attributes `float_attrs` must, when present,
// be floats.
InferFn UnaryInfer(std::vector<std::string> float_attrs) {
  return [float_attrs](const Node& node, const std::vector<InferInput>& inputs,
                       std::vector<TensorType>* outputs) {
    for (const std::string& name : float_attrs) {
      IOS_RETURN_IF_ERROR(node.attrs.GetFloat(name, 0.f).status());
    }
    (*outputs)[0] = inputs[0].type;
    return Status::Ok();
  };
}

// InvalidInput for a node older than the opset that introduced its op (Erf 9, Gelu 20). A node
// that a canonicalisation pass creates carries the introducing opset itself.
Status CheckSinceOpset(const Node& node, int64_t since) {
  if (node.opset >= since) return Status::Ok();
  return InvalidInput(node.op_type + " exists from opset " + std::to_string(since) +
                      "; this node is opset " + std::to_string(node.opset));
}

bool IsFloatType(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kFloat16;
}

// The activations past Elu (Softplus, Mish, Selu, Celu, Softsign, ThresholdedRelu): float
// types only, from the opset that introduced the op; ActivationOfNode reads and checks their
// attributes as every backend's kernel will.
InferFn FloatActivationInfer(int64_t since) {
  return [since](const Node& node, const std::vector<InferInput>& inputs,
                 std::vector<TensorType>* outputs) -> Status {
    IOS_RETURN_IF_ERROR(CheckSinceOpset(node, since));
    if (!IsFloatType(inputs[0].type.dtype))
      return InvalidInput("input has type " + DTypeName(inputs[0].type.dtype) + "; " +
                          node.op_type + " takes a float type");
    IOS_RETURN_IF_ERROR(ActivationOfNode(node).status());
    (*outputs)[0] = inputs[0].type;
    return Status::Ok();
  };
}

Status InferErf(const Node& node, const std::vector<InferInput>& inputs,
                std::vector<TensorType>* outputs) {
  IOS_RETURN_IF_ERROR(CheckSinceOpset(node, 9));
  (*outputs)[0] = inputs[0].type;
  return Status::Ok();
}

Status InferSign(const Node& node, const std::vector<InferInput>& inputs,
                 std::vector<TensorType>* outputs) {
  IOS_RETURN_IF_ERROR(CheckSinceOpset(node, 9));
  (*outputs)[0] = inputs[0].type;
  return Status::Ok();
}

Status InferGelu(const Node& node, const std::vector<InferInput>& inputs,
                 std::vector<TensorType>* outputs) {
  IOS_RETURN_IF_ERROR(CheckSinceOpset(node, 20));
  IOS_RETURN_IF_ERROR(ParseGeluApproximation(node).status());
  if (!IsFloatType(inputs[0].type.dtype))
    return InvalidInput("input has type " + DTypeName(inputs[0].type.dtype) +
                        "; Gelu takes a float type");
  (*outputs)[0] = inputs[0].type;
  return Status::Ok();
}

Status InferNot(const Node& node, const std::vector<InferInput>& inputs,
                std::vector<TensorType>* outputs) {
  if (inputs[0].type.dtype != DType::kBool) {
    return InvalidInput("input has type " + DTypeName(inputs[0].type.dtype) + "; Not takes bool");
  }
  (*outputs)[0] = inputs[0].type;
  return Status::Ok();
}

// Clip's bounds: attributes before opset 11, optional scalar inputs 1 (min) and 2 (max) since.
Status InferClip(const Node& node, const std::vector<InferInput>& inputs,
                 std::vector<TensorType>* outputs) {
  if (node.opset < 11) {
    if (OptionalInput(inputs, 1) != nullptr || OptionalInput(inputs, 2) != nullptr) {
      return InvalidInput("min/max are inputs only from opset 11; opset " +
                          std::to_string(node.opset) + " takes attributes 'min' and 'max'");
    }
    IOS_RETURN_IF_ERROR(node.attrs.GetFloat("min", 0.f).status());
    IOS_RETURN_IF_ERROR(node.attrs.GetFloat("max", 0.f).status());
  } else {
    if (node.attrs.Has("min") || node.attrs.Has("max")) {
      return InvalidInput(
          "min/max are inputs from opset 11, not attributes (this node uses "
          "opset " +
          std::to_string(node.opset) + ")");
    }
    const char* names[] = {"", "min", "max"};
    for (size_t i = 1; i < 3; ++i) {
      const InferInput* bound = OptionalInput(inputs, i);
      if (bound == nullptr) continue;
      if (bound->constant == nullptr) return NonConstantInput(names[i]);
      if (bound->constant->num_elements() != 1) {
        return InvalidInput("input '" + std::string(names[i]) + "' has shape " +
                            DimsToString(bound->type.dims) + "; it must be a scalar");
      }
      if (bound->type.dtype != inputs[0].type.dtype) {
        return InvalidInput("input '" + std::string(names[i]) + "' has type " +
                            DTypeName(bound->type.dtype) + " but the input has type " +
                            DTypeName(inputs[0].type.dtype));
      }
    }
  }
  (*outputs)[0] = inputs[0].type;
  return Status::Ok();
}

}  // namespace

void RegisterActivationOps(OpRegistry& registry) {
  const CostFn one_per_element = MakeElementwiseCost(1);
  auto unary = [&](const char* op_type, std::vector<std::string> float_attrs) {
    RegisterOp(registry,
               OpSchema{op_type, 1, 1, 1, 1, UnaryInfer(std::move(float_attrs)), one_per_element});
  };
  unary("Relu", {});
  unary("LeakyRelu", {"alpha"});
  unary("Sigmoid", {});
  unary("Tanh", {});
  unary("HardSigmoid", {"alpha", "beta"});
  unary("HardSwish", {});
  unary("Elu", {"alpha"});
  for (const char* op_type : {"Neg", "Abs", "Sqrt", "Exp", "Log", "Floor", "Ceil", "Reciprocal"}) {
    unary(op_type, {});
  }
  RegisterOp(registry, OpSchema{"Not", 1, 1, 1, 1, InferNot, one_per_element});
  RegisterOp(registry, OpSchema{"Erf", 1, 1, 1, 1, InferErf, one_per_element});
  RegisterOp(registry, OpSchema{"Sign", 1, 1, 1, 1, InferSign, one_per_element});
  // Gelu: a scale, an erf (or a cubic and a tanh), an add and two multiplies per element.
  RegisterOp(registry, OpSchema{"Gelu", 1, 1, 1, 1, InferGelu, MakeElementwiseCost(8)});
  RegisterOp(registry, OpSchema{"Clip", 1, 3, 1, 1, InferClip, one_per_element});
  // Operations per element: a compare (ThresholdedRelu); abs, add and divide (Softsign); exp,
  // log1p and add (Softplus); exp, subtract and two multiplies, one of them selected (Selu); a
  // divide, exp, subtract and multiply (Celu); Softplus, tanh and a multiply (Mish).
  auto float_activation = [&](const char* op_type, int64_t since, double flops) {
    RegisterOp(registry, OpSchema{op_type, 1, 1, 1, 1, FloatActivationInfer(since),
                                  MakeElementwiseCost(flops)});
  };
  float_activation("ThresholdedRelu", 10, 1);
  float_activation("Softsign", 1, 3);
  float_activation("Softplus", 1, 3);
  float_activation("Selu", 1, 3);
  float_activation("Celu", 12, 4);
  float_activation("Mish", 18, 5);
}

}  // namespace ios
