// Reference data-movement and shape ops: Concat, Split, Slice, Reshape, Flatten, Transpose,
// Squeeze, Unsqueeze, Pad, Shape, Gather, Cast, ConstantOfShape, Range, Expand, Tile, Identity,
// Dropout (inference) and Constant. Constant folding evaluates the int64 shape arithmetic that
// exporters emit with these, so every index computation is exact integer math.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "kernels/math/tensor_math.h"
#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"
#include "ops/op_params.h"
#include "util/checked_int.h"

namespace ios {
namespace {

using Inputs = std::vector<const Tensor*>;

Status RequireCopyable(const Node& node, const Tensor& t) {
  if (!IsCopyableDType(t.dtype()))
    return Unsupported(NodeLabel(node) + "element type " + DTypeName(t.dtype()) +
                       " is not supported");
  return Status::Ok();
}

// A copy of `x` with new dims (same element count).
Tensor Reshaped(const Tensor& x, Dims dims) {
  Tensor y = x;
  y.Reshape(std::move(dims));
  return y;
}

// memcpy that accepts empty ranges (whose pointers may be null).
void CopyBytes(uint8_t* dst, const uint8_t* src, size_t count) {
  if (count > 0) std::memcpy(dst, src, count);
}

// A 1-D tensor of `values` (Tensor::FromInt64/FromFloat, safe for an empty vector).
template <typename T>
Tensor VectorTensor(DType dtype, const std::vector<T>& values) {
  Tensor t(dtype, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

// Copies element `from` of `src` to element `to` of `dst` (same dtype).
void CopyElement(const Tensor& src, int64_t from, Tensor& dst, int64_t to) {
  const size_t size = DTypeSize(src.dtype());
  std::memcpy(dst.raw() + to * size, src.raw() + from * size, size);
}

// Reads int64 values from input `index` (opset >= `since`) or from attribute `attr` (before).
// `present` reports whether either was given.
StatusOr<std::vector<int64_t>> IntsFromInputOrAttr(const Node& node, const Inputs& inputs,
                                                   size_t index, int64_t since, const char* attr,
                                                   bool* present) {
  if (OpsetBefore(node, since)) {
    *present = node.attrs.Has(attr);
    return node.attrs.GetInts(attr, {});
  }
  const Tensor* t = OptionalInput(inputs, index);
  *present = t != nullptr;
  if (t == nullptr) return std::vector<int64_t>();
  return ReadIntsInput(node, *t, attr);
}

// ---- Concat, Split -------------------------------------------------------------------------

Status ConcatKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  if (inputs.empty()) return InvalidInput(NodeLabel(node) + "needs at least one input");
  for (size_t i = 0; i < inputs.size(); ++i) IOS_RETURN_IF_ERROR(RequireInput(node, inputs, i));
  const Tensor& first = *inputs[0];
  IOS_RETURN_IF_ERROR(RequireCopyable(node, first));
  if (!node.attrs.Has("axis")) return InvalidInput(NodeLabel(node) + "axis is required");
  IOS_ASSIGN_OR_RETURN(int64_t axis_attr, node.attrs.GetInt("axis", 0));
  IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, axis_attr, first.rank()));
  Dims out_dims = first.dims();
  CheckedInt64 joined = 0;
  for (const Tensor* t : inputs) {
    bool compatible = t->dtype() == first.dtype() && t->rank() == first.rank();
    for (int64_t d = 0; compatible && d < first.rank(); ++d)
      compatible = d == axis || t->dims()[d] == first.dims()[d];
    if (!compatible)
      return InvalidInput(NodeLabel(node) + "cannot concatenate " + DimsToString(first.dims()) +
                          " " + DTypeName(first.dtype()) + " with " + DimsToString(t->dims()) +
                          " " + DTypeName(t->dtype()) + " on axis " + std::to_string(axis));
    joined += t->dims()[axis];
  }
  IOS_ASSIGN_OR_RETURN(out_dims[axis], joined.OrError(NodeLabel(node) + "the joined axis"));
  Tensor y(first.dtype(), out_dims);
  const int64_t outer = NumElements(Dims(out_dims.begin(), out_dims.begin() + axis));
  const size_t elem = DTypeSize(first.dtype());
  uint8_t* dst = y.raw();
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor* t : inputs) {
      // Each input contributes its trailing block dims[axis:] per outer index.
      const size_t chunk =
          static_cast<size_t>(NumElements(Dims(t->dims().begin() + axis, t->dims().end()))) * elem;
      CopyBytes(dst, t->raw() + o * chunk, chunk);
      dst += chunk;
    }
  }
  (*outputs)[0] = std::move(y);
  return Status::Ok();
}

// Split: sizes from the 'split' attribute (opset < 13) or input (>= 13); otherwise equal
// parts, one per output (or num_outputs, opset 18, where the last part may be smaller).
Status SplitKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  const std::string label = NodeLabel(node);
  IOS_RETURN_IF_ERROR(RequireCopyable(node, x));
  IOS_ASSIGN_OR_RETURN(int64_t axis_attr, node.attrs.GetInt("axis", 0));
  IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, axis_attr, x.rank()));
  const int64_t dim = x.dims()[axis];
  bool has_split = false;
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> split,
                       IntsFromInputOrAttr(node, inputs, 1, 13, "split", &has_split));
  const int64_t count = static_cast<int64_t>(outputs->size());
  if (split.empty()) has_split = false;  // an empty 'split' input means equal parts
  if (!has_split) {
    IOS_ASSIGN_OR_RETURN(int64_t num_outputs, node.attrs.GetInt("num_outputs", count));
    if (num_outputs != count)
      return InvalidInput(label + "num_outputs " + std::to_string(num_outputs) + " but " +
                          std::to_string(count) + " outputs");
    IOS_ASSIGN_OR_RETURN(
        const int64_t chunk,
        ((CheckedInt64(dim) + count - 1) / count).OrError(label + "the part length"));
    if (OpsetBefore(node, 18) && dim % count != 0)
      return InvalidInput(label + "dimension " + std::to_string(dim) +
                          " does not split evenly into " + std::to_string(count) + " parts");
    split.assign(count, chunk);
    split.back() = dim - chunk * (count - 1);
    if (split.back() < 0)
      return InvalidInput(label + "cannot split " + std::to_string(dim) + " into " +
                          std::to_string(count) + " parts");
  }
  if (static_cast<int64_t>(split.size()) != count)
    return InvalidInput(label + "split has " + std::to_string(split.size()) + " sizes for " +
                        std::to_string(count) + " outputs");
  CheckedInt64 total = 0;
  for (int64_t s : split) {
    if (s < 0) return InvalidInput(label + "split sizes must not be negative");
    total += s;
  }
  if (total != dim)
    return InvalidInput(label + "split sizes " + DimsToString(split) + " do not sum to the axis' " +
                        std::to_string(dim));
  const int64_t outer = NumElements(Dims(x.dims().begin(), x.dims().begin() + axis));
  const int64_t inner = NumElements(Dims(x.dims().begin() + axis + 1, x.dims().end()));
  const size_t elem = DTypeSize(x.dtype());
  int64_t begin = 0;
  for (int64_t i = 0; i < count; ++i) {
    Dims dims = x.dims();
    dims[axis] = split[i];
    Tensor y(x.dtype(), dims);
    const size_t chunk = static_cast<size_t>(split[i] * inner) * elem;
    for (int64_t o = 0; o < outer; ++o)
      CopyBytes(y.raw() + o * chunk, x.raw() + (o * dim + begin) * inner * elem, chunk);
    begin += split[i];
    (*outputs)[i] = std::move(y);
  }
  return Status::Ok();
}

// ---- Slice ---------------------------------------------------------------------------------

// The reference's inputs as the op registry's parsers take them (NodeInputs): every input is a
// value here. The parsers read an input's presence from the node's input ids, which a node
// evaluated on its own may not carry, so the copy states it from the tensors.
struct ParserInputs {
  ParserInputs(const Node& node, const Inputs& inputs) : node_copy(node), constants(inputs) {
    node_copy.inputs.clear();
    for (const Tensor* input : inputs) {
      node_copy.inputs.push_back(input != nullptr ? 0 : kNoValue);
      types.push_back(input != nullptr ? TensorType{input->dtype(), input->dims()}
                                       : TensorType{});
    }
  }
  NodeInputs view() const { return NodeInputs{node_copy, types, constants}; }

  Node node_copy;
  std::vector<TensorType> types;
  const Inputs& constants;
};

// Slice: starts/ends/axes from attributes before opset 10, from inputs (plus steps) since.
// Indices clamp as ONNX specifies, including for negative steps.
Status SliceKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  IOS_RETURN_IF_ERROR(RequireCopyable(node, x));
  // Starts, ends, axes and steps as the op registry reads and clamps them (ops/op_params.h).
  const ParserInputs parser(node, inputs);
  StatusOr<SliceParams> parsed = ParseSlice(parser.view());
  if (!parsed.ok())
    return Status(parsed.status().code(), NodeLabel(node) + parsed.status().message());
  const Dims& begin = parsed->begin;
  const Dims& step = parsed->step;
  const Dims& out_dims = parsed->out_dims;
  Tensor y(x.dtype(), out_dims);
  const Dims x_strides = RowMajorStrides(x.dims());
  int64_t out_offset = 0;
  ForEachIndex(out_dims, [&](const Dims& o) {
    int64_t in_offset = 0;
    for (int64_t d = 0; d < x.rank(); ++d) in_offset += (begin[d] + o[d] * step[d]) * x_strides[d];
    CopyElement(x, in_offset, y, out_offset++);
  });
  (*outputs)[0] = std::move(y);
  return Status::Ok();
}

// ---- Reshape, Flatten, Squeeze, Unsqueeze, Transpose ---------------------------------------

// Reshape: 0 copies the input dimension (unless allowzero=1), -1 is inferred.
Status ReshapeKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  const std::string label = NodeLabel(node);
  std::vector<int64_t> shape;
  if (OpsetBefore(node, 5)) {
    IOS_ASSIGN_OR_RETURN(shape, node.attrs.GetInts("shape", {}));
  } else {
    IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 1));
    IOS_ASSIGN_OR_RETURN(shape, ReadIntsInput(node, *inputs[1], "shape"));
  }
  IOS_ASSIGN_OR_RETURN(int64_t allowzero, node.attrs.GetInt("allowzero", 0));
  Dims out(shape.size());
  int64_t infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer_at >= 0) return InvalidInput(label + "more than one -1 in the shape");
      infer_at = static_cast<int64_t>(i);
      continue;
    }
    if (shape[i] < -1) return InvalidInput(label + "invalid dimension in the shape");
    if (shape[i] == 0 && allowzero == 0) {
      if (static_cast<int64_t>(i) >= x.rank())
        return InvalidInput(label + "0 in the shape refers past the input's rank");
      out[i] = x.dims()[i];
    } else {
      out[i] = shape[i];
    }
    IOS_ASSIGN_OR_RETURN(
        known, (CheckedInt64(known) * out[i])
                   .OrError(label + "the element count of the shape " + DimsToString(shape)));
  }
  if (infer_at >= 0) {
    if (known == 0 || x.num_elements() % known != 0)
      return InvalidInput(label + "cannot infer -1 reshaping " + DimsToString(x.dims()) + " to " +
                          DimsToString(Dims(shape.begin(), shape.end())));
    out[infer_at] = x.num_elements() / known;
  }
  if (NumElements(out) != x.num_elements())
    return InvalidInput(label + "cannot reshape " + DimsToString(x.dims()) + " to " +
                        DimsToString(out));
  (*outputs)[0] = Reshaped(x, out);
  return Status::Ok();
}

Status FlattenKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  IOS_ASSIGN_OR_RETURN(int64_t axis, node.attrs.GetInt("axis", 1));
  if (axis < -x.rank() || axis > x.rank())
    return InvalidInput(NodeLabel(node) + "axis " + std::to_string(axis) +
                        " is out of range for rank " + std::to_string(x.rank()));
  if (axis < 0) axis += x.rank();
  const int64_t rows = NumElements(Dims(x.dims().begin(), x.dims().begin() + axis));
  const int64_t cols = NumElements(Dims(x.dims().begin() + axis, x.dims().end()));
  (*outputs)[0] = Reshaped(x, {rows, cols});
  return Status::Ok();
}

Status SqueezeKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  bool has_axes = false;
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> axes,
                       IntsFromInputOrAttr(node, inputs, 1, 13, "axes", &has_axes));
  std::vector<bool> drop(x.rank(), false);
  if (!has_axes || axes.empty()) {  // like onnxruntime, an empty axes input squeezes all
    for (int64_t d = 0; d < x.rank(); ++d) drop[d] = x.dims()[d] == 1;
  }
  for (int64_t a : axes) {
    IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, a, x.rank()));
    if (x.dims()[axis] != 1)
      return InvalidInput(NodeLabel(node) + "cannot squeeze axis " + std::to_string(a) + " of " +
                          DimsToString(x.dims()));
    drop[axis] = true;
  }
  Dims out;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (!drop[d]) out.push_back(x.dims()[d]);
  (*outputs)[0] = Reshaped(x, out);
  return Status::Ok();
}

Status UnsqueezeKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  bool has_axes = false;
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> axes,
                       IntsFromInputOrAttr(node, inputs, 1, 13, "axes", &has_axes));
  if (!has_axes) return InvalidInput(NodeLabel(node) + "axes is required");
  const int64_t out_rank = x.rank() + static_cast<int64_t>(axes.size());
  std::vector<bool> inserted(out_rank, false);
  for (int64_t a : axes) {
    IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, a, out_rank));
    if (inserted[axis]) return InvalidInput(NodeLabel(node) + "repeated axis in axes");
    inserted[axis] = true;
  }
  Dims out;
  int64_t next = 0;
  for (int64_t d = 0; d < out_rank; ++d) out.push_back(inserted[d] ? 1 : x.dims()[next++]);
  (*outputs)[0] = Reshaped(x, out);
  return Status::Ok();
}

Status TransposeKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  IOS_RETURN_IF_ERROR(RequireCopyable(node, x));
  Dims reversed(x.rank());
  for (int64_t d = 0; d < x.rank(); ++d) reversed[d] = x.rank() - 1 - d;
  IOS_ASSIGN_OR_RETURN(Dims perm, node.attrs.GetInts("perm", reversed));
  Dims sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != Dims(reversed.rbegin(), reversed.rend()))
    return InvalidInput(NodeLabel(node) + "perm " + DimsToString(perm) +
                        " is not a permutation of the input's " + std::to_string(x.rank()) +
                        " axes");
  Dims out_dims(x.rank());
  for (int64_t d = 0; d < x.rank(); ++d) out_dims[d] = x.dims()[perm[d]];
  Tensor y(x.dtype(), out_dims);
  const Dims x_strides = RowMajorStrides(x.dims());
  int64_t out_offset = 0;
  ForEachIndex(out_dims, [&](const Dims& o) {
    int64_t in_offset = 0;
    for (int64_t d = 0; d < x.rank(); ++d) in_offset += o[d] * x_strides[perm[d]];
    CopyElement(x, in_offset, y, out_offset++);
  });
  (*outputs)[0] = std::move(y);
  return Status::Ok();
}

// ---- Pad -----------------------------------------------------------------------------------

// Pad: pads/value attributes before opset 11 ('paddings' before opset 2), inputs since, and
// an optional axes input since opset 18. Negative pads crop. Read by the op registry's ParsePad,
// as every backend reads it; the index arithmetic is kernels/math's PadSourceIndex.
Status PadKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  const ParserInputs parser(node, inputs);
  StatusOr<PadParams> parsed = ParsePad(parser.view());
  if (!parsed.ok())
    return Status(parsed.status().code(), NodeLabel(node) + parsed.status().message());
  const PadMode mode = parsed->mode;
  const Dims& pad_begin = parsed->begin;
  const Dims& out_dims = parsed->out_dims;
  const Tensor* value_input = parsed->value_from_input ? inputs[2] : nullptr;
  const double attr_value = parsed->attribute_value;

  IOS_RETURN_IF_ERROR(CheckOutputDims(node, out_dims));

  return DispatchNumericOrBool(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T value = value_input != nullptr ? value_input->data<T>()[0] : static_cast<T>(attr_value);
    Tensor y(x.dtype(), out_dims);
    const Dims x_strides = RowMajorStrides(x.dims());
    int64_t out_offset = 0;
    ForEachIndex(out_dims, [&](const Dims& o) {
      int64_t in_offset = 0;
      bool outside = false;
      for (int64_t d = 0; d < x.rank(); ++d) {
        int64_t i = o[d] - pad_begin[d];
        if (i < 0 || i >= x.dims()[d]) {
          if (mode == PadMode::kConstant) {
            outside = true;
            break;
          }
          i = PadSourceIndex(mode, i, x.dims()[d]);
        }
        in_offset += i * x_strides[d];
      }
      y.data<T>()[out_offset++] = outside ? value : x.data<T>()[in_offset];
    });
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

// ---- Shape, Gather, Cast -------------------------------------------------------------------

Status ShapeKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  const int64_t rank = x.rank();
  IOS_ASSIGN_OR_RETURN(int64_t start, node.attrs.GetInt("start", 0));
  IOS_ASSIGN_OR_RETURN(int64_t end, node.attrs.GetInt("end", rank));
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  std::vector<int64_t> dims;
  for (int64_t d = start; d < end; ++d) dims.push_back(x.dims()[d]);
  (*outputs)[0] = VectorTensor(DType::kInt64, dims);
  return Status::Ok();
}

// Gather along any axis; negative indices count from the end.
Status GatherKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 1));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  IOS_RETURN_IF_ERROR(RequireCopyable(node, x));
  if (x.rank() < 1) return InvalidInput(NodeLabel(node) + "data must have rank >= 1");
  IOS_ASSIGN_OR_RETURN(int64_t axis_attr, node.attrs.GetInt("axis", 0));
  IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, axis_attr, x.rank()));
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ReadIntsInput(node, *inputs[1], "indices"));
  const int64_t dim = x.dims()[axis];
  for (int64_t& i : indices) {
    if (i < -dim || i >= dim)
      return InvalidInput(NodeLabel(node) + "index " + std::to_string(i) +
                          " is out of range for a dimension of " + std::to_string(dim));
    if (i < 0) i += dim;
  }
  Dims out_dims(x.dims().begin(), x.dims().begin() + axis);
  out_dims.insert(out_dims.end(), inputs[1]->dims().begin(), inputs[1]->dims().end());
  out_dims.insert(out_dims.end(), x.dims().begin() + axis + 1, x.dims().end());
  Tensor y(x.dtype(), out_dims);
  const int64_t outer = NumElements(Dims(x.dims().begin(), x.dims().begin() + axis));
  const int64_t inner = NumElements(Dims(x.dims().begin() + axis + 1, x.dims().end()));
  const size_t block = static_cast<size_t>(inner) * DTypeSize(x.dtype());
  uint8_t* dst = y.raw();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : indices) {
      CopyBytes(dst, x.raw() + (o * dim + i) * block, block);
      dst += block;
    }
  }
  (*outputs)[0] = std::move(y);
  return Status::Ok();
}

// Cast from or to float16, through double (exact for every half value).
Status CastHalf(const Node& node, const Tensor& x, DType to, std::vector<Tensor>* outputs) {
  if (x.dtype() == to) {
    (*outputs)[0] = x;
    return Status::Ok();
  }
  if (x.dtype() == DType::kFloat16) {
    const uint16_t* src = x.data<uint16_t>();
    return DispatchNumericOrBool(to, node.op_type, [&](auto to_tag) -> Status {
      using To = typename decltype(to_tag)::type;
      Tensor y(to, x.dims());
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        const double v = HalfBitsToDouble(src[i]);
        y.data<To>()[i] = to == DType::kBool ? (v != 0.0 ? 1 : 0) : ConvertElement<To>(v);
      }
      (*outputs)[0] = std::move(y);
      return Status::Ok();
    });
  }
  return DispatchNumericOrBool(x.dtype(), node.op_type, [&](auto from_tag) -> Status {
    using From = typename decltype(from_tag)::type;
    Tensor y(DType::kFloat16, x.dims());
    for (int64_t i = 0; i < x.num_elements(); ++i)
      y.data<uint16_t>()[i] = DoubleToHalfBits(static_cast<double>(x.data<From>()[i]));
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

// Cast between float32, float64, float16, int64, int32, int8, uint8 and bool. Float to integer
// truncates toward zero; anything to bool is x != 0.
Status CastKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  if (!node.attrs.Has("to")) return InvalidInput(NodeLabel(node) + "attribute 'to' is required");
  IOS_ASSIGN_OR_RETURN(int64_t to_attr, node.attrs.GetInt("to", 0));
  const DType to = DTypeFromOnnx(static_cast<int32_t>(to_attr));
  if (to == DType::kUndefined)
    return Unsupported(NodeLabel(node) + "cast to ONNX type " + std::to_string(to_attr) +
                       " is not supported");
  if (x.dtype() == DType::kFloat16 || to == DType::kFloat16) return CastHalf(node, x, to, outputs);
  return DispatchNumericOrBool(x.dtype(), node.op_type, [&](auto from_tag) -> Status {
    using From = typename decltype(from_tag)::type;
    return DispatchNumericOrBool(to, node.op_type, [&](auto to_tag) -> Status {
      using To = typename decltype(to_tag)::type;
      Tensor y(to, x.dims());
      const From* src = x.data<From>();
      To* dst = y.data<To>();
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        if (to == DType::kBool) {
          dst[i] = src[i] != From(0) ? 1 : 0;
        } else {
          dst[i] = ConvertElement<To>(src[i]);
        }
      }
      (*outputs)[0] = std::move(y);
      return Status::Ok();
    });
  });
}

// ---- ConstantOfShape, Range, Expand, Tile ---------------------------------------------------

Status ConstantOfShapeKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadIntsInput(node, *inputs[0], "shape"));
  IOS_RETURN_IF_ERROR(CheckOutputDims(node, Dims(shape.begin(), shape.end())));
  const Tensor* value = node.attrs.GetTensor("value");
  Tensor fill = value != nullptr ? *value : Tensor::FromFloat({0.f}, {1});
  if (fill.num_elements() != 1)
    return InvalidInput(NodeLabel(node) + "value must have exactly one element");
  IOS_RETURN_IF_ERROR(RequireCopyable(node, fill));
  Tensor y(fill.dtype(), Dims(shape.begin(), shape.end()));
  for (int64_t i = 0; i < y.num_elements(); ++i) CopyElement(fill, 0, y, i);
  (*outputs)[0] = std::move(y);
  return Status::Ok();
}

// Range: output[i] = start + i * delta for i < max(ceil((limit - start) / delta), 0); the
// count is exact integer arithmetic for integer types.
Status RangeKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  for (size_t i = 0; i < 3; ++i) IOS_RETURN_IF_ERROR(RequireInput(node, inputs, i));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const DType dtype = inputs[0]->dtype();
  for (size_t i = 0; i < 3; ++i) {
    if (inputs[i]->dtype() != dtype || inputs[i]->num_elements() != 1)
      return InvalidInput(NodeLabel(node) + "start, limit and delta must be scalars of one type");
  }
  return DispatchNumeric(dtype, node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T start = inputs[0]->data<T>()[0];
    const T limit = inputs[1]->data<T>()[0];
    const T delta = inputs[2]->data<T>()[0];
    if (delta == T(0)) return InvalidInput(NodeLabel(node) + "delta must not be 0");
    int64_t count = 0;
    if constexpr (std::is_integral_v<T>) {
      IOS_ASSIGN_OR_RETURN(const int64_t span,
                           (CheckedInt64(static_cast<int64_t>(limit)) - static_cast<int64_t>(start))
                               .OrError(NodeLabel(node) + "limit - start"));
      const int64_t d = static_cast<int64_t>(delta);
      // ceil(span / d) with truncating division.
      count = span / d + ((span % d != 0 && ((span > 0) == (d > 0))) ? 1 : 0);
    } else {
      const double n = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                                 static_cast<double>(delta));
      if (std::isnan(n) || n > 1e10)
        return InvalidInput(NodeLabel(node) + "start, limit and delta give no finite range");
      count = n > 0 ? static_cast<int64_t>(n) : 0;
    }
    count = std::max<int64_t>(count, 0);
    IOS_RETURN_IF_ERROR(CheckOutputDims(node, {count}));
    Tensor y(dtype, {count});
    for (int64_t i = 0; i < count; ++i) {
      if constexpr (std::is_integral_v<T>) {
        y.data<T>()[i] =
            static_cast<T>(static_cast<int64_t>(start) + i * static_cast<int64_t>(delta));
      } else {
        y.data<T>()[i] = static_cast<T>(start + static_cast<T>(i) * delta);
      }
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

// Expand: broadcast the input against a shape (bidirectionally, as numpy does).
Status ExpandKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 1));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  IOS_RETURN_IF_ERROR(RequireCopyable(node, x));
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadIntsInput(node, *inputs[1], "shape"));
  IOS_RETURN_IF_ERROR(CheckOutputDims(node, Dims(shape.begin(), shape.end())));
  IOS_ASSIGN_OR_RETURN(Dims out_dims,
                       BroadcastShapes(node, {x.dims(), Dims(shape.begin(), shape.end())}));
  IOS_RETURN_IF_ERROR(CheckOutputDims(node, out_dims));
  Tensor y(x.dtype(), out_dims);
  BroadcastIterator it(out_dims, {x.dims()});
  for (int64_t i = 0; i < y.num_elements(); ++i, it.Next()) CopyElement(x, it.offset(0), y, i);
  (*outputs)[0] = std::move(y);
  return Status::Ok();
}

Status TileKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 1));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  IOS_RETURN_IF_ERROR(RequireCopyable(node, x));
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> repeats, ReadIntsInput(node, *inputs[1], "repeats"));
  if (static_cast<int64_t>(repeats.size()) != x.rank())
    return InvalidInput(NodeLabel(node) + "repeats must have one value per input dimension");
  Dims out_dims = x.dims();
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (repeats[d] < 0) return InvalidInput(NodeLabel(node) + "repeats must not be negative");
    IOS_RETURN_IF_ERROR(CheckOutputDims(node, {out_dims[d], repeats[d]}));  // no overflow
    out_dims[d] *= repeats[d];
  }
  IOS_RETURN_IF_ERROR(CheckOutputDims(node, out_dims));
  Tensor y(x.dtype(), out_dims);
  const Dims x_strides = RowMajorStrides(x.dims());
  int64_t out_offset = 0;
  ForEachIndex(out_dims, [&](const Dims& o) {
    int64_t in_offset = 0;
    for (int64_t d = 0; d < x.rank(); ++d) in_offset += (o[d] % x.dims()[d]) * x_strides[d];
    CopyElement(x, in_offset, y, out_offset++);
  });
  (*outputs)[0] = std::move(y);
  return Status::Ok();
}

// ---- Identity, Dropout, Constant -----------------------------------------------------------

Status IdentityKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  (*outputs)[0] = *inputs[0];
  return Status::Ok();
}

// Dropout in inference: a copy, and a mask of all true (before opset 10 the mask has the
// input's type and holds ones). Training mode with a non-zero ratio is random: Unsupported.
Status DropoutKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  if (const Tensor* training = OptionalInput(inputs, 2)) {
    if (training->num_elements() != 1)
      return InvalidInput(NodeLabel(node) + "training_mode must be a scalar");
    double ratio = 0.5;
    if (const Tensor* r = OptionalInput(inputs, 1)) {
      IOS_ASSIGN_OR_RETURN(ratio, ReadScalarInput(node, *r, "ratio"));
    }
    if (training->IntAt(0) != 0 && ratio != 0.0)
      return Unsupported(NodeLabel(node) + "training mode (random dropout) is not supported");
  }
  (*outputs)[0] = x;
  if (outputs->size() > 1) {
    const DType mask_type = OpsetBefore(node, 10) ? x.dtype() : DType::kBool;
    IOS_RETURN_IF_ERROR(DispatchNumericOrBool(mask_type, node.op_type, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      Tensor mask(mask_type, x.dims());
      for (int64_t i = 0; i < mask.num_elements(); ++i) mask.data<T>()[i] = T(1);
      (*outputs)[1] = std::move(mask);
      return Status::Ok();
    }));
  }
  return Status::Ok();
}

Status ConstantKernel(const Node& node, const Inputs& inputs, std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const AttributeMap& attrs = node.attrs;
  if (const Tensor* value = attrs.GetTensor("value")) {
    (*outputs)[0] = *value;
  } else if (attrs.Has("value_float")) {
    IOS_ASSIGN_OR_RETURN(float v, attrs.GetFloat("value_float", 0.f));
    (*outputs)[0] = Tensor::FromFloat({v}, {});
  } else if (attrs.Has("value_floats")) {
    IOS_ASSIGN_OR_RETURN(std::vector<float> v, attrs.GetFloats("value_floats", {}));
    (*outputs)[0] = VectorTensor(DType::kFloat32, v);
  } else if (attrs.Has("value_int")) {
    IOS_ASSIGN_OR_RETURN(int64_t v, attrs.GetInt("value_int", 0));
    (*outputs)[0] = Tensor::FromInt64({v}, {});
  } else if (attrs.Has("value_ints")) {
    IOS_ASSIGN_OR_RETURN(std::vector<int64_t> v, attrs.GetInts("value_ints", {}));
    (*outputs)[0] = VectorTensor(DType::kInt64, v);
  } else {
    return Unsupported(NodeLabel(node) +
                       "only value, value_float(s) and value_int(s) are supported");
  }
  return Status::Ok();
}

}  // namespace

void AddTensorReferenceKernels(ReferenceKernelTable& table) {
  table["Concat"] = ConcatKernel;
  table["Split"] = SplitKernel;
  table["Slice"] = SliceKernel;
  table["Reshape"] = ReshapeKernel;
  table["Flatten"] = FlattenKernel;
  table["Transpose"] = TransposeKernel;
  table["Squeeze"] = SqueezeKernel;
  table["Unsqueeze"] = UnsqueezeKernel;
  table["Pad"] = PadKernel;
  table["Shape"] = ShapeKernel;
  table["Gather"] = GatherKernel;
  table["Cast"] = CastKernel;
  table["ConstantOfShape"] = ConstantOfShapeKernel;
  table["Range"] = RangeKernel;
  table["Expand"] = ExpandKernel;
  table["Tile"] = TileKernel;
  table["Identity"] = IdentityKernel;
  table["Dropout"] = DropoutKernel;
  table["Constant"] = ConstantKernel;
}

}  // namespace ios
