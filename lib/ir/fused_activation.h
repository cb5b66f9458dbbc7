// How a fused activation is recorded on a Conv node. The fusion pass writes these attributes;
// shape inference ignores them; kernels, the ONNX exporter and unit formation read them.
#pragma once

#include <optional>
#include <string>

#include "ir/attribute.h"
#include "kernels/math/activation_math.h"

namespace ios {

inline constexpr const char* kFusedActivationAttr = "ios.activation";  // op type, e.g. "Relu"
inline constexpr const char* kFusedAlphaAttr = "ios.activation_alpha";
inline constexpr const char* kFusedBetaAttr = "ios.activation_beta";

// Maps an ONNX activation op type to its kind; nullopt for other ops.
std::optional<ActivationKind> ActivationKindFromOpType(const std::string& op_type);
std::string ActivationOpType(ActivationKind kind);
// The fused activation of a node (kNone when it has none).
Activation GetFusedActivation(const AttributeMap& attrs);
void SetFusedActivation(AttributeMap& attrs, const Activation& activation);

}  // namespace ios
