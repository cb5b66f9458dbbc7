// Elementwise ops with numpy (multidirectional) broadcasting: arithmetic (Mod too), variadic
// reductions across inputs (Sum, Mean, Min, Max), comparisons and Where; and PRelu, whose slope
// broadcasts one way.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/op_registry.h"
#include "ops/op_util.h"

namespace ios {
namespace {

enum class ResultType {
  kSameAsInput,  // arithmetic: the (common) input type
  kBool,         // comparisons
};

// Opset < 7 broadcast with an explicit `axis` aligns the second input at that axis rather than
// at the right end, which is not numpy broadcasting.
Status CheckLegacyBroadcast(const Node& node) {
  if (node.opset < 7 && node.attrs.Has("axis")) {
    return Unsupported("legacy broadcasting with attribute 'axis' (opset < 7) is not supported");
  }
  return Status::Ok();
}

// `same_dtype`: every input must share input 0's type (Pow's exponent may differ).
InferFn BroadcastInfer(ResultType result, bool same_dtype) {
  return [result, same_dtype](const Node& node, const std::vector<InferInput>& inputs,
                              std::vector<TensorType>* outputs) {
    IOS_RETURN_IF_ERROR(CheckLegacyBroadcast(node));
    if (same_dtype) IOS_RETURN_IF_ERROR(CheckSameDType(inputs));
    IOS_ASSIGN_OR_RETURN(Dims dims, BroadcastInputs(inputs));
    const DType dtype = result == ResultType::kBool ? DType::kBool : inputs[0].type.dtype;
    (*outputs)[0] = TensorType{dtype, dims};
    return Status::Ok();
  };
}

Status InferWhere(const Node& node, const std::vector<InferInput>& inputs,
                  std::vector<TensorType>* outputs) {
  if (inputs[0].type.dtype != DType::kBool) {
    return InvalidInput("condition has type " + DTypeName(inputs[0].type.dtype) +
                        "; Where needs bool");
  }
  IOS_RETURN_IF_ERROR(CheckSameDType({inputs[1], inputs[2]}));
  IOS_ASSIGN_OR_RETURN(Dims dims, BroadcastInputs(inputs));
  (*outputs)[0] = TensorType{inputs[1].type.dtype, dims};
  return Status::Ok();
}

// Mod: fmod=0 takes the divisor's sign (Python's and numpy's %), fmod=1 the dividend's (C's
// fmod). ONNX's text asks fmod=1 for floats, but its newer node tests define a float fmod=0
// as numpy's mod, which ios follows.
Status InferMod(const Node& node, const std::vector<InferInput>& inputs,
                std::vector<TensorType>* outputs) {
  IOS_ASSIGN_OR_RETURN(int64_t fmod, node.attrs.GetInt("fmod", 0));
  if (fmod != 0 && fmod != 1)
    return InvalidInput("fmod=" + std::to_string(fmod) + "; expected 0 or 1");
  return BroadcastInfer(ResultType::kSameAsInput, true)(node, inputs, outputs);
}

// PRelu (opsets 7, 9, 16): the slope broadcasts to X's shape (unidirectionally), which the
// output keeps. Older exports' per-channel slope [C] against NCHW is therefore an error unless
// it happens to line up with the last axis, as in onnxruntime.
Status InferPRelu(const Node& node, const std::vector<InferInput>& inputs,
                  std::vector<TensorType>* outputs) {
  IOS_RETURN_IF_ERROR(CheckSameDType(inputs));
  const Dims& x = inputs[0].type.dims;
  const Dims& slope = inputs[1].type.dims;
  StatusOr<Dims> both = BroadcastDims(x, slope);
  if (!both.ok() || both.value() != x)
    return InvalidInput("slope has shape " + DimsToString(slope) +
                        ", which does not broadcast to the input's shape " + DimsToString(x) +
                        " (PRelu broadcasts the slope one way: numpy rules, aligned right)");
  (*outputs)[0] = inputs[0].type;
  return Status::Ok();
}

// n inputs combine with n - 1 ops per output element (at least one, for a single input).
OpCost VariadicCost(const Node& node, const std::vector<TensorType>& inputs,
                    const std::vector<TensorType>& outputs) {
  const double ops = std::max<double>(1, static_cast<double>(inputs.size()) - 1);
  return PerOutputElementCost(inputs, outputs, ops);
}

}  // namespace

void RegisterElementwiseOps(OpRegistry& registry) {
  const CostFn one_per_element = MakeElementwiseCost(1);
  for (const char* op_type : {"Add", "Sub", "Mul", "Div"}) {
    const OpRole role = std::string(op_type) == "Add" ? OpRole::kSum : OpRole::kOther;
    RegisterOp(registry,
               OpSchema{op_type, 2, 2, 1, 1, BroadcastInfer(ResultType::kSameAsInput, true),
                        one_per_element, role});
  }
  RegisterOp(registry, OpSchema{"Mod", 2, 2, 1, 1, InferMod, one_per_element});
  RegisterOp(registry, OpSchema{"Pow", 2, 2, 1, 1, BroadcastInfer(ResultType::kSameAsInput, false),
                                one_per_element});
  for (const char* op_type : {"Min", "Max", "Sum", "Mean"}) {
    const OpRole role = std::string(op_type) == "Sum" ? OpRole::kSum : OpRole::kOther;
    RegisterOp(registry,
               OpSchema{op_type, 1, -1, 1, 1, BroadcastInfer(ResultType::kSameAsInput, true),
                        VariadicCost, role});
  }
  for (const char* op_type : {"Equal", "Less", "Greater"}) {
    RegisterOp(registry, OpSchema{op_type, 2, 2, 1, 1, BroadcastInfer(ResultType::kBool, true),
                                  one_per_element});
  }
  RegisterOp(registry, OpSchema{"Where", 3, 3, 1, 1, InferWhere, one_per_element});
  // PRelu: a compare and a multiply.
  RegisterOp(registry, OpSchema{"PRelu", 2, 2, 1, 1, InferPRelu, MakeElementwiseCost(2)});
}

}  // namespace ios
