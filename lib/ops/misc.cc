// Softmax, Identity, Dropout (inference only), Constant and ReduceMean.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/op_registry.h"
#include "ops/op_util.h"

namespace ios {
namespace {

using Inputs = std::vector<InferInput>;
using Outputs = std::vector<TensorType>;

int64_t Rank(const InferInput& input) { return static_cast<int64_t>(input.type.dims.size()); }

// Before opset 13 the input is coerced to 2-D at `axis` (default 1); from 13 the softmax runs
// along `axis` (default -1). Either way the output has the input's shape.
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

// Axes: attribute before opset 18, optional constant input since. No axes reduces every axis,
// unless noop_with_empty_axes=1 (opset 18), which makes the op the identity.
Status InferReduceMean(const Node& node, const Inputs& inputs, Outputs* outputs) {
  IOS_ASSIGN_OR_RETURN(IntList axes, IntsFromAttrOrInput(node, inputs, "axes", 1, 18));
  IOS_ASSIGN_OR_RETURN(int64_t keepdims, node.attrs.GetInt("keepdims", 1));
  IOS_ASSIGN_OR_RETURN(int64_t noop, node.attrs.GetInt("noop_with_empty_axes", 0));
  const Dims& in = inputs[0].type.dims;
  const int64_t rank = Rank(inputs[0]);
  if (axes.values.empty()) {
    if (noop != 0) {
      (*outputs)[0] = inputs[0].type;
      return Status::Ok();
    }
    for (int64_t i = 0; i < rank; ++i) axes.values.push_back(i);
  }
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> list, NormalizeAxes(axes.values, rank, "axis"));
  Dims out;
  for (int64_t i = 0; i < rank; ++i) {
    const bool reduced = std::find(list.begin(), list.end(), i) != list.end();
    if (!reduced) {
      out.push_back(in[i]);
    } else if (keepdims != 0) {
      out.push_back(1);
    }
  }
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

// One add per input element.
OpCost ReduceCost(const Node& node, const Outputs& inputs, const Outputs& outputs) {
  OpCost cost;
  cost.flops = static_cast<double>(NumElements(inputs[0].dims));
  cost.bytes_moved = BytesMoved(inputs, outputs);
  return cost;
}

}  // namespace

void RegisterMiscOps(OpRegistry& registry) {
  const CostFn copy = MakeElementwiseCost(0);
  // Softmax: max, subtract, exp, sum and divide for each element.
  RegisterOp(registry, OpSchema{"Softmax", 1, 1, 1, 1, InferSoftmax, MakeElementwiseCost(5)});
  RegisterOp(registry, OpSchema{"Identity", 1, 1, 1, 1, InferIdentity, copy});
  RegisterOp(registry, OpSchema{"Dropout", 1, 3, 1, 2, InferDropout, copy});
  RegisterOp(registry, OpSchema{"Constant", 0, 0, 1, 1, InferConstant, copy});
  RegisterOp(registry, OpSchema{"ReduceMean", 1, 2, 1, 1, InferReduceMean, ReduceCost});
}

}  // namespace ios
