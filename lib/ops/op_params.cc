#include "ops/op_params.h"

#include <algorithm>
#include <set>
#include <string>

#include "ops/node_reading.h"
#include "ops/op_util.h"
#include "util/checked_int.h"

namespace ios {
namespace {

// The int64 values of constant input `index`; Unsupported when it is computed at run time.
StatusOr<std::vector<int64_t>> ConstantInts(const NodeInputs& inputs, size_t index,
                                            const char* what) {
  const Tensor* value = inputs.Constant(index);
  if (value == nullptr) return Unsupported(std::string("a runtime ") + what);
  return ReadIntsInput(inputs.node, *value, what);
}

StatusOr<PadMode> ParsePadMode(const std::string& name) {
  if (name == "constant") return PadMode::kConstant;
  if (name == "reflect") return PadMode::kReflect;
  if (name == "edge") return PadMode::kEdge;
  if (name == "wrap") return PadMode::kWrap;
  return InvalidInput("unknown mode '" + name + "'");
}

// True when `part` has the dims of `whole` but for `axis`.
bool SameButAxis(const Dims& part, const Dims& whole, int64_t axis) {
  if (part.size() != whole.size()) return false;
  for (size_t d = 0; d < whole.size(); ++d)
    if (static_cast<int64_t>(d) != axis && part[d] != whole[d]) return false;
  return true;
}

int64_t Product(Dims::const_iterator begin, Dims::const_iterator end) {
  return NumElements(Dims(begin, end));
}

std::string CountText(CheckedInt64 count) {
  return count.ok() ? std::to_string(*count.get()) : "more than 2^63";
}

}  // namespace

bool NodeInputs::Present(size_t index) const {
  return index < node.inputs.size() && node.inputs[index] != kNoValue && index < types.size();
}

const Tensor* NodeInputs::Constant(size_t index) const {
  return index < constants.size() ? constants[index] : nullptr;
}

Status CheckPlannedOutput(const Dims& computed, const Dims& planned) {
  if (computed == planned) return Status::Ok();
  return InvalidInput("computed output " + DimsToString(computed) + " but the plan has " +
                      DimsToString(planned));
}

StatusOr<AxisParts> ParseConcat(const NodeInputs& inputs, const Dims& out) {
  const Node& node = inputs.node;
  if (!node.attrs.Has("axis")) return InvalidInput("axis is required");
  IOS_ASSIGN_OR_RETURN(int64_t axis_attr, node.attrs.GetInt("axis", 0));
  AxisParts result;
  IOS_ASSIGN_OR_RETURN(result.axis,
                       NormalizeAxis(node, axis_attr, static_cast<int64_t>(out.size())));
  const int64_t axis = result.axis;
  CheckedInt64 total = 0;
  for (size_t i = 0; i < inputs.types.size(); ++i) {
    const TensorType& in = inputs.types[i];
    if (!inputs.Present(i) || in.dtype != inputs.types[0].dtype || !SameButAxis(in.dims, out, axis))
      return InvalidInput("cannot concatenate " + DimsToString(in.dims) + " into " +
                          DimsToString(out) + " on axis " + std::to_string(axis));
    total += in.dims[axis];
    result.parts.push_back(Product(in.dims.begin() + axis, in.dims.end()));
  }
  if (total != out[axis])
    return InvalidInput("inputs add up to " + CountText(total) + " on axis " +
                        std::to_string(axis) + ", the output has " + std::to_string(out[axis]));
  result.outer = Product(out.begin(), out.begin() + axis);
  result.whole = Product(out.begin() + axis, out.end());
  return result;
}

StatusOr<AxisParts> ParseSplit(const NodeInputs& inputs, const std::vector<TensorType>& outputs) {
  const Node& node = inputs.node;
  if (inputs.types.empty()) return InvalidInput("needs an input");
  const Dims& x = inputs.types[0].dims;
  IOS_ASSIGN_OR_RETURN(int64_t axis_attr, node.attrs.GetInt("axis", 0));
  AxisParts result;
  IOS_ASSIGN_OR_RETURN(result.axis, NormalizeAxis(node, axis_attr, static_cast<int64_t>(x.size())));
  const int64_t axis = result.axis;
  CheckedInt64 total = 0;
  for (const TensorType& out : outputs) {
    if (!SameButAxis(out.dims, x, axis))
      return InvalidInput("output " + DimsToString(out.dims) + " is not a split of " +
                          DimsToString(x) + " on axis " + std::to_string(axis));
    total += out.dims[axis];
    result.parts.push_back(Product(out.dims.begin() + axis, out.dims.end()));
  }
  if (total != x[axis])
    return InvalidInput("outputs add up to " + CountText(total) + " on axis " +
                        std::to_string(axis) + ", the input has " + std::to_string(x[axis]));
  result.outer = Product(x.begin(), x.begin() + axis);
  result.whole = Product(x.begin() + axis, x.end());
  return result;
}

StatusOr<SliceParams> ParseSlice(const NodeInputs& inputs) {
  const Node& node = inputs.node;
  if (inputs.types.empty()) return InvalidInput("needs an input");
  const Dims& x = inputs.types[0].dims;
  const int64_t rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (OpsetBefore(node, 10)) {
    IOS_ASSIGN_OR_RETURN(starts, node.attrs.GetInts("starts", {}));
    IOS_ASSIGN_OR_RETURN(ends, node.attrs.GetInts("ends", {}));
    IOS_ASSIGN_OR_RETURN(axes, node.attrs.GetInts("axes", {}));
  } else {
    std::vector<int64_t>* lists[] = {&starts, &ends, &axes, &steps};
    const char* names[] = {"starts", "ends", "axes", "steps"};
    for (size_t i = 1; i <= 4; ++i) {
      if (!inputs.Present(i)) {
        if (i <= 2) return InvalidInput(std::string(names[i - 1]) + " is required");
        continue;
      }
      IOS_ASSIGN_OR_RETURN(*lists[i - 1], ConstantInts(inputs, i, names[i - 1]));
    }
  }
  if (starts.size() != ends.size()) return InvalidInput("starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return InvalidInput("starts, ends, axes and steps must have the same length");

  SliceParams result;
  result.begin.assign(rank, 0);
  result.step.assign(rank, 1);
  result.out_dims = x;
  std::set<int64_t> seen;
  for (size_t i = 0; i < starts.size(); ++i) {
    IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, axes[i], rank));
    if (!seen.insert(axis).second) return InvalidInput("repeated axis in axes");
    if (steps[i] == 0) return InvalidInput("steps must not be 0");
    ClampSliceAxis(x[axis], starts[i], ends[i], steps[i], &result.begin[axis],
                   &result.out_dims[axis]);
    result.step[axis] = steps[i];
  }
  return result;
}

StatusOr<TransposeParams> ParseTranspose(const Node& node, const Dims& in) {
  const int64_t rank = static_cast<int64_t>(in.size());
  Dims reversed(rank);
  for (int64_t d = 0; d < rank; ++d) reversed[d] = rank - 1 - d;
  TransposeParams result;
  IOS_ASSIGN_OR_RETURN(result.perm, node.attrs.GetInts("perm", reversed));
  Dims sorted = result.perm;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != Dims(reversed.rbegin(), reversed.rend()))
    return InvalidInput("perm " + DimsToString(result.perm) + " is not a permutation of " +
                        std::to_string(rank) + " axes");
  for (int64_t axis : result.perm) result.out_dims.push_back(in[axis]);
  return result;
}

StatusOr<DepthSpaceParams> ParseDepthSpace(const Node& node, const Dims& in) {
  const bool to_space = node.op_type == "DepthToSpace";
  if (!to_space && node.op_type != "SpaceToDepth")
    return Internal(node.op_type + " is not DepthToSpace or SpaceToDepth");
  if (in.size() != 4)
    return InvalidInput("input has shape " + DimsToString(in) + "; expected 4 dims [N, C, H, W]");
  if (!node.attrs.Has("blocksize")) return InvalidInput("attribute 'blocksize' is required");
  IOS_ASSIGN_OR_RETURN(int64_t b, node.attrs.GetInt("blocksize", 0));
  const CheckedInt64 block_area = CheckedInt64(b) * b;
  if (b <= 0 || !block_area.ok())
    return InvalidInput("attribute 'blocksize' is " + std::to_string(b) +
                        "; expected a positive block size");
  const int64_t b2 = *block_area.get();
  if (!to_space && OpsetBefore(node, 28) && node.attrs.Has("mode"))
    return InvalidInput(
        "attribute 'mode' of SpaceToDepth exists from opset 28; this node is "
        "opset " +
        std::to_string(node.opset));
  IOS_ASSIGN_OR_RETURN(std::string mode, node.attrs.GetString("mode", "DCR"));
  if (mode != "DCR" && mode != "CRD")
    return InvalidInput("attribute 'mode' is '" + mode + "'; expected 'DCR' or 'CRD'");
  const bool dcr = mode == "DCR";
  const int64_t n = in[0], c = in[1], h = in[2], w = in[3];
  DepthSpaceParams result;
  if (to_space) {
    if (c % b2 != 0)
      return InvalidInput("input has " + std::to_string(c) + " channels, which blocksize " +
                          std::to_string(b) + " does not split into " + std::to_string(b2) +
                          "-channel blocks");
    IOS_ASSIGN_OR_RETURN(const int64_t out_h, (CheckedInt64(h) * b).OrError("the output height"));
    IOS_ASSIGN_OR_RETURN(const int64_t out_w, (CheckedInt64(w) * b).OrError("the output width"));
    const int64_t depth = c / b2;
    result.view = dcr ? Dims{n, b, b, depth, h, w} : Dims{n, depth, b, b, h, w};
    result.perm = dcr ? Dims{0, 3, 4, 1, 5, 2} : Dims{0, 1, 4, 2, 5, 3};
    result.out_dims = {n, depth, out_h, out_w};
  } else {
    if (h % b != 0 || w % b != 0)
      return InvalidInput("input height and width " + std::to_string(h) + "x" + std::to_string(w) +
                          " are not multiples of blocksize " + std::to_string(b));
    IOS_ASSIGN_OR_RETURN(const int64_t depth,
                         (CheckedInt64(c) * b2).OrError("the output channel count"));
    result.view = {n, c, h / b, b, w / b, b};
    result.perm = dcr ? Dims{0, 3, 5, 1, 2, 4} : Dims{0, 1, 3, 5, 2, 4};
    result.out_dims = {n, depth, h / b, w / b};
  }
  return result;
}

StatusOr<PadParams> ParsePad(const NodeInputs& inputs) {
  const Node& node = inputs.node;
  if (inputs.types.empty()) return InvalidInput("needs an input");
  const TensorType& x = inputs.types[0];
  IOS_ASSIGN_OR_RETURN(std::string mode_name, node.attrs.GetString("mode", "constant"));
  PadParams result;
  IOS_ASSIGN_OR_RETURN(result.mode, ParsePadMode(mode_name));
  std::vector<int64_t> pads;
  std::vector<int64_t> axes;
  if (OpsetBefore(node, 11)) {
    const char* pads_attr = OpsetBefore(node, 2) ? "paddings" : "pads";
    if (!node.attrs.Has(pads_attr)) return InvalidInput(std::string(pads_attr) + " is required");
    IOS_ASSIGN_OR_RETURN(pads, node.attrs.GetInts(pads_attr, {}));
    result.value_from_attribute = true;
    IOS_ASSIGN_OR_RETURN(result.attribute_value, node.attrs.GetFloat("value", 0.f));
  } else {
    if (!inputs.Present(1)) return InvalidInput("pads is required");
    IOS_ASSIGN_OR_RETURN(pads, ConstantInts(inputs, 1, "pads"));
    if (inputs.Present(2) && NumElements(inputs.types[2].dims) > 0) {
      const TensorType& value = inputs.types[2];
      if (value.dtype != x.dtype || NumElements(value.dims) != 1)
        return InvalidInput("constant_value must be a scalar of the input's type");
      result.value_from_input = true;
      result.value_constant = inputs.Constant(2);
    }
    if (inputs.Present(3)) {
      IOS_ASSIGN_OR_RETURN(axes, ConstantInts(inputs, 3, "axes"));
    }
  }
  const int64_t rank = static_cast<int64_t>(x.dims.size());
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  if (pads.size() != 2 * axes.size())
    return InvalidInput("pads has " + std::to_string(pads.size()) + " values for " +
                        std::to_string(axes.size()) + " axes");
  const size_t n_axes = axes.size();
  result.begin.assign(rank, 0);
  result.out_dims = x.dims;
  for (size_t i = 0; i < n_axes; ++i) {
    IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, axes[i], rank));
    result.begin[axis] = pads[i];
    IOS_ASSIGN_OR_RETURN(result.out_dims[axis],
                         (CheckedInt64(x.dims[axis]) + pads[i] + pads[n_axes + i])
                             .OrError("the padded length of axis " + std::to_string(axis) +
                                      " (pads " + DimsToString(pads) + ")"));
    if (result.out_dims[axis] < 0) return InvalidInput("pads crop more than the input");
    const bool grows = pads[i] > 0 || pads[n_axes + i] > 0;
    if (result.mode != PadMode::kConstant && grows && x.dims[axis] == 0)
      return InvalidInput(mode_name + " padding of an empty dimension");
  }
  return result;
}

bool CastTypeOf(DType dtype, CastType* type) {
  switch (dtype) {
    case DType::kFloat32: *type = CastType::kFloat32; return true;
    case DType::kFloat64: *type = CastType::kFloat64; return true;
    case DType::kFloat16: *type = CastType::kFloat16; return true;
    case DType::kInt64: *type = CastType::kInt64; return true;
    case DType::kInt32: *type = CastType::kInt32; return true;
    case DType::kInt8: *type = CastType::kInt8; return true;
    case DType::kUint8: *type = CastType::kUint8; return true;
    case DType::kBool: *type = CastType::kBool; return true;
    default: return false;
  }
}

StatusOr<BinaryElementwise> BinaryElementwiseOf(const std::string& op_type) {
  struct Entry {
    const char* op_type;
    BinaryElementwise op;
  };
  static const Entry kOps[] = {
      {"Add", {BinaryOpKind::kAdd, false}},     {"Sub", {BinaryOpKind::kSub, false}},
      {"Mul", {BinaryOpKind::kMul, false}},     {"Div", {BinaryOpKind::kDiv, false}},
      {"Pow", {BinaryOpKind::kPow, false}},     {"Sum", {BinaryOpKind::kAdd, true}},
      {"Max", {BinaryOpKind::kMax, true}},      {"Min", {BinaryOpKind::kMin, true}},
      {"Mean", {BinaryOpKind::kAdd, true, true}},
      {"PRelu", {BinaryOpKind::kPRelu, false}},
  };
  for (const Entry& entry : kOps)
    if (op_type == entry.op_type) return entry.op;
  return Internal("not a binary elementwise op: " + op_type);
}

Status CheckBinaryElementwise(const BinaryElementwise& op, const std::vector<TensorType>& inputs,
                              const std::vector<TensorType>& outputs) {
  const size_t count = inputs.size();
  if (count == 0 || (!op.variadic && count != 2) || outputs.empty())
    return InvalidInput("wrong number of inputs or outputs");
  Dims expected = inputs[0].dims;
  for (size_t i = 1; i < count; ++i) {
    IOS_ASSIGN_OR_RETURN(expected, BroadcastDims(expected, inputs[i].dims));
  }
  if (expected != outputs[0].dims)
    return InvalidInput("inputs broadcast to " + DimsToString(expected) + " but the output is " +
                        DimsToString(outputs[0].dims));
  if (op.op == BinaryOpKind::kPRelu && expected != inputs[0].dims)
    return InvalidInput("slope " + DimsToString(inputs[1].dims) +
                        " does not broadcast to the input's shape " + DimsToString(inputs[0].dims) +
                        " (PRelu broadcasts it one way)");
  return Status::Ok();
}

StatusOr<SoftmaxAxis> ParseSoftmaxAxis(const Node& node, int64_t rank) {
  if (rank < 1) return InvalidInput("input must have rank >= 1");
  SoftmaxAxis result;
  result.coerce_2d = OpsetBefore(node, 13);
  IOS_ASSIGN_OR_RETURN(result.axis, node.attrs.GetInt("axis", result.coerce_2d ? 1 : -1));
  if (result.coerce_2d && result.axis == rank) return result;  // every element its own row
  IOS_ASSIGN_OR_RETURN(result.axis, NormalizeAxis(node, result.axis, rank));
  return result;
}

StatusOr<GeluApproximation> ParseGeluApproximation(const Node& node) {
  IOS_ASSIGN_OR_RETURN(std::string approximate, node.attrs.GetString("approximate", "none"));
  if (approximate == "none") return GeluApproximation::kNone;
  if (approximate == "tanh") return GeluApproximation::kTanh;
  return InvalidInput("attribute 'approximate' is '" + approximate +
                      "'; expected 'none' or 'tanh'");
}

}  // namespace ios
