// Reference reductions (ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
// ReduceL2, ReduceSumSquare, ReduceLogSumExp) and ArgMax/ArgMin. The node is read by the
// parsers every backend shares (ops/reduce_params.h); the arithmetic is ONNX's formulas in
// double, written here independently of the kernels' shared math (kernels/math/reduction_math.h).
// Max and Min compare in the element type and let a NaN through, as numpy does. A reduction over
// nothing gives 0 (sums), 1 (Prod), NaN (Mean), and for Max, Min and LogSumExp the type's
// lowest or highest value (-inf and +inf for floats; false and true for bool, which ReduceMax
// and ReduceMin take from opset 20).
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"
#include "ops/reduce_params.h"

namespace ios {
namespace {

// For every element of x (row-major), the offset of the output element it reduces into.
std::vector<int64_t> OutputOffsets(const Dims& dims, const std::vector<bool>& reduced) {
  Dims kept_dims(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) kept_dims[d] = reduced[d] ? 1 : dims[d];
  const Dims kept_strides = RowMajorStrides(kept_dims);
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<size_t>(NumElements(dims)));
  ForEachIndex(dims, [&](const Dims& index) {
    int64_t offset = 0;
    for (size_t d = 0; d < dims.size(); ++d)
      if (!reduced[d]) offset += index[d] * kept_strides[d];
    offsets.push_back(offset);
  });
  return offsets;
}

// Max or Min in the element type; for bool (opset 20), any and all.
template <typename T>
void ExtremeOf(bool is_max, bool is_bool, const T* x, const std::vector<int64_t>& offsets, T* y,
               int64_t out_count) {
  T start = is_max ? (std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest())
                   : (std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::max());
  if (is_bool) start = is_max ? T(0) : T(1);
  for (int64_t o = 0; o < out_count; ++o) y[o] = start;
  for (size_t i = 0; i < offsets.size(); ++i) {
    T& acc = y[offsets[i]];
    const T v = x[i];
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(acc)) continue;  // a NaN stays
      if (std::isnan(v)) {
        acc = v;
        continue;
      }
    }
    if (is_max ? v > acc : v < acc) acc = v;
  }
}

// Every other reduction, accumulated in double.
template <typename T>
void AccumulateOf(ReduceKind kind, const T* x, const std::vector<int64_t>& offsets, T* y,
                  int64_t out_count) {
  const size_t outs = static_cast<size_t>(out_count);
  std::vector<double> acc(outs, kind == ReduceKind::kProd ? 1.0 : 0.0);
  std::vector<int64_t> count(outs, 0);
  std::vector<double> max_value(outs, -INFINITY);
  if (kind == ReduceKind::kLogSumExp) {
    for (size_t i = 0; i < offsets.size(); ++i) {
      const double v = static_cast<double>(x[i]);
      double& m = max_value[offsets[i]];
      if (!std::isnan(m) && (std::isnan(v) || v > m)) m = v;
    }
  }
  for (size_t i = 0; i < offsets.size(); ++i) {
    const double v = static_cast<double>(x[i]);
    const size_t o = static_cast<size_t>(offsets[i]);
    ++count[o];
    switch (kind) {
      case ReduceKind::kProd:
        acc[o] *= v;
        break;
      case ReduceKind::kL1:
        acc[o] += std::fabs(v);
        break;
      case ReduceKind::kL2:
      case ReduceKind::kSumSquare:
        acc[o] += v * v;
        break;
      case ReduceKind::kLogSumExp:
        acc[o] += std::exp(v - max_value[o]);
        break;
      default:
        acc[o] += v;
    }
  }
  for (size_t o = 0; o < outs; ++o) {
    double result = acc[o];
    switch (kind) {
      case ReduceKind::kMean:
        result = count[o] > 0 ? acc[o] / static_cast<double>(count[o]) : NAN;
        break;
      case ReduceKind::kL2:
        result = std::sqrt(acc[o]);
        break;
      case ReduceKind::kLogSumExp:
        // log(sum(exp(x))) = max + log(sum(exp(x - max))); a max of +-inf or NaN is the answer.
        result = std::isfinite(max_value[o]) ? max_value[o] + std::log(acc[o]) : max_value[o];
        break;
      default:
        break;
    }
    y[o] = ConvertElement<T>(result);
  }
}

// ReduceMean, ReduceSum, ... : axes as the node's opset has them (attribute, or the optional
// input 1); integer means and sums convert back to the integer type as Cast does.
Status ReduceKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                    std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  const Tensor* axes = OptionalInput(inputs, 1);
  StatusOr<ReduceParams> parsed = ParseReduce(node, x.dims(), axes != nullptr, axes);
  if (!parsed.ok())
    return Status(parsed.status().code(), NodeLabel(node) + parsed.status().message());
  const ReduceParams& params = parsed.value();
  if (params.identity) {
    (*outputs)[0] = x;
    return Status::Ok();
  }
  const std::vector<int64_t> offsets = OutputOffsets(x.dims(), params.reduced);
  const bool extreme = params.kind == ReduceKind::kMax || params.kind == ReduceKind::kMin;
  if (x.dtype() == DType::kBool && !extreme)
    return Unsupported(NodeLabel(node) + "element type bool (only ReduceMax and ReduceMin)");
  return DispatchNumericOrBool(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    Tensor y(x.dtype(), params.out_dims);
    if (extreme) {
      ExtremeOf(params.kind == ReduceKind::kMax, x.dtype() == DType::kBool, x.data<T>(), offsets,
                y.data<T>(), y.num_elements());
    } else {
      AccumulateOf(params.kind, x.data<T>(), offsets, y.data<T>(), y.num_elements());
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

// ArgMax / ArgMin along `axis`: the index of the first extreme (the last with
// select_last_index), compared in double; NaN is never picked but as the first element.
Status ArgReduceKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                       std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  StatusOr<ArgReduceParams> parsed = ParseArgReduce(node, x.dims());
  if (!parsed.ok())
    return Status(parsed.status().code(), NodeLabel(node) + parsed.status().message());
  const ArgReduceParams& params = parsed.value();
  const Dims& dims = x.dims();
  const int64_t outer = NumElements(Dims(dims.begin(), dims.begin() + params.axis));
  const int64_t length = dims[params.axis];
  const int64_t inner = NumElements(Dims(dims.begin() + params.axis + 1, dims.end()));
  return DispatchNumeric(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* xd = x.data<T>();
    Tensor y(DType::kInt64, params.out_dims);
    int64_t* yd = y.data<int64_t>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * length * inner + i;
        int64_t best = 0;
        double best_value = static_cast<double>(xd[base]);
        for (int64_t j = 1; j < length; ++j) {
          const double v = static_cast<double>(xd[base + j * inner]);
          const bool better = params.is_max
                                  ? (params.select_last_index ? v >= best_value : v > best_value)
                                  : (params.select_last_index ? v <= best_value : v < best_value);
          if (better) {
            best = j;
            best_value = v;
          }
        }
        yd[o * inner + i] = best;
      }
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

}  // namespace

void AddReductionReferenceKernels(ReferenceKernelTable& table) {
  for (const char* op_type : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                              "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp"})
    table[op_type] = ReduceKernel;
  table["ArgMax"] = ArgReduceKernel;
  table["ArgMin"] = ArgReduceKernel;
}

}  // namespace ios
