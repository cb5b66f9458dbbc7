// The parameters of the reductions (ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd,
// ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSumExp) and of ArgMax/ArgMin, read from a node
// once for shape inference, the reference kernels and every backend's kernel factory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "kernels/math/reduction_math.h"
#include "util/status.h"

namespace ios {

// The reduction an op type computes; nullopt for any other op.
std::optional<ReduceKind> ReduceKindOf(const std::string& op_type);

// The opset from which a reduction takes `axes` as its optional input 1 instead of an
// attribute: 13 for ReduceSum, 18 for the others.
int64_t ReduceAxesInputSince(const std::string& op_type);

struct ReduceParams {
  ReduceKind kind = ReduceKind::kMean;
  // No axes with noop_with_empty_axes=1: the output is the input, unchanged.
  bool identity = false;
  std::vector<bool> reduced;  // per input dim
  Dims out_dims;              // the reduced dims kept as 1s with keepdims=1, dropped otherwise
};

// Reads a reduction node over an input of dims `in`. `axes_present` says whether input 1 is
// given (and not omitted); `axes_constant` is its value when known (null when computed at run
// time, which is Unsupported). Axes come from the attribute before ReduceAxesInputSince and
// from input 1 since (the other form is InvalidInput, naming the opset); no axes (absent or
// empty) reduce every dim unless noop_with_empty_axes=1. Axes out of range or repeated are
// InvalidInput.
StatusOr<ReduceParams> ParseReduce(const Node& node, const Dims& in, bool axes_present,
                                   const Tensor* axes_constant);

struct ArgReduceParams {
  bool is_max = true;
  bool select_last_index = false;
  int64_t axis = 0;
  Dims out_dims;  // int64; the axis kept as 1 with keepdims=1, dropped otherwise
};

// Reads an ArgMax or ArgMin node over an input of dims `in`: `axis` (default 0, in
// [-rank, rank)), keepdims (default 1) and, from opset 12, select_last_index (default 0). An
// empty axis (size 0) has no index to give and is InvalidInput.
StatusOr<ArgReduceParams> ParseArgReduce(const Node& node, const Dims& in);

}  // namespace ios
