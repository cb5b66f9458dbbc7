// Per-element math of the binary and unary elementwise ops on float32, shared by the CUDA
// kernels and their host tests. Max and Min keep the reference's operand order (the
// accumulated value first), which decides what a NaN gives.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/math/gelu_math.h"
#include "kernels/math/host_device.h"

namespace ios {

// kPRelu: x is the input, y its slope (PRelu broadcasts the slope to the input's shape).
enum class BinaryOpKind : int32_t { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow, kPRelu };

IOS_HD float ApplyBinary(BinaryOpKind op, float x, float y) {
  switch (op) {
    case BinaryOpKind::kAdd:
      return x + y;
    case BinaryOpKind::kSub:
      return x - y;
    case BinaryOpKind::kMul:
      return x * y;
    case BinaryOpKind::kDiv:
      return x / y;
    case BinaryOpKind::kMax:
      return y > x ? y : x;
    case BinaryOpKind::kMin:
      return y < x ? y : x;
    case BinaryOpKind::kPow:
      return powf(x, y);
    case BinaryOpKind::kPRelu:
      return x < 0.f ? y * x : x;
  }
  return x;
}

// kGelu and kGeluTanh are Gelu's two `approximate` forms (kernels/math/gelu_math.h).
enum class UnaryOpKind : int32_t {
  kNeg,
  kAbs,
  kSqrt,
  kExp,
  kLog,
  kReciprocal,
  kFloor,
  kCeil,
  kErf,
  kSign,
  kGelu,
  kGeluTanh,
};

IOS_HD float ApplyUnary(UnaryOpKind op, float x) {
  switch (op) {
    case UnaryOpKind::kNeg:
      return -x;
    case UnaryOpKind::kAbs:
      return fabsf(x);
    case UnaryOpKind::kSqrt:
      return sqrtf(x);
    case UnaryOpKind::kExp:
      return expf(x);
    case UnaryOpKind::kLog:
      return logf(x);
    case UnaryOpKind::kReciprocal:
      return 1.f / x;
    case UnaryOpKind::kFloor:
      return floorf(x);
    case UnaryOpKind::kCeil:
      return ceilf(x);
    case UnaryOpKind::kErf:
      return erff(x);
    case UnaryOpKind::kSign:  // NaN stays NaN and -0 gives 0, as onnxruntime and numpy do
      return x > 0.f ? 1.f : x < 0.f ? -1.f : x == 0.f ? 0.f : x;
    case UnaryOpKind::kGelu:
      return GeluErfValue(x);
    case UnaryOpKind::kGeluTanh:
      return GeluTanhValue(x);
  }
  return x;
}

// The ONNX op that each kind computes: the one list the backends' unary kernels look their op
// up in (Gelu's two forms are its kernels' choice, from its attribute).
struct UnaryOpName {
  const char* op_type;
  UnaryOpKind kind;
};
inline constexpr UnaryOpName kUnaryOpNames[] = {
    {"Neg", UnaryOpKind::kNeg},     {"Abs", UnaryOpKind::kAbs},
    {"Sqrt", UnaryOpKind::kSqrt},   {"Exp", UnaryOpKind::kExp},
    {"Log", UnaryOpKind::kLog},     {"Reciprocal", UnaryOpKind::kReciprocal},
    {"Floor", UnaryOpKind::kFloor}, {"Ceil", UnaryOpKind::kCeil},
    {"Erf", UnaryOpKind::kErf},     {"Sign", UnaryOpKind::kSign},
};

// Mean of `count` inputs from their sum, as the reference computes it: sum / count in float.
IOS_HD float MeanFromSum(float sum, int32_t count) { return sum / static_cast<float>(count); }

}  // namespace ios
