// Reference elementwise ops with multidirectional (numpy) broadcasting: arithmetic, Mod, Pow,
// variadic Min/Max/Sum/Mean, comparisons, Where and PRelu.
#include <cmath>
#include <string>
#include <type_traits>

#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"

namespace ios {
namespace {

// Integer arithmetic that wraps (via the unsigned type) instead of overflowing.
template <typename T>
T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename T>
T WrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <typename T>
T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

// out[i] = fn(a[ia], b[ib]) over the broadcast shape of a and b, whose C++ element types are
// TA and TB; the output has dtype out_dtype and C++ type TOut.
template <typename TA, typename TB, typename TOut, typename Fn>
StatusOr<Tensor> BroadcastBinary(const Node& node, const Tensor& a, const Tensor& b,
                                 DType out_dtype, Fn fn) {
  IOS_ASSIGN_OR_RETURN(Dims out_dims, BroadcastShapes(node, {a.dims(), b.dims()}));
  Tensor out(out_dtype, out_dims);
  BroadcastIterator it(out_dims, {a.dims(), b.dims()});
  const TA* ad = a.data<TA>();
  const TB* bd = b.data<TB>();
  TOut* od = out.data<TOut>();
  for (int64_t i = 0; i < out.num_elements(); ++i, it.Next())
    od[i] = fn(ad[it.offset(0)], bd[it.offset(1)]);
  return out;
}

Status RequireSameDType(const Node& node, const std::vector<const Tensor*>& inputs) {
  for (const Tensor* t : inputs) {
    if (t->dtype() != inputs[0]->dtype())
      return InvalidInput(NodeLabel(node) + "inputs must share one element type, got " +
                          DTypeName(inputs[0]->dtype()) + " and " + DTypeName(t->dtype()));
  }
  return Status::Ok();
}

// Checks that inputs [0, count) are present and share a dtype, and that there is an output.
Status CheckInputs(const Node& node, const std::vector<const Tensor*>& inputs, size_t count) {
  std::vector<const Tensor*> present;
  for (size_t i = 0; i < count; ++i) {
    IOS_RETURN_IF_ERROR(RequireInput(node, inputs, i));
    present.push_back(inputs[i]);
  }
  return RequireSameDType(node, present);
}

enum class Arith { kAdd, kSub, kMul, kDiv };

// Add, Sub, Mul, Div. Integer division truncates toward zero (C, and onnxruntime); an integer
// division by zero is an InvalidInput error.
Status ArithmeticKernel(Arith op, const Node& node, const std::vector<const Tensor*>& inputs,
                        std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(CheckInputs(node, inputs, 2));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& a = *inputs[0];
  const Tensor& b = *inputs[1];
  return DispatchNumeric(a.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    bool divided_by_zero = false;
    auto fn = [&](T x, T y) -> T {
      switch (op) {
        case Arith::kAdd:
          return WrapAdd(x, y);
        case Arith::kSub:
          return WrapSub(x, y);
        case Arith::kMul:
          return WrapMul(x, y);
        case Arith::kDiv:
          if constexpr (std::is_integral_v<T>) {
            if (y == 0) {
              divided_by_zero = true;
              return 0;
            }
            if constexpr (std::is_signed_v<T>) {
              if (y == T(-1)) return WrapSub(T(0), x);  // INT_MIN / -1 wraps
            }
          }
          return static_cast<T>(x / y);
      }
      return T(0);
    };
    IOS_ASSIGN_OR_RETURN(Tensor out, (BroadcastBinary<T, T, T>(node, a, b, a.dtype(), fn)));
    if (divided_by_zero) return InvalidInput(NodeLabel(node) + "integer division by zero");
    (*outputs)[0] = std::move(out);
    return Status::Ok();
  });
}

// Mod. fmod=1: C's fmod, the remainder with the dividend's sign. fmod=0: the remainder with
// the divisor's sign, as numpy's mod (for floats: a zero takes the divisor's sign, x mod ±inf
// is x or ±inf, mod 0 is NaN). An integer remainder by zero is an InvalidInput error.
Status ModKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                 std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(CheckInputs(node, inputs, 2));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  IOS_ASSIGN_OR_RETURN(int64_t fmod, node.attrs.GetInt("fmod", 0));
  if (fmod != 0 && fmod != 1) return InvalidInput(NodeLabel(node) + "fmod must be 0 or 1");
  const Tensor& a = *inputs[0];
  const Tensor& b = *inputs[1];
  return DispatchNumeric(a.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    bool divided_by_zero = false;
    auto fn = [&](T x, T y) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        T r = std::fmod(x, y);
        if (fmod == 1 || y == 0 || std::isnan(r)) return r;
        if (r == 0) return std::copysign(T(0), y);
        return (r < 0) != (y < 0) ? static_cast<T>(r + y) : r;
      } else {
        if (y == 0) {
          divided_by_zero = true;
          return 0;
        }
        if constexpr (std::is_signed_v<T>) {
          if (y == T(-1)) return 0;  // also INT_MIN % -1, which C leaves undefined
        }
        T r = static_cast<T>(x % y);
        if constexpr (std::is_signed_v<T>) {
          if (fmod == 0 && r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
        }
        return r;
      }
    };
    IOS_ASSIGN_OR_RETURN(Tensor out, (BroadcastBinary<T, T, T>(node, a, b, a.dtype(), fn)));
    if (divided_by_zero) return InvalidInput(NodeLabel(node) + "integer remainder by zero");
    (*outputs)[0] = std::move(out);
    return Status::Ok();
  });
}

// Pow: the output has the base's type; the exponent may have any numeric type.
Status PowKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                 std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 1));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& a = *inputs[0];
  const Tensor& b = *inputs[1];
  return DispatchNumeric(a.dtype(), node.op_type, [&](auto base_tag) -> Status {
    using T = typename decltype(base_tag)::type;
    return DispatchNumeric(b.dtype(), node.op_type, [&](auto exp_tag) -> Status {
      using E = typename decltype(exp_tag)::type;
      auto fn = [](T x, E y) -> T {
        return ConvertElement<T>(std::pow(static_cast<double>(x), static_cast<double>(y)));
      };
      IOS_ASSIGN_OR_RETURN(Tensor out, (BroadcastBinary<T, E, T>(node, a, b, a.dtype(), fn)));
      (*outputs)[0] = std::move(out);
      return Status::Ok();
    });
  });
}

enum class Variadic { kMin, kMax, kSum, kMean };

// Min, Max, Sum, Mean over one or more inputs, folded pairwise with broadcasting.
Status VariadicKernel(Variadic op, const Node& node, const std::vector<const Tensor*>& inputs,
                      std::vector<Tensor>* outputs) {
  if (inputs.empty()) return InvalidInput(NodeLabel(node) + "needs at least one input");
  IOS_RETURN_IF_ERROR(CheckInputs(node, inputs, inputs.size()));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  auto dispatch = [&](auto&& fn) {
    return op == Variadic::kMean ? DispatchFloat(inputs[0]->dtype(), node.op_type, fn)
                                 : DispatchNumeric(inputs[0]->dtype(), node.op_type, fn);
  };
  return dispatch([&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    auto fn = [op](T x, T y) -> T {
      switch (op) {
        case Variadic::kMin:
          return y < x ? y : x;
        case Variadic::kMax:
          return y > x ? y : x;
        case Variadic::kSum:
        case Variadic::kMean:
          return WrapAdd(x, y);
      }
      return x;
    };
    Tensor acc = *inputs[0];
    for (size_t i = 1; i < inputs.size(); ++i) {
      IOS_ASSIGN_OR_RETURN(acc, (BroadcastBinary<T, T, T>(node, acc, *inputs[i], acc.dtype(), fn)));
    }
    if (op == Variadic::kMean) {
      for (int64_t i = 0; i < acc.num_elements(); ++i)
        acc.data<T>()[i] = static_cast<T>(acc.data<T>()[i] / static_cast<T>(inputs.size()));
    }
    (*outputs)[0] = std::move(acc);
    return Status::Ok();
  });
}

enum class Compare { kEqual, kLess, kGreater };

// Equal, Less, Greater: a bool output. Equal also accepts bool inputs.
Status CompareKernel(Compare op, const Node& node, const std::vector<const Tensor*>& inputs,
                     std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(CheckInputs(node, inputs, 2));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& a = *inputs[0];
  const Tensor& b = *inputs[1];
  auto body = [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    auto fn = [op](T x, T y) -> BoolStorage {
      switch (op) {
        case Compare::kEqual:
          return x == y;
        case Compare::kLess:
          return x < y;
        case Compare::kGreater:
          return x > y;
      }
      return 0;
    };
    IOS_ASSIGN_OR_RETURN(Tensor out,
                         (BroadcastBinary<T, T, BoolStorage>(node, a, b, DType::kBool, fn)));
    (*outputs)[0] = std::move(out);
    return Status::Ok();
  };
  if (op == Compare::kEqual) return DispatchNumericOrBool(a.dtype(), node.op_type, body);
  return DispatchNumeric(a.dtype(), node.op_type, body);
}

// Where(cond, X, Y): X where cond is true, else Y, with three-way broadcasting.
Status WhereKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                   std::vector<Tensor>* outputs) {
  for (size_t i = 0; i < 3; ++i) IOS_RETURN_IF_ERROR(RequireInput(node, inputs, i));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& cond = *inputs[0];
  const Tensor& x = *inputs[1];
  const Tensor& y = *inputs[2];
  if (cond.dtype() != DType::kBool)
    return InvalidInput(NodeLabel(node) + "condition must be bool, got " + DTypeName(cond.dtype()));
  IOS_RETURN_IF_ERROR(RequireSameDType(node, {&x, &y}));
  IOS_ASSIGN_OR_RETURN(Dims out_dims, BroadcastShapes(node, {cond.dims(), x.dims(), y.dims()}));
  return DispatchNumericOrBool(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    Tensor out(x.dtype(), out_dims);
    BroadcastIterator it(out_dims, {cond.dims(), x.dims(), y.dims()});
    for (int64_t i = 0; i < out.num_elements(); ++i, it.Next()) {
      out.data<T>()[i] = cond.data<BoolStorage>()[it.offset(0)] ? x.data<T>()[it.offset(1)]
                                                                : y.data<T>()[it.offset(2)];
    }
    (*outputs)[0] = std::move(out);
    return Status::Ok();
  });
}

// PRelu: slope * x where x < 0, else x. The slope broadcasts to X's shape (one way only), so
// the output keeps X's shape.
Status PReluKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                   std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(CheckInputs(node, inputs, 2));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  const Tensor& slope = *inputs[1];
  IOS_ASSIGN_OR_RETURN(Dims out_dims, BroadcastShapes(node, {x.dims(), slope.dims()}));
  if (out_dims != x.dims())
    return InvalidInput(NodeLabel(node) + "slope " + DimsToString(slope.dims()) +
                        " does not broadcast to the input's shape " + DimsToString(x.dims()));
  return DispatchNumeric(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    auto fn = [](T v, T s) -> T { return v < T(0) ? WrapMul(s, v) : v; };
    IOS_ASSIGN_OR_RETURN(Tensor out, (BroadcastBinary<T, T, T>(node, x, slope, x.dtype(), fn)));
    (*outputs)[0] = std::move(out);
    return Status::Ok();
  });
}

template <typename Op, typename Fn>
ReferenceKernel Bind(Fn fn, Op op) {
  return [fn, op](const Node& node, const std::vector<const Tensor*>& inputs,
                  std::vector<Tensor>* outputs) { return fn(op, node, inputs, outputs); };
}

}  // namespace

void AddElementwiseReferenceKernels(ReferenceKernelTable& table) {
  table["Add"] = Bind(ArithmeticKernel, Arith::kAdd);
  table["Sub"] = Bind(ArithmeticKernel, Arith::kSub);
  table["Mul"] = Bind(ArithmeticKernel, Arith::kMul);
  table["Div"] = Bind(ArithmeticKernel, Arith::kDiv);
  table["Mod"] = ModKernel;
  table["Pow"] = PowKernel;
  table["Min"] = Bind(VariadicKernel, Variadic::kMin);
  table["Max"] = Bind(VariadicKernel, Variadic::kMax);
  table["Sum"] = Bind(VariadicKernel, Variadic::kSum);
  table["Mean"] = Bind(VariadicKernel, Variadic::kMean);
  table["Equal"] = Bind(CompareKernel, Compare::kEqual);
  table["Less"] = Bind(CompareKernel, Compare::kLess);
  table["Greater"] = Bind(CompareKernel, Compare::kGreater);
  table["Where"] = WhereKernel;
  table["PRelu"] = PReluKernel;
}

}  // namespace ios
