// Softmax, LogSoftmax, Identity, Dropout (inference only) and Constant.
#include <string>
#include <vector>

#include "ops/op_registry.h"
#include "ops/op_util.h"

namespace ios {
namespace {

using Inputs = std::vector<InferInput>;
using Outputs = std::vector<TensorType>;

int64_t Rank(const InferInput& input) { return static_cast<int64_t>(input.type.dims.size()); }

// Softmax and LogSoftmax. Before opset 13 the input is coerced to 2-D at `axis` (default 1);
// from 13 the softmax runs along `axis` (default -1). Either way the output has the input's
// shape.
Status InferSoftmax(const Node& node, const Inputs& inputs, Outputs* outputs) {
  IOS_ASSIGN_OR_RETURN(int64_t axis, node.attrs.GetInt("axis", node.opset < 13 ? 1 : -1));
  IOS_RETURN_IF_ERROR(NormalizeAxis(axis, Rank(inputs[0]), "axis").status());
  (*outputs)[0] = inputs[0].type;
  return Status::Ok();
}

Status InferIdentity(const Node& node, const Inputs& inputs, Outputs* outputs) {
  (*outputs)[0] = inputs[0].type;
  return Status::Ok();
}

// Dropout is the identity at inference. Opset < 12 has a `ratio` attribute; from 12, ratio and
// training_mode are optional inputs, and training_mode must be absent or a constant false.
Status InferDropout(const Node& node, const Inputs& inputs, Outputs* outputs) {
  if (node.opset < 12) {
    if (OptionalInput(inputs, 1) != nullptr || OptionalInput(inputs, 2) != nullptr) {
      return InvalidInput("ratio/training_mode are inputs only from opset 12; opset " +
                          std::to_string(node.opset) + " takes attribute 'ratio'");
    }
    IOS_RETURN_IF_ERROR(node.attrs.GetFloat("ratio", 0.5f).status());
  } else if (const InferInput* training = OptionalInput(inputs, 2)) {
    if (training->constant == nullptr) {
      return Unsupported(
          "input 'training_mode' must be a constant false; ios runs inference "
          "only");
    }
    if (training->constant->num_elements() != 1 || training->constant->IntAt(0) != 0) {
      return Unsupported("training_mode is true; ios runs inference only");
    }
  }
  (*outputs)[0] = inputs[0].type;
  if (outputs->size() > 1) {
    // The mask is bool from opset 10, the input's type before.
    const DType mask = node.opset >= 10 ? DType::kBool : inputs[0].type.dtype;
    (*outputs)[1] = TensorType{mask, inputs[0].type.dims};
  }
  return Status::Ok();
}

// Exactly one value attribute. The importer turns Constant into a constant value; this schema
// lets the graph be checked before that happens.
Status InferConstant(const Node& node, const Inputs& inputs, Outputs* outputs) {
  for (const char* unsupported : {"sparse_value", "value_string", "value_strings"}) {
    if (node.attrs.Has(unsupported)) {
      return Unsupported("attribute '" + std::string(unsupported) + "' is not supported");
    }
  }
  int given = 0;
  for (const char* name : {"value", "value_float", "value_floats", "value_int", "value_ints"}) {
    given += node.attrs.Has(name) ? 1 : 0;
  }
  if (given != 1) {
    return InvalidInput(
        "exactly one of value, value_float, value_floats, value_int, value_ints "
        "is required; " +
        std::to_string(given) + " given");
  }
  TensorType& out = (*outputs)[0];
  if (node.attrs.Has("value")) {
    const Tensor* value = node.attrs.GetTensor("value");
    if (value == nullptr) return InvalidInput("attribute 'value' must be a tensor");
    out = TensorType{value->dtype(), value->dims()};
  } else if (node.attrs.Has("value_float")) {
    IOS_RETURN_IF_ERROR(node.attrs.GetFloat("value_float", 0.f).status());
    out = TensorType{DType::kFloat32, {}};
  } else if (node.attrs.Has("value_floats")) {
    IOS_ASSIGN_OR_RETURN(std::vector<float> values, node.attrs.GetFloats("value_floats", {}));
    out = TensorType{DType::kFloat32, {static_cast<int64_t>(values.size())}};
  } else if (node.attrs.Has("value_int")) {
    IOS_RETURN_IF_ERROR(node.attrs.GetInt("value_int", 0).status());
    out = TensorType{DType::kInt64, {}};
  } else {
    IOS_ASSIGN_OR_RETURN(std::vector<int64_t> values, node.attrs.GetInts("value_ints", {}));
    out = TensorType{DType::kInt64, {static_cast<int64_t>(values.size())}};
  }
  return Status::Ok();
}

}  // namespace

void RegisterMiscOps(OpRegistry& registry) {
  const CostFn copy = MakeElementwiseCost(0);
  // Softmax: max, subtract, exp, sum and divide for each element.
  RegisterOp(registry, OpSchema{"Softmax", 1, 1, 1, 1, InferSoftmax, MakeElementwiseCost(5)});
  // LogSoftmax takes Softmax's axis forms; max, subtract, exp and sum, then one subtract of the
  // group's max plus log(sum) per element.
  RegisterOp(registry, OpSchema{"LogSoftmax", 1, 1, 1, 1, InferSoftmax, MakeElementwiseCost(5)});
  RegisterOp(registry, OpSchema{"Identity", 1, 1, 1, 1, InferIdentity, copy});
  RegisterOp(registry, OpSchema{"Dropout", 1, 3, 1, 2, InferDropout, copy});
  RegisterOp(registry, OpSchema{"Constant", 0, 0, 1, 1, InferConstant, copy});
}

}  // namespace ios
