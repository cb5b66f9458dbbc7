// Ops that only rearrange, select or create data (Concat, Split, Slice, Reshape, Pad, Gather,
// Shape, ...). Several take their parameters as constant inputs, whose values are needed here.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/op_registry.h"
#include "ops/op_util.h"
#include "util/checked_int.h"

namespace ios {
namespace {

using Inputs = std::vector<InferInput>;
using Outputs = std::vector<TensorType>;

int64_t Rank(const InferInput& input) { return static_cast<int64_t>(input.type.dims.size()); }

// ---- Concat / Split ----------------------------------------------------------------------------

Status InferConcat(const Node& node, const Inputs& inputs, Outputs* outputs) {
  // The attribute is required from opset 4; opset 1 defaulted to 1.
  if (node.opset >= 4 && !node.attrs.Has("axis")) {
    return InvalidInput("attribute 'axis' is required");
  }
  IOS_ASSIGN_OR_RETURN(int64_t attr_axis, node.attrs.GetInt("axis", 1));
  IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(attr_axis, Rank(inputs[0]), "axis"));
  IOS_RETURN_IF_ERROR(CheckSameDType(inputs));
  Dims out = inputs[0].type.dims;
  CheckedInt64 joined = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].present) continue;
    const Dims& dims = inputs[i].type.dims;
    bool compatible = dims.size() == out.size();
    for (size_t d = 0; compatible && d < dims.size(); ++d) {
      compatible = static_cast<int64_t>(d) == axis || dims[d] == out[d];
    }
    if (!compatible) {
      return InvalidInput("input " + std::to_string(i) + " has shape " + DimsToString(dims) +
                          " but input 0 has shape " + DimsToString(inputs[0].type.dims) +
                          "; they may differ only on axis " + std::to_string(axis));
    }
    joined += dims[axis];
  }
  IOS_ASSIGN_OR_RETURN(out[axis], joined.OrError("the joined axis " + std::to_string(axis)));
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

// Chunk sizes along the split axis: the `split` list (attribute before opset 13, input since),
// else num_outputs (opset 18, last chunk smaller), else equal chunks.
StatusOr<std::vector<int64_t>> SplitSizes(const Node& node, const Inputs& inputs, int64_t dim) {
  const int64_t n = static_cast<int64_t>(node.outputs.size());
  IOS_ASSIGN_OR_RETURN(IntList split, IntsFromAttrOrInput(node, inputs, "split", 1, 13));
  const bool has_num_outputs = node.opset >= 18 && node.attrs.Has("num_outputs");
  if (split.present && !split.values.empty()) {
    if (has_num_outputs) return InvalidInput("give either 'split' or 'num_outputs', not both");
    CheckedInt64 sum = 0;
    for (int64_t s : split.values) {
      if (s < 0) {
        return InvalidInput("split " + DimsToString(split.values) + " has a negative size");
      }
      sum += s;
    }
    if (static_cast<int64_t>(split.values.size()) != n || sum != dim) {
      return InvalidInput("split " + DimsToString(split.values) +
                          " must have one size per output (" + std::to_string(n) +
                          ") summing to the axis length " + std::to_string(dim));
    }
    return split.values;
  }
  if (node.opset >= 18) {
    if (!has_num_outputs) {
      return InvalidInput(
          "from opset 18, either input 'split' or attribute 'num_outputs' is required");
    }
    IOS_ASSIGN_OR_RETURN(int64_t num_outputs, node.attrs.GetInt("num_outputs", 0));
    if (num_outputs != n) {
      return InvalidInput("num_outputs is " + std::to_string(num_outputs) + " but the node has " +
                          std::to_string(n) + " outputs");
    }
    // Chunks of ceil(dim / n); the last one takes what is left and must not be empty.
    IOS_ASSIGN_OR_RETURN(const int64_t chunk,
                         ((CheckedInt64(dim) + n - 1) / n).OrError("the chunk length"));
    const int64_t last = dim - chunk * (n - 1);
    if (last < 1) {
      return InvalidInput("axis length " + std::to_string(dim) + " cannot be split into " +
                          std::to_string(n) + " chunks of " + std::to_string(chunk) +
                          " with a non-empty last chunk");
    }
    std::vector<int64_t> sizes(n, chunk);
    sizes.back() = last;
    return sizes;
  }
  if (dim % n != 0) {
    return InvalidInput("axis length " + std::to_string(dim) + " is not divisible into " +
                        std::to_string(n) + " equal outputs and no 'split' is given");
  }
  return std::vector<int64_t>(n, dim / n);
}

Status InferSplit(const Node& node, const Inputs& inputs, Outputs* outputs) {
  IOS_ASSIGN_OR_RETURN(int64_t attr_axis, node.attrs.GetInt("axis", 0));
  IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(attr_axis, Rank(inputs[0]), "axis"));
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                       SplitSizes(node, inputs, inputs[0].type.dims[axis]));
  for (size_t i = 0; i < sizes.size(); ++i) {
    (*outputs)[i] = inputs[0].type;
    (*outputs)[i].dims[axis] = sizes[i];
  }
  return Status::Ok();
}

// ---- Slice -------------------------------------------------------------------------------------

// Elements selected on one axis of length `dim`, with numpy clamping (ONNX Slice semantics).
int64_t SliceLength(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (dim == 0) return 0;
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return end > start ? (end - start - 1) / step + 1 : 0;
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  // (start - end - 1) / step truncates toward zero, so this is ceil((start - end) / -step)
  // without negating step (which overflows for INT64_MIN).
  return start > end ? 1 - (start - end - 1) / step : 0;
}

Status InferSlice(const Node& node, const Inputs& inputs, Outputs* outputs) {
  IOS_ASSIGN_OR_RETURN(IntList starts, IntsFromAttrOrInput(node, inputs, "starts", 1, 10));
  IOS_ASSIGN_OR_RETURN(IntList ends, IntsFromAttrOrInput(node, inputs, "ends", 2, 10));
  IOS_ASSIGN_OR_RETURN(IntList axes, IntsFromAttrOrInput(node, inputs, "axes", 3, 10));
  IntList steps;
  if (node.opset >= 10) {
    IOS_ASSIGN_OR_RETURN(steps, IntsFromInput(inputs, 4, "steps"));
  }
  if (!starts.present || !ends.present) return InvalidInput("'starts' and 'ends' are required");
  const size_t n = starts.values.size();
  const int64_t rank = Rank(inputs[0]);
  if (!axes.present) {
    for (size_t i = 0; i < n; ++i) axes.values.push_back(static_cast<int64_t>(i));
  }
  if (!steps.present) steps.values.assign(n, 1);
  if (ends.values.size() != n || axes.values.size() != n || steps.values.size() != n) {
    return InvalidInput("starts " + DimsToString(starts.values) + ", ends " +
                        DimsToString(ends.values) + ", axes " + DimsToString(axes.values) +
                        " and steps " + DimsToString(steps.values) + " must have the same length");
  }
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> axis_list, NormalizeAxes(axes.values, rank, "axis"));
  Dims out = inputs[0].type.dims;
  for (size_t i = 0; i < n; ++i) {
    if (steps.values[i] == 0) {
      return InvalidInput("steps " + DimsToString(steps.values) + " contain 0");
    }
    const int64_t axis = axis_list[i];
    out[axis] = SliceLength(out[axis], starts.values[i], ends.values[i], steps.values[i]);
  }
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

// ---- Reshape / Flatten / Transpose / Squeeze / Unsqueeze ---------------------------------------

// Resolves 0 (copy the input dim unless allow_zero) and a single -1 (inferred) in `shape`.
StatusOr<Dims> ResolveReshape(const Dims& in, const std::vector<int64_t>& shape, bool allow_zero) {
  Dims out(shape.size());
  int64_t infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t v = shape[i];
    if (v == -1) {
      if (infer_at >= 0) {
        return InvalidInput("shape " + DimsToString(shape) + " has more than one -1");
      }
      infer_at = static_cast<int64_t>(i);
      continue;
    }
    if (v == 0 && !allow_zero) {
      if (i >= in.size()) {
        return InvalidInput("shape " + DimsToString(shape) + " copies dim " + std::to_string(i) +
                            " (a 0) but the input " + DimsToString(in) + " has only " +
                            std::to_string(in.size()) + " dims");
      }
      v = in[i];
    }
    if (v < 0) return InvalidInput("shape " + DimsToString(shape) + " has a negative dim");
    out[i] = v;
    if (!CheckedMul(known, v, &known))
      return InvalidInput("shape " + DimsToString(shape) +
                          " has more elements than fit in 64 bits");
  }
  const int64_t total = NumElements(in);
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) {
      return InvalidInput("cannot reshape " + DimsToString(in) + " (" + std::to_string(total) +
                          " elements) to " + DimsToString(shape) + ": -1 cannot be inferred");
    }
    out[infer_at] = total / known;
  } else if (known != total) {
    return InvalidInput("cannot reshape " + DimsToString(in) + " (" + std::to_string(total) +
                        " elements) to " + DimsToString(out) + " (" + std::to_string(known) +
                        " elements)");
  }
  return out;
}

Status InferReshape(const Node& node, const Inputs& inputs, Outputs* outputs) {
  // Opset < 5 carries the shape as an attribute.
  IOS_ASSIGN_OR_RETURN(IntList shape, IntsFromAttrOrInput(node, inputs, "shape", 1, 5));
  if (!shape.present) return InvalidInput("'shape' is required");
  IOS_ASSIGN_OR_RETURN(int64_t allow_zero, node.attrs.GetInt("allowzero", 0));
  const auto has = [&](int64_t v) {
    return std::find(shape.values.begin(), shape.values.end(), v) != shape.values.end();
  };
  if (allow_zero != 0 && has(0) && has(-1)) {
    return InvalidInput("with allowzero=1 the shape " + DimsToString(shape.values) +
                        " cannot contain both 0 and -1");
  }
  IOS_ASSIGN_OR_RETURN(Dims out,
                       ResolveReshape(inputs[0].type.dims, shape.values, allow_zero != 0));
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

Status InferFlatten(const Node& node, const Inputs& inputs, Outputs* outputs) {
  const Dims& in = inputs[0].type.dims;
  const int64_t rank = Rank(inputs[0]);
  IOS_ASSIGN_OR_RETURN(int64_t axis, node.attrs.GetInt("axis", 1));
  // Flatten's axis may equal the rank (everything goes to the first dim).
  if (axis < -rank || axis > rank) {
    return InvalidInput("axis " + std::to_string(axis) + " is out of range for rank " +
                        std::to_string(rank) + " (valid: " + std::to_string(-rank) + ".." +
                        std::to_string(rank) + ")");
  }
  if (axis < 0) axis += rank;
  const Dims outer(in.begin(), in.begin() + axis);
  const Dims inner(in.begin() + axis, in.end());
  (*outputs)[0] = TensorType{inputs[0].type.dtype, {NumElements(outer), NumElements(inner)}};
  return Status::Ok();
}

Status InferTranspose(const Node& node, const Inputs& inputs, Outputs* outputs) {
  const Dims& in = inputs[0].type.dims;
  const int64_t rank = Rank(inputs[0]);
  std::vector<int64_t> reversed;
  for (int64_t i = rank - 1; i >= 0; --i) reversed.push_back(i);
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> perm, node.attrs.GetInts("perm", reversed));
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> identity(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) identity[i] = i;
  if (sorted != identity) {
    return InvalidInput("perm " + DimsToString(perm) + " is not a permutation of the " +
                        std::to_string(rank) + " input axes");
  }
  Dims out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = in[perm[i]];
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

Status InferSqueeze(const Node& node, const Inputs& inputs, Outputs* outputs) {
  const Dims& in = inputs[0].type.dims;
  IOS_ASSIGN_OR_RETURN(IntList axes, IntsFromAttrOrInput(node, inputs, "axes", 1, 13));
  std::vector<bool> drop(in.size(), false);
  if (axes.present) {
    IOS_ASSIGN_OR_RETURN(std::vector<int64_t> list,
                         NormalizeAxes(axes.values, Rank(inputs[0]), "axis"));
    for (int64_t axis : list) {
      if (in[axis] != 1) {
        return InvalidInput("cannot squeeze axis " + std::to_string(axis) + " of shape " +
                            DimsToString(in) + ": its size is " + std::to_string(in[axis]) +
                            ", not 1");
      }
      drop[axis] = true;
    }
  } else {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  }
  Dims out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

Status InferUnsqueeze(const Node& node, const Inputs& inputs, Outputs* outputs) {
  const Dims& in = inputs[0].type.dims;
  IOS_ASSIGN_OR_RETURN(IntList axes, IntsFromAttrOrInput(node, inputs, "axes", 1, 13));
  if (!axes.present) return InvalidInput("'axes' is required");
  // Axes index the output, whose rank is the input rank plus the number of new axes.
  const int64_t out_rank = Rank(inputs[0]) + static_cast<int64_t>(axes.values.size());
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> list, NormalizeAxes(axes.values, out_rank, "axis"));
  Dims out(static_cast<size_t>(out_rank), 1);
  size_t next = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (std::find(list.begin(), list.end(), i) == list.end()) out[i] = in[next++];
  }
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

// ---- Pad ---------------------------------------------------------------------------------------

// Pads: attribute `paddings` (opset 1) or `pads` (opset 2..10), input 1 since opset 11; axes
// (opset 18) name the axes the pads apply to.
Status InferPad(const Node& node, const Inputs& inputs, Outputs* outputs) {
  IOS_ASSIGN_OR_RETURN(std::string mode, node.attrs.GetString("mode", "constant"));
  if (mode == "wrap") return Unsupported("mode 'wrap' is not supported");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    return InvalidInput("mode '" + mode + "' is not one of constant, reflect, edge");
  }
  const Dims& in = inputs[0].type.dims;
  const int64_t rank = Rank(inputs[0]);
  IOS_ASSIGN_OR_RETURN(
      IntList pads, IntsFromAttrOrInput(node, inputs, node.opset < 2 ? "paddings" : "pads", 1, 11));
  if (!pads.present) return InvalidInput("'pads' is required");
  std::vector<int64_t> axes;
  if (OptionalInput(inputs, 3) != nullptr && node.opset < 18) {
    return InvalidInput("input 'axes' exists only from opset 18");
  }
  IOS_ASSIGN_OR_RETURN(IntList axes_input, IntsFromInput(inputs, 3, "axes"));
  if (axes_input.present) {
    IOS_ASSIGN_OR_RETURN(axes, NormalizeAxes(axes_input.values, rank, "axis"));
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  const size_t n = axes.size();
  if (pads.values.size() != 2 * n) {
    return InvalidInput("pads " + DimsToString(pads.values) + " has " +
                        std::to_string(pads.values.size()) + " values, expected " +
                        std::to_string(2 * n) + " (begin and end for each of " + std::to_string(n) +
                        " axes)");
  }
  Dims out = in;
  for (size_t i = 0; i < n; ++i) {
    const int64_t axis = axes[i];
    const int64_t begin = pads.values[i];
    const int64_t end = pads.values[i + n];
    // onnxruntime's limits: reflect cannot pad more than dim - 1, edge cannot pad an empty axis.
    if (mode == "reflect" && std::max(begin, end) > 0 && std::max(begin, end) > in[axis] - 1) {
      return InvalidInput("reflect pads " + DimsToString(pads.values) + " exceed the allowed " +
                          std::to_string(in[axis] - 1) + " on axis " + std::to_string(axis) +
                          " of length " + std::to_string(in[axis]));
    }
    if (mode == "edge" && in[axis] == 0 && std::max(begin, end) > 0) {
      return InvalidInput("edge mode cannot pad axis " + std::to_string(axis) + " of length 0");
    }
    IOS_ASSIGN_OR_RETURN(
        out[axis], (CheckedInt64(in[axis]) + begin + end)
                       .OrError("the padded length of axis " + std::to_string(axis) + " (pads " +
                                DimsToString(pads.values) + ")"));
    if (out[axis] < 0) {
      return InvalidInput("pads " + DimsToString(pads.values) + " remove more than the " +
                          std::to_string(in[axis]) + " elements of axis " + std::to_string(axis));
    }
  }
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

// ---- Shape / Gather / Cast ---------------------------------------------------------------------

Status InferShape(const Node& node, const Inputs& inputs, Outputs* outputs) {
  const int64_t rank = Rank(inputs[0]);
  int64_t start = 0;
  int64_t end = rank;
  if (node.opset >= 15) {  // start/end select a range of dims, clamped like Slice
    IOS_ASSIGN_OR_RETURN(start, node.attrs.GetInt("start", 0));
    IOS_ASSIGN_OR_RETURN(end, node.attrs.GetInt("end", rank));
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
  }
  (*outputs)[0] = TensorType{DType::kInt64, {std::max<int64_t>(0, end - start)}};
  return Status::Ok();
}

// Shape reads only metadata: the bytes are those of its output.
OpCost ShapeCost(const Node& node, const Outputs& inputs, const Outputs& outputs) {
  OpCost cost;
  cost.bytes_moved = BytesMoved({}, outputs);
  return cost;
}

Status InferGather(const Node& node, const Inputs& inputs, Outputs* outputs) {
  const Dims& data = inputs[0].type.dims;
  const InferInput& indices = inputs[1];
  IOS_ASSIGN_OR_RETURN(int64_t attr_axis, node.attrs.GetInt("axis", 0));
  IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(attr_axis, Rank(inputs[0]), "axis"));
  if (indices.type.dtype != DType::kInt32 && indices.type.dtype != DType::kInt64) {
    return InvalidInput("indices have type " + DTypeName(indices.type.dtype) +
                        "; expected int32 or int64");
  }
  if (indices.constant != nullptr) {
    // Negative indices count from the end: valid range is [-dim, dim - 1].
    for (int64_t index : indices.constant->ToInt64Vector()) {
      if (index < -data[axis] || index >= data[axis]) {
        return InvalidInput("index " + std::to_string(index) + " is out of range for axis " +
                            std::to_string(axis) + " of length " + std::to_string(data[axis]));
      }
    }
  }
  Dims out(data.begin(), data.begin() + axis);
  out.insert(out.end(), indices.type.dims.begin(), indices.type.dims.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

Status InferCast(const Node& node, const Inputs& inputs, Outputs* outputs) {
  if (!node.attrs.Has("to")) return InvalidInput("attribute 'to' is required");
  IOS_ASSIGN_OR_RETURN(int64_t to, node.attrs.GetInt("to", 0));
  const DType dtype = DTypeFromOnnx(static_cast<int32_t>(to));
  if (dtype == DType::kUndefined) {
    return Unsupported("cast to ONNX data type " + std::to_string(to) + " is not supported");
  }
  (*outputs)[0] = TensorType{dtype, inputs[0].type.dims};
  return Status::Ok();
}

// ---- ConstantOfShape / Range / Expand / Tile ---------------------------------------------------

Status InferConstantOfShape(const Node& node, const Inputs& inputs, Outputs* outputs) {
  IOS_ASSIGN_OR_RETURN(IntList shape, IntsFromInput(inputs, 0, "input"));
  for (int64_t d : shape.values) {
    if (d < 0) return InvalidInput("shape " + DimsToString(shape.values) + " has a negative dim");
  }
  DType dtype = DType::kFloat32;  // the default value is a float 0
  if (node.attrs.Has("value")) {
    const Tensor* value = node.attrs.GetTensor("value");
    if (value == nullptr || value->num_elements() != 1) {
      return InvalidInput("attribute 'value' must be a tensor with one element");
    }
    dtype = value->dtype();
  }
  (*outputs)[0] = TensorType{dtype, shape.values};
  return Status::Ok();
}

Status InferRange(const Node& node, const Inputs& inputs, Outputs* outputs) {
  const char* names[] = {"start", "limit", "delta"};
  for (size_t i = 0; i < 3; ++i) {
    if (inputs[i].constant == nullptr) return NonConstantInput(names[i]);
    if (inputs[i].constant->num_elements() != 1) {
      return InvalidInput("input '" + std::string(names[i]) + "' has shape " +
                          DimsToString(inputs[i].type.dims) + "; it must be a scalar");
    }
  }
  IOS_RETURN_IF_ERROR(CheckSameDType(inputs));
  const DType dtype = inputs[0].type.dtype;
  int64_t count;
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64 && dtype != DType::kInt32 &&
      dtype != DType::kInt64) {
    return Unsupported("Range of type " + DTypeName(dtype) + " is not supported");
  }
  if (dtype == DType::kFloat32 || dtype == DType::kFloat64) {
    const double start = inputs[0].constant->FloatAt(0);
    const double limit = inputs[1].constant->FloatAt(0);
    const double delta = inputs[2].constant->FloatAt(0);
    if (delta == 0) return InvalidInput("delta is 0");
    IOS_ASSIGN_OR_RETURN(count,
                         CheckedInt64::FromDouble(std::max(0.0, std::ceil((limit - start) / delta)))
                             .OrError("the element count of the range"));
  } else {
    const int64_t start = inputs[0].constant->IntAt(0);
    const int64_t limit = inputs[1].constant->IntAt(0);
    const int64_t delta = inputs[2].constant->IntAt(0);
    if (delta == 0) return InvalidInput("delta is 0");
    // ceil((limit - start) / delta) in integers; empty when the range runs the other way.
    IOS_ASSIGN_OR_RETURN(const int64_t span,
                         (CheckedInt64(limit) - start).OrError("limit - start of the range"));
    const bool empty = span == 0 || (span > 0) != (delta > 0);
    count = empty ? 0 : (span - (delta > 0 ? 1 : -1)) / delta + 1;
  }
  (*outputs)[0] = TensorType{dtype, {count}};
  return Status::Ok();
}

Status InferExpand(const Node& node, const Inputs& inputs, Outputs* outputs) {
  IOS_ASSIGN_OR_RETURN(IntList shape, IntsFromInput(inputs, 1, "shape"));
  IOS_ASSIGN_OR_RETURN(Dims out, BroadcastDims(inputs[0].type.dims, shape.values));
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

Status InferTile(const Node& node, const Inputs& inputs, Outputs* outputs) {
  IOS_ASSIGN_OR_RETURN(IntList repeats, IntsFromInput(inputs, 1, "repeats"));
  Dims out = inputs[0].type.dims;
  if (repeats.values.size() != out.size()) {
    return InvalidInput("repeats " + DimsToString(repeats.values) + " must have one value per " +
                        "input dim; the input has shape " + DimsToString(out));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (repeats.values[i] < 0) {
      return InvalidInput("repeats " + DimsToString(repeats.values) + " has a negative value");
    }
    IOS_ASSIGN_OR_RETURN(out[i], (CheckedInt64(out[i]) * repeats.values[i])
                                     .OrError("dim " + std::to_string(i) + " repeated " +
                                              std::to_string(repeats.values[i]) + " times"));
  }
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

}  // namespace

void RegisterTensorOps(OpRegistry& registry) {
  const CostFn copy = MakeElementwiseCost(0);  // data movement only
  RegisterOp(registry, OpSchema{"Concat", 1, -1, 1, 1, InferConcat, copy, OpRole::kConcat});
  RegisterOp(registry, OpSchema{"Split", 1, 2, 1, -1, InferSplit, copy});
  RegisterOp(registry, OpSchema{"Slice", 1, 5, 1, 1, InferSlice, copy});
  RegisterOp(registry, OpSchema{"Reshape", 1, 2, 1, 1, InferReshape, copy});
  RegisterOp(registry, OpSchema{"Flatten", 1, 1, 1, 1, InferFlatten, copy});
  RegisterOp(registry, OpSchema{"Transpose", 1, 1, 1, 1, InferTranspose, copy});
  RegisterOp(registry, OpSchema{"Squeeze", 1, 2, 1, 1, InferSqueeze, copy});
  RegisterOp(registry, OpSchema{"Unsqueeze", 1, 2, 1, 1, InferUnsqueeze, copy});
  RegisterOp(registry, OpSchema{"Pad", 1, 4, 1, 1, InferPad, copy});
  RegisterOp(registry, OpSchema{"Shape", 1, 1, 1, 1, InferShape, ShapeCost});
  RegisterOp(registry, OpSchema{"Gather", 2, 2, 1, 1, InferGather, copy});
  RegisterOp(registry, OpSchema{"Cast", 1, 1, 1, 1, InferCast, MakeElementwiseCost(1)});
  RegisterOp(registry, OpSchema{"ConstantOfShape", 1, 1, 1, 1, InferConstantOfShape, copy});
  RegisterOp(registry, OpSchema{"Range", 3, 3, 1, 1, InferRange, copy});
  RegisterOp(registry, OpSchema{"Expand", 2, 2, 1, 1, InferExpand, copy});
  RegisterOp(registry, OpSchema{"Tile", 2, 2, 1, 1, InferTile, copy});
}

}  // namespace ios
