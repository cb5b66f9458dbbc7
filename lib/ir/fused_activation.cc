#include "ir/fused_activation.h"

namespace ios {
namespace {

struct ActivationName {
  ActivationKind kind;
  const char* op_type;
};

constexpr ActivationName kActivationNames[] = {
    {ActivationKind::kRelu, "Relu"},           {ActivationKind::kLeakyRelu, "LeakyRelu"},
    {ActivationKind::kClip, "Clip"},           {ActivationKind::kSigmoid, "Sigmoid"},
    {ActivationKind::kTanh, "Tanh"},           {ActivationKind::kHardSigmoid, "HardSigmoid"},
    {ActivationKind::kHardSwish, "HardSwish"}, {ActivationKind::kElu, "Elu"},
};

}  // namespace

std::optional<ActivationKind> ActivationKindFromOpType(const std::string& op_type) {
  for (const auto& entry : kActivationNames)
    if (op_type == entry.op_type) return entry.kind;
  return std::nullopt;
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
  act.alpha = attrs.GetFloat(kFusedAlphaAttr, 0.f).ok() ? attrs.GetFloat(kFusedAlphaAttr, 0.f).value() : 0.f;
  act.beta = attrs.GetFloat(kFusedBetaAttr, 0.f).ok() ? attrs.GetFloat(kFusedBetaAttr, 0.f).value() : 0.f;
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
