// Index and element math of Softmax and LogSoftmax, the reductions (ReduceMean, ReduceMax, ...,
// ArgMax, ArgMin), BatchNormalization and LayerNormalization,
// shared by the CUDA kernels (and, for LayerNormalization's statistics, the CPU kernel) and their
// host tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/math/host_device.h"
#include "kernels/math/index_math.h"

namespace ios {

// ---- Softmax --------------------------------------------------------------------------------

// Softmax normalises outer * inner groups of `length` elements each, `inner` apart. Since opset
// 13: outer = dims[:axis], length = dims[axis], inner = dims[axis+1:]. Before: the input is
// coerced to 2-D at axis, so length = dims[axis:] and inner = 1.
struct SoftmaxShape {
  int64_t outer = 1;
  int64_t length = 1;
  int64_t inner = 1;
};

// `axis` is already in [0, rank] (rank only with coerce_2d: every element its own row).
inline SoftmaxShape MakeSoftmaxShape(const std::vector<int64_t>& dims, int64_t axis,
                                     bool coerce_2d) {
  SoftmaxShape shape;
  for (int64_t d = 0; d < axis; ++d) shape.outer *= dims[d];
  if (coerce_2d) {
    for (size_t d = static_cast<size_t>(axis); d < dims.size(); ++d) shape.length *= dims[d];
  } else {
    shape.length = dims[axis];
    for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) shape.inner *= dims[d];
  }
  return shape;
}

// Offset of element 0 of `group` (group < outer * inner); element j is at + j * inner.
IOS_HD int64_t SoftmaxGroupBase(const SoftmaxShape& shape, int64_t group) {
  return (group / shape.inner) * shape.length * shape.inner + group % shape.inner;
}

// One output once the group's maximum and sum of exp(x - max) are known.
IOS_HD float SoftmaxValue(float x, float group_max, float group_sum) {
  return expf(x - group_max) / group_sum;
}

// LogSoftmax's output from the same two statistics: x - max - log(sum), which never takes the
// log of a rounded-to-zero exp.
IOS_HD float LogSoftmaxValue(float x, float group_max, float group_sum) {
  return x - group_max - logf(group_sum);
}

IOS_HD float SoftmaxOutput(bool log_softmax, float x, float group_max, float group_sum) {
  return log_softmax ? LogSoftmaxValue(x, group_max, group_sum)
                     : SoftmaxValue(x, group_max, group_sum);
}

// ---- ReduceMean, ReduceSum, ReduceMax, ... ---------------------------------------------------

// Output element o reduces input elements MapOffset(kept, o) + MapOffset(reduced, r) for
// r < reduced_count (the output walks the kept dims row-major, with or without keepdims).
struct ReducePlan {
  IndexMap kept;
  IndexMap reduced;
  int64_t reduced_count = 1;
};

IOS_HD int64_t ReduceInputOffset(const ReducePlan& plan, int64_t out_index, int64_t r) {
  return MapOffset(plan.kept, out_index) + MapOffset(plan.reduced, r);
}

// The mean of nothing (a reduced dimension of size 0) is NaN, as ONNX specifies: 0 / 0.
IOS_HD float MeanOf(float sum, int64_t count) { return sum / static_cast<float>(count); }

enum class ReduceKind : int32_t {
  kMean,
  kSum,
  kMax,
  kMin,
  kProd,
  kL1,
  kL2,
  kSumSquare,
  kLogSumExp,
};

IOS_HD float ReduceSqrt(float x) { return sqrtf(x); }
IOS_HD double ReduceSqrt(double x) { return sqrt(x); }
IOS_HD float ReduceLog(float x) { return logf(x); }
IOS_HD double ReduceLog(double x) { return log(x); }
IOS_HD float ReduceExp(float x) { return expf(x); }
IOS_HD double ReduceExp(double x) { return exp(x); }

// Every reduction is: acc = ReduceInit; for each element acc = ReduceCombine(acc,
// ReduceTerm(x, shift)); out = ReduceFinish(acc, count, shift). Partial accumulators combine
// with ReduceCombine too, in any order (a block reduction). Only LogSumExp uses `shift`: the
// group's maximum, found first (ReduceNeedsShift), so that exp never overflows. The kernels run
// this in float (CUDA) or double (CPU); the reference kernels compute ONNX's formulas on their
// own. A reduction over nothing gives ONNX's values: 0 (sums), 1 (Prod), -inf (Max,
// LogSumExp), +inf (Min), NaN (Mean).
IOS_HD bool ReduceNeedsShift(ReduceKind kind) { return kind == ReduceKind::kLogSumExp; }

template <typename T>
IOS_HD T ReduceInit(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kMax:
      return -static_cast<T>(INFINITY);
    case ReduceKind::kMin:
      return static_cast<T>(INFINITY);
    case ReduceKind::kProd:
      return T(1);
    default:
      return T(0);
  }
}

template <typename T>
IOS_HD T ReduceTerm(ReduceKind kind, T x, T shift) {
  switch (kind) {
    case ReduceKind::kL1:
      return x < T(0) ? -x : x;
    case ReduceKind::kL2:
    case ReduceKind::kSumSquare:
      return x * x;
    case ReduceKind::kLogSumExp:
      return ReduceExp(x - shift);
    default:
      return x;
  }
}

// Max and Min let a NaN through, as numpy's max does (b != b only for NaN).
template <typename T>
IOS_HD T ReduceCombine(ReduceKind kind, T a, T b) {
  switch (kind) {
    case ReduceKind::kMax:
      return (b > a || b != b) ? b : a;
    case ReduceKind::kMin:
      return (b < a || b != b) ? b : a;
    case ReduceKind::kProd:
      return a * b;
    default:
      return a + b;
  }
}

template <typename T>
IOS_HD T ReduceFinish(ReduceKind kind, T acc, int64_t count, T shift) {
  switch (kind) {
    case ReduceKind::kMean:
      return acc / static_cast<T>(count);
    case ReduceKind::kL2:
      return ReduceSqrt(acc);
    case ReduceKind::kLogSumExp:
      // A maximum of -inf (nothing, or only -inf), +inf or NaN is the result itself
      // (shift - shift is 0 only for a finite shift).
      return shift - shift == T(0) ? ReduceLog(acc) + shift : shift;
    default:
      return acc;
  }
}

// ---- ArgMax, ArgMin ---------------------------------------------------------------------------

// ArgMax and ArgMin walk the groups of a SoftmaxShape with coerce_2d false (outer = dims[:axis],
// length = dims[axis], inner = dims[axis+1:]); group g's element j is at
// SoftmaxGroupBase(shape, g) + j * inner, and the output is index j of group g.

// Whether `x` replaces the best so far. The first extreme wins, or the last with
// select_last_index. NaN is never picked unless it is element 0, as in a plain comparison loop.
IOS_HD bool ArgBetter(bool is_max, bool select_last, float x, float best) {
  if (is_max) return select_last ? x >= best : x > best;
  return select_last ? x <= best : x < best;
}

// `reduced[d]` marks the reduced dims of `in`. False when a map needs too many dims.
inline bool BuildReducePlan(const std::vector<int64_t>& in, const std::vector<bool>& reduced,
                            ReducePlan* plan) {
  const std::vector<int64_t> strides = DenseStrides(in);
  std::vector<int64_t> kept_dims, kept_strides, reduced_dims, reduced_strides;
  ReducePlan result;
  for (size_t d = 0; d < in.size(); ++d) {
    if (reduced[d]) {
      reduced_dims.push_back(in[d]);
      reduced_strides.push_back(strides[d]);
      result.reduced_count *= in[d];
    } else {
      kept_dims.push_back(in[d]);
      kept_strides.push_back(strides[d]);
    }
  }
  if (!BuildIndexMap(kept_dims, kept_strides, 0, &result.kept)) return false;
  if (!BuildIndexMap(reduced_dims, reduced_strides, 0, &result.reduced)) return false;
  *plan = result;
  return true;
}

// ---- BatchNormalization ---------------------------------------------------------------------

// The channel (dimension 1) of element i of an [N, C, inner...] tensor.
IOS_HD int64_t ChannelOf(int64_t i, int64_t inner, int64_t channels) {
  return (i / inner) % channels;
}

// Inference-form batch normalisation of one element.
IOS_HD float BatchNormValue(float x, float scale, float bias, float mean, float var,
                            float epsilon) {
  return scale * (x - mean) / sqrtf(var + epsilon) + bias;
}

// ---- LayerNormalization ---------------------------------------------------------------------

// X as `rows` rows of `row_size` elements: the dims before the axis index the rows, the dims
// from the axis on are normalised together. Scale and B broadcast to one row (the dims
// [axis, rank)), so row element j reads their element OperandOffset(map, j)
// (kernels/math/broadcast_math.h).
struct LayerNormShape {
  int64_t rows = 1;
  int64_t row_size = 1;
};

// `axis` is already in [0, rank).
inline LayerNormShape MakeLayerNormShape(const std::vector<int64_t>& dims, int64_t axis) {
  LayerNormShape shape;
  for (int64_t d = 0; d < axis; ++d) shape.rows *= dims[d];
  for (size_t d = static_cast<size_t>(axis); d < dims.size(); ++d) shape.row_size *= dims[d];
  return shape;
}

// The InvStdDev output from a row's variance (the mean of the squared deviations).
IOS_HD float LayerNormInvStdDev(float variance, float epsilon) {
  return 1.f / sqrtf(variance + epsilon);
}

// One output element, in the order of ONNX's definition: ((x - mean) * inv_std_dev) * scale + b.
IOS_HD float LayerNormValue(float x, float mean, float inv_std_dev, float scale, float bias) {
  return (x - mean) * inv_std_dev * scale + bias;
}

}  // namespace ios
