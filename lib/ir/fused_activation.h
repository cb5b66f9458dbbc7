// How a fused activation is recorded on a Conv node. The fusion pass writes these attributes;
// shape inference ignores them; kernels, the ONNX exporter and unit formation read them.
#pragma once

#include <optional>
#include <string>

#include "ir/attribute.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "kernels/math/activation_math.h"
#include "util/status.h"

namespace ios {

inline constexpr const char* kFusedActivationAttr = "ios.activation";  // op type, e.g. "Relu"
inline constexpr const char* kFusedAlphaAttr = "ios.activation_alpha";
inline constexpr const char* kFusedBetaAttr = "ios.activation_beta";
// A Conv whose output has a residual added before its activation: Y = act(conv(X, W) + B + R),
// R its fourth input (the output's shape). Set by passes/fuse_residual_add.h for CPU plans.
inline constexpr const char* kFusedResidualAttr = "ios.residual";

// Whether `node` is a Conv carrying a fused residual (kFusedResidualAttr set, input 3 present).
bool HasFusedResidual(const Node& node);

// Maps an ONNX activation op type to its kind; nullopt for other ops.
std::optional<ActivationKind> ActivationKindFromOpType(const std::string& op_type);
std::string ActivationOpType(ActivationKind kind);
// The activation that an activation op (Relu, LeakyRelu, Clip, ...) computes, with its
// parameters read from the node's attributes and ONNX's defaults (LeakyRelu alpha 0.01, Elu
// alpha 1, HardSigmoid alpha 0.2 and beta 0.5, Selu alpha and gamma (kept as beta), Celu alpha 1
// (0 is an error), ThresholdedRelu alpha 1, Clip before opset 11 min/max). From opset 11 a
// Clip takes its bounds as inputs: pass their constant values (null for an omitted bound). When
// min > max every value becomes max, as ONNX specifies. An error for any other op or a
// malformed attribute. Kernels of every backend and the fusion pass share it.
StatusOr<Activation> ActivationOfNode(const Node& node, const Tensor* clip_min = nullptr,
                                      const Tensor* clip_max = nullptr);
// Whether the conv fusion pass may fold this activation into a conv: the kinds oneDNN 2.6 has
// an exact eltwise algorithm for (so that the CPU conv keeps it as a post-op), which all kinds
// but Selu, Celu, Softsign and ThresholdedRelu are. Those stay standalone ops.
bool ConvFusesActivation(ActivationKind kind);
// InvalidInput when a conv's fused-activation attribute names an unknown activation or one that
// ConvFusesActivation refuses (a plan written elsewhere); the conv kernels check it.
Status CheckConvFusedActivation(const AttributeMap& attrs);
// The fused activation of a node (kNone when it has none).
Activation GetFusedActivation(const AttributeMap& attrs);
void SetFusedActivation(AttributeMap& attrs, const Activation& activation);

}  // namespace ios
