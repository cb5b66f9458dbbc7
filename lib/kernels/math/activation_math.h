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
  kLeakyRelu,  // alpha
  kClip,       // alpha = min, beta = max (Relu6 is Clip(0, 6))
  kSigmoid,
  kTanh,
  kHardSigmoid,  // alpha, beta
  kHardSwish,
  kElu,  // alpha
  // Conv fusion takes these (oneDNN has eltwise soft_relu, mish and swish for them) ...
  kSoftplus,
  kMish,
  // SiLU (swish), x * sigmoid(x): no op of its own in ONNX before opset 24; exporters write it as
  // Sigmoid and Mul, which the activation fusion pass folds into the conv before them.
  kSilu,
  // ... but not these, which run only as standalone ops (ConvFusesActivation).
  kSelu,  // alpha, beta = gamma
  kCelu,  // alpha
  kSoftsign,
  kThresholdedRelu,  // alpha
};

struct Activation {
  ActivationKind kind = ActivationKind::kNone;
  float alpha = 0.f;
  float beta = 0.f;
};

IOS_HD float ActivationExp(float x) { return expf(x); }
IOS_HD double ActivationExp(double x) { return exp(x); }
IOS_HD float ActivationTanh(float x) { return tanhf(x); }
IOS_HD double ActivationTanh(double x) { return tanh(x); }
IOS_HD float ActivationLog1p(float x) { return log1pf(x); }
IOS_HD double ActivationLog1p(double x) { return log1p(x); }
IOS_HD float ActivationAbs(float x) { return fabsf(x); }
IOS_HD double ActivationAbs(double x) { return fabs(x); }

// log(1 + exp(x)) without overflow: exp only ever sees a non-positive argument.
template <typename T>
IOS_HD T Softplus(T x) {
  return x > T(0) ? x + ActivationLog1p(ActivationExp(-x)) : ActivationLog1p(ActivationExp(x));
}

// In float for the kernels; the reference kernels call it in double, so that they stay an
// oracle rather than the same float computation.
template <typename T>
IOS_HD T ApplyActivation(ActivationKind kind, T alpha, T beta, T x) {
  const T zero = T(0), one = T(1);
  switch (kind) {
    case ActivationKind::kNone:
      return x;
    case ActivationKind::kRelu:
      return x > zero ? x : zero;
    case ActivationKind::kLeakyRelu:
      return x >= zero ? x : alpha * x;
    case ActivationKind::kClip:
      return x < alpha ? alpha : (x > beta ? beta : x);
    case ActivationKind::kSigmoid:
      return one / (one + ActivationExp(-x));
    case ActivationKind::kTanh:
      return ActivationTanh(x);
    case ActivationKind::kHardSigmoid: {
      T y = alpha * x + beta;
      return y < zero ? zero : (y > one ? one : y);
    }
    case ActivationKind::kHardSwish: {
      T y = x / T(6) + T(0.5);
      return x * (y < zero ? zero : (y > one ? one : y));
    }
    case ActivationKind::kElu:
      return x >= zero ? x : alpha * (ActivationExp(x) - one);
    case ActivationKind::kSoftplus:
      return Softplus(x);
    case ActivationKind::kMish:
      return x * ActivationTanh(Softplus(x));
    case ActivationKind::kSilu:
      return x * (one / (one + ActivationExp(-x)));  // Mul(x, Sigmoid(x)), as exported
    case ActivationKind::kSelu:
      return beta * (x > zero ? x : alpha * (ActivationExp(x) - one));
    case ActivationKind::kCelu: {
      // max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); the second term is 0 for x >= 0.
      return x >= zero ? x : alpha * (ActivationExp(x / alpha) - one);
    }
    case ActivationKind::kSoftsign:
      return x / (one + ActivationAbs(x));
    case ActivationKind::kThresholdedRelu:
      return x > alpha ? x : zero;
  }
  return x;
}

IOS_HD float ApplyActivation(const Activation& act, float x) {
  return ApplyActivation(act.kind, act.alpha, act.beta, x);
}

}  // namespace ios
