// Per-element activation math shared by the CPU backend, the reference kernels, fused conv
// epilogues and the CUDA kernels. Only the launch differs between backends.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/math/host_device.h"

namespace ios {

// Activations that a conv can carry fused (and that exist as standalone ops).
enum class ActivationKind : int32_t {
  kNone = 0,
  kRelu,
  kLeakyRelu,    // alpha
  kClip,         // alpha = min, beta = max (Relu6 is Clip(0, 6))
  kSigmoid,
  kTanh,
  kHardSigmoid,  // alpha, beta
  kHardSwish,
  kElu,          // alpha
};

struct Activation {
  ActivationKind kind = ActivationKind::kNone;
  float alpha = 0.f;
  float beta = 0.f;
};

IOS_HD float ApplyActivation(ActivationKind kind, float alpha, float beta, float x) {
  switch (kind) {
    case ActivationKind::kNone: return x;
    case ActivationKind::kRelu: return x > 0.f ? x : 0.f;
    case ActivationKind::kLeakyRelu: return x >= 0.f ? x : alpha * x;
    case ActivationKind::kClip: return x < alpha ? alpha : (x > beta ? beta : x);
    case ActivationKind::kSigmoid: return 1.f / (1.f + expf(-x));
    case ActivationKind::kTanh: return tanhf(x);
    case ActivationKind::kHardSigmoid: {
      float y = alpha * x + beta;
      return y < 0.f ? 0.f : (y > 1.f ? 1.f : y);
    }
    case ActivationKind::kHardSwish: {
      float y = x / 6.f + 0.5f;
      return x * (y < 0.f ? 0.f : (y > 1.f ? 1.f : y));
    }
    case ActivationKind::kElu: return x >= 0.f ? x : alpha * (expf(x) - 1.f);
  }
  return x;
}

IOS_HD float ApplyActivation(const Activation& act, float x) {
  return ApplyActivation(act.kind, act.alpha, act.beta, x);
}

}  // namespace ios
