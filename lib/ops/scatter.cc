// ScatterND: a copy of `data` with the slices that `indices` address replaced by (or, with a
// reduction, combined with) `updates`. Exporters emit it for in-place slice assignment
// (torch's `x[:, a:b] = v`, e.g. Swin's attention mask), usually on values that fold.
#include <string>
#include <vector>

#include "ops/op_registry.h"
#include "ops/op_util.h"

namespace ios {
namespace {

Status InferScatterND(const Node& node, const std::vector<InferInput>& inputs,
                      std::vector<TensorType>* outputs) {
  IOS_ASSIGN_OR_RETURN(std::string reduction, node.attrs.GetString("reduction", "none"));
  const bool known = reduction == "none" || reduction == "add" || reduction == "mul" ||
                     reduction == "max" || reduction == "min";
  if (!known)
    return InvalidInput("reduction '" + reduction + "'; expected none, add, mul, max or min");
  const int64_t since = reduction == "none"                          ? 11
                        : (reduction == "add" || reduction == "mul") ? 16
                                                                     : 18;
  if (node.opset != 0 && node.opset < since)
    return InvalidInput("reduction '" + reduction + "' exists from opset " + std::to_string(since) +
                        "; this node is opset " + std::to_string(node.opset));
  const Dims& data = inputs[0].type.dims;
  const TensorType& indices = inputs[1].type;
  const Dims& updates = inputs[2].type.dims;
  if (indices.dtype != DType::kInt64 && indices.dtype != DType::kInt32)
    return InvalidInput("indices have type " + DTypeName(indices.dtype) + "; expected int64");
  if (inputs[2].type.dtype != inputs[0].type.dtype)
    return InvalidInput("updates have type " + DTypeName(inputs[2].type.dtype) + " but data has " +
                        DTypeName(inputs[0].type.dtype));
  if (data.empty()) return InvalidInput("data must have rank >= 1");
  if (indices.dims.empty()) return InvalidInput("indices must have rank >= 1");
  const int64_t k = indices.dims.back();
  if (k < 1 || k > static_cast<int64_t>(data.size()))
    return InvalidInput("indices' last dimension is " + std::to_string(k) +
                        "; it must be between 1 and the rank of data (" +
                        std::to_string(data.size()) + ")");
  Dims expected(indices.dims.begin(), indices.dims.end() - 1);
  expected.insert(expected.end(), data.begin() + k, data.end());
  if (updates != expected)
    return InvalidInput("updates have shape " + DimsToString(updates) + "; expected " +
                        DimsToString(expected) + " (indices' dims but the last, then data's " +
                        "dims from " + std::to_string(k) + ")");
  (*outputs)[0] = inputs[0].type;
  return Status::Ok();
}

// The data is copied once and each update element is written (or combined) once.
OpCost ScatterNDCost(const Node& node, const std::vector<TensorType>& inputs,
                     const std::vector<TensorType>& outputs) {
  OpCost cost;
  cost.flops = static_cast<double>(NumElements(inputs[2].dims));
  cost.bytes_moved = BytesMoved(inputs, outputs);
  return cost;
}

}  // namespace

void RegisterScatterOps(OpRegistry& registry) {
  RegisterOp(registry, OpSchema{"ScatterND", 3, 3, 1, 1, InferScatterND, ScatterNDCost});
}

}  // namespace ios
