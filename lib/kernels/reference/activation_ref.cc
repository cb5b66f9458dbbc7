// Reference activations and unary math. The activations that a conv can carry fused go through
// ApplyActivation (kernels/math/activation_math.h), the function the CPU and CUDA kernels call in
// float, here in double.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/math/activation_math.h"
#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"

namespace ios {
namespace {

// Applies fn, computed in double, to every element of a float32 or float64 input.
Status MapFloatInDouble(const Node& node, const std::vector<const Tensor*>& inputs,
                        std::vector<Tensor>* outputs, const std::function<double(double)>& fn) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  return DispatchFloat(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    Tensor y(x.dtype(), x.dims());
    for (int64_t i = 0; i < x.num_elements(); ++i)
      y.data<T>()[i] = static_cast<T>(fn(static_cast<double>(x.data<T>()[i])));
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

// A kernel for an activation whose alpha/beta come from attributes with these defaults.
ReferenceKernel MakeActivationKernel(ActivationKind kind, const char* alpha_attr,
                                     float alpha_default, const char* beta_attr,
                                     float beta_default) {
  return [=](const Node& node, const std::vector<const Tensor*>& inputs,
             std::vector<Tensor>* outputs) -> Status {
    float alpha = alpha_default;
    float beta = beta_default;
    if (alpha_attr != nullptr) {
      IOS_ASSIGN_OR_RETURN(alpha, node.attrs.GetFloat(alpha_attr, alpha));
    }
    if (beta_attr != nullptr) {
      IOS_ASSIGN_OR_RETURN(beta, node.attrs.GetFloat(beta_attr, beta));
    }
    return MapFloatInDouble(node, inputs, outputs, [&](double x) {
      return ApplyActivation<double>(kind, alpha, beta, x);
    });
  };
}

// Applies fn(TypeTag<T>, x) elementwise for the dtypes `dispatch` accepts.
template <typename Dispatch, typename Fn>
Status MapTyped(const Node& node, const std::vector<const Tensor*>& inputs,
                std::vector<Tensor>* outputs, Dispatch dispatch, Fn fn) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  return dispatch(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    Tensor y(x.dtype(), x.dims());
    for (int64_t i = 0; i < x.num_elements(); ++i) y.data<T>()[i] = fn(tag, x.data<T>()[i]);
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

// The dtype sets that MapTyped accepts.
const auto kNumeric = [](DType d, const std::string& op, auto&& fn) {
  return DispatchNumeric(d, op, fn);
};
const auto kFloat = [](DType d, const std::string& op, auto&& fn) {
  return DispatchFloat(d, op, fn);
};

// Negation that wraps for the most negative integer instead of overflowing.
template <typename T>
T WrappingNegate(T x) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(U{0} - static_cast<U>(x)));
  } else {
    return -x;
  }
}

Status ReluKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                  std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  return MapTyped(node, inputs, outputs, kNumeric, [](auto tag, auto x) {
    using T = typename decltype(tag)::type;
    return x > T(0) ? x : T(0);
  });
}

// Clip: bounds from attributes before opset 11, from optional scalar inputs since.
Status ClipKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                  std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  const std::string label = NodeLabel(node);
  if (OpsetBefore(node, 11)) {
    IOS_ASSIGN_OR_RETURN(float lo,
                         node.attrs.GetFloat("min", std::numeric_limits<float>::lowest()));
    IOS_ASSIGN_OR_RETURN(float hi, node.attrs.GetFloat("max", std::numeric_limits<float>::max()));
    if (lo > hi) lo = hi;  // ONNX: every value becomes max
    return MapFloatInDouble(node, inputs, outputs, [&](double v) {
      return ApplyActivation<double>(ActivationKind::kClip, lo, hi, v);
    });
  }
  const Tensor* min_input = OptionalInput(inputs, 1);
  const Tensor* max_input = OptionalInput(inputs, 2);
  for (const Tensor* bound : {min_input, max_input}) {
    if (bound == nullptr) continue;
    if (bound->dtype() != x.dtype())
      return InvalidInput(label + "min/max must have the input's type " + DTypeName(x.dtype()));
    if (bound->num_elements() != 1) return InvalidInput(label + "min/max must be scalars");
  }
  return DispatchNumeric(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    T lo = min_input != nullptr ? min_input->data<T>()[0] : std::numeric_limits<T>::lowest();
    T hi = max_input != nullptr ? max_input->data<T>()[0] : std::numeric_limits<T>::max();
    if (lo > hi) lo = hi;
    Tensor y(x.dtype(), x.dims());
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      const T v = x.data<T>()[i];
      if constexpr (std::is_same_v<T, float>) {
        y.data<T>()[i] = ApplyActivation(ActivationKind::kClip, lo, hi, v);
      } else {
        y.data<T>()[i] = v < lo ? lo : (v > hi ? hi : v);
      }
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

Status NotKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                 std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  if (x.dtype() != DType::kBool)
    return InvalidInput(NodeLabel(node) + "input must be bool, got " + DTypeName(x.dtype()));
  Tensor y(DType::kBool, x.dims());
  for (int64_t i = 0; i < x.num_elements(); ++i)
    y.data<BoolStorage>()[i] = x.data<BoolStorage>()[i] ? 0 : 1;
  (*outputs)[0] = std::move(y);
  return Status::Ok();
}

// A float32/float64 unary op computed in double.
template <typename Fn>
ReferenceKernel MakeFloatUnaryKernel(Fn fn) {
  return [fn](const Node& node, const std::vector<const Tensor*>& inputs,
              std::vector<Tensor>* outputs) -> Status {
    return MapTyped(node, inputs, outputs, kFloat, [&](auto tag, auto x) {
      using T = typename decltype(tag)::type;
      return static_cast<T>(fn(static_cast<double>(x)));
    });
  };
}

// Gelu in double: 0.5 x (1 + erf(x / sqrt(2))), or with approximate="tanh"
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
Status GeluKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                  std::vector<Tensor>* outputs) {
  IOS_ASSIGN_OR_RETURN(std::string approximate, node.attrs.GetString("approximate", "none"));
  if (approximate != "none" && approximate != "tanh")
    return InvalidInput(NodeLabel(node) + "attribute 'approximate' is '" + approximate +
                        "'; expected 'none' or 'tanh'");
  const bool tanh_form = approximate == "tanh";
  return MapTyped(node, inputs, outputs, kFloat, [tanh_form](auto tag, auto value) {
    using T = typename decltype(tag)::type;
    const double x = static_cast<double>(value);
    const double pi = std::acos(-1.0);
    const double inner = tanh_form ? std::tanh(std::sqrt(2.0 / pi) * (x + 0.044715 * x * x * x))
                                   : std::erf(x / std::sqrt(2.0));
    return static_cast<T>(0.5 * x * (1.0 + inner));
  });
}

}  // namespace

void AddActivationReferenceKernels(ReferenceKernelTable& table) {
  table["Relu"] = ReluKernel;
  table["LeakyRelu"] =
      MakeActivationKernel(ActivationKind::kLeakyRelu, "alpha", 0.01f, nullptr, 0.f);
  table["Clip"] = ClipKernel;
  table["Sigmoid"] = MakeActivationKernel(ActivationKind::kSigmoid, nullptr, 0.f, nullptr, 0.f);
  table["Tanh"] = MakeActivationKernel(ActivationKind::kTanh, nullptr, 0.f, nullptr, 0.f);
  table["HardSigmoid"] =
      MakeActivationKernel(ActivationKind::kHardSigmoid, "alpha", 0.2f, "beta", 0.5f);
  table["HardSwish"] = MakeActivationKernel(ActivationKind::kHardSwish, nullptr, 0.f, nullptr, 0.f);
  table["Elu"] = MakeActivationKernel(ActivationKind::kElu, "alpha", 1.0f, nullptr, 0.f);
  table["Softplus"] = MakeActivationKernel(ActivationKind::kSoftplus, nullptr, 0.f, nullptr, 0.f);
  table["Mish"] = MakeActivationKernel(ActivationKind::kMish, nullptr, 0.f, nullptr, 0.f);
  // Selu's gamma travels as beta; the defaults are the float32 values of SELU's constants.
  table["Selu"] = MakeActivationKernel(ActivationKind::kSelu, "alpha", 1.67326319217681884765625f,
                                       "gamma", 1.05070102214813232421875f);
  table["Celu"] = MakeActivationKernel(ActivationKind::kCelu, "alpha", 1.0f, nullptr, 0.f);
  table["Softsign"] = MakeActivationKernel(ActivationKind::kSoftsign, nullptr, 0.f, nullptr, 0.f);
  table["ThresholdedRelu"] =
      MakeActivationKernel(ActivationKind::kThresholdedRelu, "alpha", 1.0f, nullptr, 0.f);

  table["Neg"] = [](const Node& node, const std::vector<const Tensor*>& inputs,
                    std::vector<Tensor>* outputs) {
    return MapTyped(node, inputs, outputs, kNumeric,
                    [](auto, auto x) { return WrappingNegate(x); });
  };
  table["Abs"] = [](const Node& node, const std::vector<const Tensor*>& inputs,
                    std::vector<Tensor>* outputs) {
    return MapTyped(node, inputs, outputs, kNumeric, [](auto tag, auto x) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_signed_v<T>) return x < T(0) ? WrappingNegate(x) : x;
      return x;
    });
  };
  table["Sign"] = [](const Node& node, const std::vector<const Tensor*>& inputs,
                     std::vector<Tensor>* outputs) {
    return MapTyped(node, inputs, outputs, kNumeric, [](auto tag, auto x) {
      using T = typename decltype(tag)::type;
      // NaN stays NaN (neither comparison holds), as onnxruntime and numpy give.
      return x > T(0) ? T(1) : x < T(0) ? static_cast<T>(-1) : x == T(0) ? T(0) : x;
    });
  };
  table["Sqrt"] = MakeFloatUnaryKernel([](double x) { return std::sqrt(x); });
  table["Exp"] = MakeFloatUnaryKernel([](double x) { return std::exp(x); });
  table["Log"] = MakeFloatUnaryKernel([](double x) { return std::log(x); });
  table["Floor"] = MakeFloatUnaryKernel([](double x) { return std::floor(x); });
  table["Ceil"] = MakeFloatUnaryKernel([](double x) { return std::ceil(x); });
  table["Reciprocal"] = MakeFloatUnaryKernel([](double x) { return 1.0 / x; });
  table["Erf"] = MakeFloatUnaryKernel([](double x) { return std::erf(x); });
  table["Gelu"] = GeluKernel;
  table["Not"] = NotKernel;
}

}  // namespace ios
