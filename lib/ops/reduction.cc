// The reductions over axes (ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
// ReduceL2, ReduceSumSquare, ReduceLogSumExp) and ArgMax/ArgMin. ParseReduce and
// ParseArgReduce (ops/reduce_params.h) read the attributes and opset forms for every backend.
#include <string>
#include <vector>

#include "ops/op_registry.h"
#include "ops/op_util.h"
#include "ops/reduce_params.h"

namespace ios {
namespace {

using Inputs = std::vector<InferInput>;
using Outputs = std::vector<TensorType>;

// Axes: an attribute before opset 18 (ReduceSum: 13), an optional constant input since. No axes
// reduces every axis, unless noop_with_empty_axes=1 makes the op the identity. The output keeps
// the input's type (bool only for ReduceMax and ReduceMin, as opset 20 allows).
Status InferReduce(const Node& node, const Inputs& inputs, Outputs* outputs) {
  const InferInput* axes = OptionalInput(inputs, 1);
  const bool extreme = node.op_type == "ReduceMax" || node.op_type == "ReduceMin";
  if (inputs[0].type.dtype == DType::kBool && !extreme)
    return InvalidInput("input has type bool; only ReduceMax and ReduceMin take bool");
  IOS_ASSIGN_OR_RETURN(ReduceParams params,
                       ParseReduce(node, inputs[0].type.dims, axes != nullptr,
                                   axes != nullptr ? axes->constant : nullptr));
  (*outputs)[0] = TensorType{inputs[0].type.dtype, params.out_dims};
  return Status::Ok();
}

Status InferArgReduce(const Node& node, const Inputs& inputs, Outputs* outputs) {
  IOS_ASSIGN_OR_RETURN(ArgReduceParams params, ParseArgReduce(node, inputs[0].type.dims));
  (*outputs)[0] = TensorType{DType::kInt64, params.out_dims};
  return Status::Ok();
}

// Ops per input element: one (an add, compare or multiply) for the plain reductions; two for
// L1, L2 and SumSquare (the term, then the add); four for LogSumExp (a max pass, then subtract,
// exp and add). The finishing divide, sqrt or log per output is left out.
CostFn ReduceCost(double ops_per_input) {
  return [ops_per_input](const Node& node, const Outputs& inputs, const Outputs& outputs) {
    OpCost cost;
    cost.flops = ops_per_input * static_cast<double>(NumElements(inputs[0].dims));
    cost.bytes_moved = BytesMoved(inputs, outputs);
    return cost;
  };
}

}  // namespace

void RegisterReductionOps(OpRegistry& registry) {
  const struct {
    const char* op_type;
    double ops_per_input;
  } reductions[] = {
      {"ReduceMean", 1}, {"ReduceSum", 1},       {"ReduceMax", 1},
      {"ReduceMin", 1},  {"ReduceProd", 1},      {"ReduceL1", 2},
      {"ReduceL2", 2},   {"ReduceSumSquare", 2}, {"ReduceLogSumExp", 4},
  };
  for (const auto& reduction : reductions) {
    RegisterOp(registry, OpSchema{reduction.op_type, 1, 2, 1, 1, InferReduce,
                                  ReduceCost(reduction.ops_per_input)});
  }
  for (const char* op_type : {"ArgMax", "ArgMin"})
    RegisterOp(registry, OpSchema{op_type, 1, 1, 1, 1, InferArgReduce, ReduceCost(1)});
}

}  // namespace ios
