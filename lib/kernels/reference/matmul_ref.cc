// Reference Gemm and MatMul. Floats accumulate in double; integers in int64 (wrapping).
#include <type_traits>

#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"

namespace ios {
namespace {

// The accumulator for a dot product of T values.
template <typename T>
using AccumulatorOf = std::conditional_t<std::is_integral_v<T>, int64_t, double>;

template <typename T>
AccumulatorOf<T> MultiplyAdd(AccumulatorOf<T> acc, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    // Wrap like the integer hardware would instead of overflowing (undefined behaviour).
    const uint64_t product = static_cast<uint64_t>(static_cast<int64_t>(a)) *
                             static_cast<uint64_t>(static_cast<int64_t>(b));
    return static_cast<int64_t>(static_cast<uint64_t>(acc) + product);
  } else {
    return acc + static_cast<double>(a) * static_cast<double>(b);
  }
}

// Y = alpha * op(A) * op(B) + beta * C, with op() transposing when transA/transB is set and C
// broadcast unidirectionally to [M, N].
Status GemmKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                  std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 1));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& a = *inputs[0];
  const Tensor& b = *inputs[1];
  const Tensor* c = OptionalInput(inputs, 2);
  const std::string label = NodeLabel(node);
  IOS_ASSIGN_OR_RETURN(int64_t trans_a, node.attrs.GetInt("transA", 0));
  IOS_ASSIGN_OR_RETURN(int64_t trans_b, node.attrs.GetInt("transB", 0));
  IOS_ASSIGN_OR_RETURN(float alpha, node.attrs.GetFloat("alpha", 1.f));
  IOS_ASSIGN_OR_RETURN(float beta, node.attrs.GetFloat("beta", 1.f));
  if (a.rank() != 2 || b.rank() != 2)
    return InvalidInput(label + "A " + DimsToString(a.dims()) + " and B " + DimsToString(b.dims()) +
                        " must be matrices");
  if (b.dtype() != a.dtype() || (c != nullptr && c->dtype() != a.dtype()))
    return InvalidInput(label + "A, B and C must share one element type");
  const int64_t m = trans_a ? a.dims()[1] : a.dims()[0];
  const int64_t k = trans_a ? a.dims()[0] : a.dims()[1];
  const int64_t kb = trans_b ? b.dims()[1] : b.dims()[0];
  const int64_t n = trans_b ? b.dims()[0] : b.dims()[1];
  if (k != kb)
    return InvalidInput(label + "inner dimensions differ: A " + DimsToString(a.dims()) +
                        (trans_a ? " (transposed)" : "") + ", B " + DimsToString(b.dims()) +
                        (trans_b ? " (transposed)" : ""));
  const Dims out_dims = {m, n};
  Dims c_strides;
  if (c != nullptr) {
    IOS_ASSIGN_OR_RETURN(Dims broadcast, BroadcastShapes(node, {c->dims(), out_dims}));
    if (broadcast != out_dims || c->rank() > 2)
      return InvalidInput(label + "C " + DimsToString(c->dims()) + " does not broadcast to " +
                          DimsToString(out_dims));
    c_strides = BroadcastStrides(c->dims(), out_dims);
  }

  return DispatchNumeric(a.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* ad = a.data<T>();
    const T* bd = b.data<T>();
    Tensor y(a.dtype(), out_dims);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        AccumulatorOf<T> acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          const T av = trans_a ? ad[p * m + i] : ad[i * k + p];
          const T bv = trans_b ? bd[j * k + p] : bd[p * n + j];
          acc = MultiplyAdd<T>(acc, av, bv);
        }
        const T cv = c != nullptr ? c->data<T>()[i * c_strides[0] + j * c_strides[1]] : T(0);
        T result;
        if constexpr (std::is_integral_v<T>) {
          if (alpha == 1.f && beta == 1.f) {
            result = ConvertElement<T>(static_cast<int64_t>(static_cast<uint64_t>(acc) +
                                                            static_cast<uint64_t>(int64_t{cv})));
          } else {
            result = ConvertElement<T>(alpha * static_cast<double>(acc) +
                                       beta * static_cast<double>(cv));
          }
        } else {
          result = static_cast<T>(static_cast<double>(alpha) * acc +
                                  static_cast<double>(beta) * static_cast<double>(cv));
        }
        y.data<T>()[i * n + j] = result;
      }
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

// MatMul with numpy semantics: a 1-D A gains a leading 1 and a 1-D B a trailing 1 (both
// removed from the result), and the batch dimensions broadcast.
Status MatMulKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                    std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 1));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& a = *inputs[0];
  const Tensor& b = *inputs[1];
  const std::string label = NodeLabel(node);
  if (a.rank() < 1 || b.rank() < 1) return InvalidInput(label + "operands must not be scalars");
  if (a.dtype() != b.dtype()) return InvalidInput(label + "A and B must share one element type");
  Dims a_dims = a.dims();
  Dims b_dims = b.dims();
  if (a.rank() == 1) a_dims.insert(a_dims.begin(), 1);
  if (b.rank() == 1) b_dims.push_back(1);
  const int64_t m = a_dims[a_dims.size() - 2];
  const int64_t k = a_dims.back();
  const int64_t n = b_dims.back();
  if (b_dims[b_dims.size() - 2] != k)
    return InvalidInput(label + "inner dimensions differ: " + DimsToString(a.dims()) + " x " +
                        DimsToString(b.dims()));
  const Dims a_batch(a_dims.begin(), a_dims.end() - 2);
  const Dims b_batch(b_dims.begin(), b_dims.end() - 2);
  IOS_ASSIGN_OR_RETURN(Dims batch, BroadcastShapes(node, {a_batch, b_batch}));
  Dims out_dims = batch;
  if (a.rank() > 1) out_dims.push_back(m);
  if (b.rank() > 1) out_dims.push_back(n);

  return DispatchNumeric(a.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    Tensor y(a.dtype(), out_dims);
    const T* ad = a.data<T>();
    const T* bd = b.data<T>();
    T* yd = y.data<T>();
    BroadcastIterator it(batch, {a_batch, b_batch});
    const int64_t batch_count = NumElements(batch);
    for (int64_t bi = 0; bi < batch_count; ++bi, it.Next()) {
      const T* am = ad + it.offset(0) * m * k;
      const T* bm = bd + it.offset(1) * k * n;
      T* ym = yd + bi * m * n;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          AccumulatorOf<T> acc = 0;
          for (int64_t p = 0; p < k; ++p) acc = MultiplyAdd<T>(acc, am[i * k + p], bm[p * n + j]);
          ym[i * n + j] = ConvertElement<T>(acc);
        }
      }
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

}  // namespace

void AddMatmulReferenceKernels(ReferenceKernelTable& table) {
  table["Gemm"] = GemmKernel;
  table["MatMul"] = MatMulKernel;
}

}  // namespace ios
