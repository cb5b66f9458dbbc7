#include "ops/op_util.h"

#include <algorithm>

namespace ios {
namespace {

std::string ListToString(const std::vector<int64_t>& values) { return DimsToString(values); }

// Checks that an attribute list has `expected` entries, each at least `min_value`.
Status CheckWindowList(const std::string& name, const std::vector<int64_t>& values, size_t expected,
                       int64_t min_value) {
  if (values.size() != expected) {
    return InvalidInput("attribute '" + name + "' has " + std::to_string(values.size()) +
                        " values " + ListToString(values) + ", expected " +
                        std::to_string(expected));
  }
  // No model has a kernel, stride, dilation or pad of 2^31 (the window arithmetic is checked
  // all the same: an input's length may be anything its size allows).
  constexpr int64_t kMaxValue = (int64_t{1} << 31) - 1;
  for (int64_t v : values) {
    if (v < min_value || v > kMaxValue) {
      return InvalidInput("attribute '" + name + "' is " + ListToString(values) +
                          "; every value must be between " + std::to_string(min_value) + " and " +
                          std::to_string(kMaxValue));
    }
  }
  return Status::Ok();
}

}  // namespace

void RegisterOp(OpRegistry& registry, OpSchema schema) {
  const size_t required = static_cast<size_t>(schema.min_inputs);
  InferFn infer = std::move(schema.infer);
  schema.infer = [required, infer](const Node& node, const std::vector<InferInput>& inputs,
                                   std::vector<TensorType>* outputs) {
    for (size_t i = 0; i < required && i < inputs.size(); ++i) {
      if (!inputs[i].present) {
        return InvalidInput("required input " + std::to_string(i) + " is omitted");
      }
    }
    return infer(node, inputs, outputs);
  };
  registry.Register(std::move(schema));
}

const InferInput* OptionalInput(const std::vector<InferInput>& inputs, size_t index) {
  if (index >= inputs.size() || !inputs[index].present) return nullptr;
  return &inputs[index];
}

Status NonConstantInput(const std::string& input_name) {
  return Unsupported("input '" + input_name +
                     "' must be a constant (an initializer or a value folded at import); ios "
                     "needs its value to infer the output shape");
}

StatusOr<IntList> IntsFromInput(const std::vector<InferInput>& inputs, size_t index,
                                const std::string& input_name) {
  IntList list;
  const InferInput* input = OptionalInput(inputs, index);
  if (input == nullptr) return list;
  if (input->constant == nullptr) return NonConstantInput(input_name);
  list.present = true;
  list.values = input->constant->ToInt64Vector();
  return list;
}

StatusOr<IntList> IntsFromAttrOrInput(const Node& node, const std::vector<InferInput>& inputs,
                                      const std::string& name, size_t index, int64_t input_since) {
  const std::string opset = std::to_string(node.opset);
  const std::string since = std::to_string(input_since);
  if (node.opset < input_since) {
    if (OptionalInput(inputs, index) != nullptr) {
      return InvalidInput("'" + name + "' is an input only from opset " + since + "; opset " +
                          opset + " takes it as an attribute");
    }
    IntList list;
    list.present = node.attrs.Has(name);
    IOS_ASSIGN_OR_RETURN(list.values, node.attrs.GetInts(name, {}));
    return list;
  }
  if (node.attrs.Has(name)) {
    return InvalidInput("'" + name + "' is an input from opset " + since + ", not an attribute" +
                        " (this node uses opset " + opset + ")");
  }
  return IntsFromInput(inputs, index, name);
}

StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank, const std::string& what) {
  if (axis < -rank || axis >= rank) {
    return InvalidInput(what + " " + std::to_string(axis) + " is out of range for rank " +
                        std::to_string(rank) + " (valid: " + std::to_string(-rank) + ".." +
                        std::to_string(rank - 1) + ")");
  }
  return axis < 0 ? axis + rank : axis;
}

StatusOr<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank,
                                             const std::string& what) {
  std::vector<int64_t> out;
  for (int64_t axis : axes) {
    IOS_ASSIGN_OR_RETURN(int64_t normalized, NormalizeAxis(axis, rank, what));
    if (std::find(out.begin(), out.end(), normalized) != out.end()) {
      return InvalidInput("the axes " + ListToString(axes) + " name " + what + " " +
                          std::to_string(normalized) + " twice");
    }
    out.push_back(normalized);
  }
  return out;
}

StatusOr<Dims> BroadcastDims(const Dims& a, const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align from the right; missing leading dims act as 1.
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return InvalidInput("shapes " + DimsToString(a) + " and " + DimsToString(b) +
                          " cannot be broadcast (dimension " + std::to_string(da) + " vs " +
                          std::to_string(db) + ")");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

StatusOr<Dims> BroadcastInputs(const std::vector<InferInput>& inputs) {
  Dims out;
  for (const InferInput& input : inputs) {
    if (!input.present) continue;
    IOS_ASSIGN_OR_RETURN(out, BroadcastDims(out, input.type.dims));
  }
  return out;
}

Status CheckRank(const InferInput& input, const std::string& input_name, int64_t rank) {
  if (static_cast<int64_t>(input.type.dims.size()) != rank) {
    return InvalidInput("input '" + input_name + "' has shape " + DimsToString(input.type.dims) +
                        ", expected rank " + std::to_string(rank));
  }
  return Status::Ok();
}

Status CheckSameDType(const std::vector<InferInput>& inputs) {
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].present && inputs[i].type.dtype != inputs[0].type.dtype) {
      return InvalidInput("input " + std::to_string(i) + " has type " +
                          DTypeName(inputs[i].type.dtype) + " but input 0 has type " +
                          DTypeName(inputs[0].type.dtype));
    }
  }
  return Status::Ok();
}

StatusOr<WindowParams> ReadWindowParams(const Node& node, const std::vector<int64_t>& kernel) {
  const size_t n = kernel.size();
  WindowParams p;
  p.kernel = kernel;
  IOS_RETURN_IF_ERROR(CheckWindowList("kernel_shape", kernel, n, 1));
  IOS_ASSIGN_OR_RETURN(p.strides, node.attrs.GetInts("strides", std::vector<int64_t>(n, 1)));
  IOS_RETURN_IF_ERROR(CheckWindowList("strides", p.strides, n, 1));
  IOS_ASSIGN_OR_RETURN(p.dilations, node.attrs.GetInts("dilations", std::vector<int64_t>(n, 1)));
  IOS_RETURN_IF_ERROR(CheckWindowList("dilations", p.dilations, n, 1));
  IOS_ASSIGN_OR_RETURN(p.pads, node.attrs.GetInts("pads", std::vector<int64_t>(2 * n, 0)));
  IOS_RETURN_IF_ERROR(CheckWindowList("pads", p.pads, 2 * n, 0));
  IOS_ASSIGN_OR_RETURN(p.auto_pad, node.attrs.GetString("auto_pad", "NOTSET"));
  if (p.auto_pad != "NOTSET" && p.auto_pad != "SAME_UPPER" && p.auto_pad != "SAME_LOWER" &&
      p.auto_pad != "VALID") {
    return InvalidInput("attribute 'auto_pad' is '" + p.auto_pad +
                        "'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  return p;
}

CheckedInt64 WindowOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                              int64_t pad_begin, int64_t pad_end, bool ceil_mode) {
  const CheckedInt64 extent = (CheckedInt64(kernel) - 1) * dilation + 1;
  const CheckedInt64 span = CheckedInt64(in) + pad_begin + pad_end - extent;
  if (!ceil_mode) return span / stride + 1;
  CheckedInt64 out = (span + stride - 1) / stride + 1;
  // onnxruntime drops a last window that would start entirely in the right padding.
  if ((out - 1) * stride >= CheckedInt64(in) + pad_begin) out -= 1;
  return out;
}

StatusOr<Dims> WindowOutputDims(const Dims& in, bool ceil_mode, WindowParams* params) {
  const size_t n = params->kernel.size();
  if (in.size() != n) {
    return InvalidInput("input has " + std::to_string(in.size()) + " spatial dims " +
                        DimsToString(in) + " but the kernel has " + std::to_string(n) + " " +
                        DimsToString(params->kernel));
  }
  Dims out(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string axis = "spatial axis " + std::to_string(i);
    const int64_t stride = params->strides[i];
    IOS_ASSIGN_OR_RETURN(const int64_t extent,
                         ((CheckedInt64(params->kernel[i]) - 1) * params->dilations[i] + 1)
                             .OrError(axis + "'s kernel extent"));
    int64_t& pad_begin = params->pads[i];
    int64_t& pad_end = params->pads[i + n];
    if (params->auto_pad == "SAME_UPPER" || params->auto_pad == "SAME_LOWER") {
      // Output is ceil(in / stride); the extra padding goes at the end for SAME_UPPER.
      IOS_ASSIGN_OR_RETURN(
          out[i], ((CheckedInt64(in[i]) + stride - 1) / stride).OrError(axis + "'s output length"));
      IOS_ASSIGN_OR_RETURN(
          const int64_t needed,
          ((CheckedInt64(out[i]) - 1) * stride + extent - in[i]).OrError(axis + "'s padding"));
      const int64_t total = std::max<int64_t>(0, needed);
      pad_begin = params->auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pad_end = total - pad_begin;
      continue;
    }
    if (params->auto_pad == "VALID") pad_begin = pad_end = 0;
    IOS_ASSIGN_OR_RETURN(
        const int64_t padded,
        (CheckedInt64(in[i]) + pad_begin + pad_end).OrError(axis + "'s padded length"));
    if (padded < extent) {
      return InvalidInput(axis + ": the kernel extent " + std::to_string(extent) + " (kernel " +
                          std::to_string(params->kernel[i]) + ", dilation " +
                          std::to_string(params->dilations[i]) +
                          ") is larger than the padded input " + std::to_string(in[i]) + " + " +
                          std::to_string(pad_begin) + " + " + std::to_string(pad_end));
    }
    IOS_ASSIGN_OR_RETURN(
        out[i], WindowOutputSize(in[i], params->kernel[i], stride, params->dilations[i], pad_begin,
                                 pad_end, ceil_mode)
                    .OrError(axis + "'s output length"));
  }
  return out;
}

double TensorBytes(const TensorType& type) {
  return static_cast<double>(NumElements(type.dims)) * static_cast<double>(DTypeSize(type.dtype));
}

double BytesMoved(const std::vector<TensorType>& inputs, const std::vector<TensorType>& outputs) {
  double bytes = 0;
  for (const TensorType& t : inputs) bytes += TensorBytes(t);
  for (const TensorType& t : outputs) bytes += TensorBytes(t);
  return bytes;
}

OpCost PerOutputElementCost(const std::vector<TensorType>& inputs,
                            const std::vector<TensorType>& outputs, double flops_per_element) {
  OpCost cost;
  if (!outputs.empty()) {
    cost.flops = flops_per_element * static_cast<double>(NumElements(outputs[0].dims));
  }
  cost.bytes_moved = BytesMoved(inputs, outputs);
  return cost;
}

CostFn MakeElementwiseCost(double flops_per_element) {
  return [flops_per_element](const Node&, const std::vector<TensorType>& inputs,
                             const std::vector<TensorType>& outputs) {
    return PerOutputElementCost(inputs, outputs, flops_per_element);
  };
}

}  // namespace ios
