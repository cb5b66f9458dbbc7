#include "ir/fused_activation.h"

#include <limits>

namespace ios {
namespace {

struct ActivationName {
  ActivationKind kind;
  const char* op_type;
};

constexpr ActivationName kActivationNames[] = {
    {ActivationKind::kRelu, "Relu"},
    {ActivationKind::kLeakyRelu, "LeakyRelu"},
    {ActivationKind::kClip, "Clip"},
    {ActivationKind::kSigmoid, "Sigmoid"},
    {ActivationKind::kTanh, "Tanh"},
    {ActivationKind::kHardSigmoid, "HardSigmoid"},
    {ActivationKind::kHardSwish, "HardSwish"},
    {ActivationKind::kElu, "Elu"},
    {ActivationKind::kSoftplus, "Softplus"},
    {ActivationKind::kMish, "Mish"},
    // Not an ONNX op: the name of the fused Sigmoid + Mul (no standalone op has it).
    {ActivationKind::kSilu, "Silu"},
    {ActivationKind::kSelu, "Selu"},
    {ActivationKind::kCelu, "Celu"},
    {ActivationKind::kSoftsign, "Softsign"},
    {ActivationKind::kThresholdedRelu, "ThresholdedRelu"},
};

}  // namespace

std::optional<ActivationKind> ActivationKindFromOpType(const std::string& op_type) {
  for (const auto& entry : kActivationNames)
    if (op_type == entry.op_type) return entry.kind;
  return std::nullopt;
}

StatusOr<Activation> ActivationOfNode(const Node& node, const Tensor* clip_min,
                                      const Tensor* clip_max) {
  std::optional<ActivationKind> kind = ActivationKindFromOpType(node.op_type);
  if (!kind) return Internal(node.op_type + " is not an activation");
  Activation act;
  act.kind = *kind;
  switch (*kind) {
    case ActivationKind::kLeakyRelu: {
      IOS_ASSIGN_OR_RETURN(act.alpha, node.attrs.GetFloat("alpha", 0.01f));
      break;
    }
    case ActivationKind::kElu: {
      IOS_ASSIGN_OR_RETURN(act.alpha, node.attrs.GetFloat("alpha", 1.0f));
      break;
    }
    case ActivationKind::kSelu: {
      // ONNX's defaults, the float32 values of SELU's constants.
      IOS_ASSIGN_OR_RETURN(act.alpha, node.attrs.GetFloat("alpha", 1.67326319217681884765625f));
      IOS_ASSIGN_OR_RETURN(act.beta, node.attrs.GetFloat("gamma", 1.05070102214813232421875f));
      break;
    }
    case ActivationKind::kCelu: {
      IOS_ASSIGN_OR_RETURN(act.alpha, node.attrs.GetFloat("alpha", 1.0f));
      if (act.alpha == 0.f) return InvalidInput("attribute 'alpha' of Celu must not be 0");
      break;
    }
    case ActivationKind::kThresholdedRelu: {
      IOS_ASSIGN_OR_RETURN(act.alpha, node.attrs.GetFloat("alpha", 1.0f));
      break;
    }
    case ActivationKind::kHardSigmoid: {
      IOS_ASSIGN_OR_RETURN(act.alpha, node.attrs.GetFloat("alpha", 0.2f));
      IOS_ASSIGN_OR_RETURN(act.beta, node.attrs.GetFloat("beta", 0.5f));
      break;
    }
    case ActivationKind::kClip: {
      act.alpha = std::numeric_limits<float>::lowest();
      act.beta = std::numeric_limits<float>::max();
      if (node.opset < 11) {
        IOS_ASSIGN_OR_RETURN(act.alpha, node.attrs.GetFloat("min", act.alpha));
        IOS_ASSIGN_OR_RETURN(act.beta, node.attrs.GetFloat("max", act.beta));
      } else {
        const Tensor* bounds[] = {clip_min, clip_max};
        float* targets[] = {&act.alpha, &act.beta};
        for (int i = 0; i < 2; ++i) {
          if (bounds[i] == nullptr) continue;
          if (bounds[i]->dtype() != DType::kFloat32 || bounds[i]->num_elements() != 1)
            return InvalidInput("Clip's min/max must be float32 scalars");
          *targets[i] = bounds[i]->data<float>()[0];
        }
      }
      if (act.alpha > act.beta) act.alpha = act.beta;  // ONNX: every value becomes max
      break;
    }
    default:
      break;
  }
  return act;
}

bool HasFusedResidual(const Node& node) {
  StatusOr<int64_t> flag = node.attrs.GetInt(kFusedResidualAttr, 0);
  return flag.ok() && flag.value() != 0 && node.inputs.size() > 3 && node.inputs[3] != kNoValue;
}

bool ConvFusesActivation(ActivationKind kind) {
  switch (kind) {
    case ActivationKind::kSelu:
    case ActivationKind::kCelu:
    case ActivationKind::kSoftsign:
    case ActivationKind::kThresholdedRelu:
      return false;
    default:
      return true;
  }
}

Status CheckConvFusedActivation(const AttributeMap& attrs) {
  auto op_type = attrs.GetString(kFusedActivationAttr, "");
  if (!op_type.ok()) return InvalidInput(std::string(kFusedActivationAttr) + " must be a string");
  if (op_type.value().empty()) return Status::Ok();
  auto kind = ActivationKindFromOpType(op_type.value());
  if (!kind) return InvalidInput("unknown fused activation '" + op_type.value() + "'");
  if (!ConvFusesActivation(*kind))
    return InvalidInput("fused activation " + op_type.value() +
                        " is not one a conv can carry (it runs as its own op)");
  return Status::Ok();
}

std::string ActivationOpType(ActivationKind kind) {
  for (const auto& entry : kActivationNames)
    if (kind == entry.kind) return entry.op_type;
  return "";
}

Activation GetFusedActivation(const AttributeMap& attrs) {
  Activation act;
  auto op_type = attrs.GetString(kFusedActivationAttr, "");
  if (!op_type.ok() || op_type.value().empty()) return act;
  auto kind = ActivationKindFromOpType(op_type.value());
  if (!kind) return act;
  act.kind = *kind;
  act.alpha = attrs.GetFloat(kFusedAlphaAttr, 0.f).ok()
                  ? attrs.GetFloat(kFusedAlphaAttr, 0.f).value()
                  : 0.f;
  act.beta =
      attrs.GetFloat(kFusedBetaAttr, 0.f).ok() ? attrs.GetFloat(kFusedBetaAttr, 0.f).value() : 0.f;
  return act;
}

void SetFusedActivation(AttributeMap& attrs, const Activation& activation) {
  if (activation.kind == ActivationKind::kNone) {
    attrs.Erase(kFusedActivationAttr);
    attrs.Erase(kFusedAlphaAttr);
    attrs.Erase(kFusedBetaAttr);
    return;
  }
  attrs.Set(kFusedActivationAttr, ActivationOpType(activation.kind));
  attrs.Set(kFusedAlphaAttr, activation.alpha);
  attrs.Set(kFusedBetaAttr, activation.beta);
}

}  // namespace ios
