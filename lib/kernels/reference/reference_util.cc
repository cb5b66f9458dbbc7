#include "kernels/reference/reference_util.h"

#include <algorithm>
#include <cmath>

namespace ios {

bool IsCopyableDType(DType dtype) { return DTypeSize(dtype) != 0; }

std::string NodeLabel(const Node& node) {
  return node.op_type + (node.name.empty() ? std::string() : " '" + node.name + "'") + ": ";
}

Status RequireInput(const Node& node, const std::vector<const Tensor*>& inputs, size_t index) {
  if (index >= inputs.size() || inputs[index] == nullptr)
    return InvalidInput(NodeLabel(node) + "missing required input " + std::to_string(index));
  return Status::Ok();
}

const Tensor* OptionalInput(const std::vector<const Tensor*>& inputs, size_t index) {
  return index < inputs.size() ? inputs[index] : nullptr;
}

Status RequireOutputs(const Node& node, const std::vector<Tensor>* outputs, size_t count) {
  if (outputs == nullptr || outputs->size() < count)
    return InvalidInput(NodeLabel(node) + "expects at least " + std::to_string(count) +
                        " output(s)");
  return Status::Ok();
}

Status CheckOutputDims(const Node& node, const Dims& dims) {
  constexpr int64_t kMaxElements = int64_t{1} << 32;
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0)
      return InvalidInput(NodeLabel(node) + "negative dimension in output shape " +
                          DimsToString(dims));
    if (d != 0 && count > kMaxElements / d)
      return InvalidInput(NodeLabel(node) + "output shape " + DimsToString(dims) +
                          " has too many elements");
    count *= d;
  }
  return Status::Ok();
}

StatusOr<int64_t> NormalizeAxis(const Node& node, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return InvalidInput(NodeLabel(node) + "axis " + std::to_string(axis) +
                        " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

StatusOr<std::vector<int64_t>> ReadIntsInput(const Node& node, const Tensor& tensor,
                                             const char* what) {
  if (tensor.dtype() != DType::kInt64 && tensor.dtype() != DType::kInt32)
    return InvalidInput(NodeLabel(node) + what + " must be int64 or int32, not " +
                        DTypeName(tensor.dtype()));
  return tensor.ToInt64Vector();
}

StatusOr<double> ReadScalarInput(const Node& node, const Tensor& tensor, const char* what) {
  if (tensor.num_elements() != 1)
    return InvalidInput(NodeLabel(node) + what + " must have exactly one element, has " +
                        std::to_string(tensor.num_elements()));
  if (!IsCopyableDType(tensor.dtype()) || tensor.dtype() == DType::kFloat16)
    return Unsupported(NodeLabel(node) + what + " has unsupported type " +
                       DTypeName(tensor.dtype()));
  return tensor.FloatAt(0);
}

bool NextIndex(Dims& index, const Dims& dims) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

int64_t OffsetOf(const Dims& index, const Dims& strides) {
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
  return offset;
}

StatusOr<Dims> BroadcastShapes(const Node& node, const std::vector<Dims>& shapes) {
  size_t rank = 0;
  for (const Dims& s : shapes) rank = std::max(rank, s.size());
  Dims out(rank, 1);
  for (const Dims& s : shapes) {
    size_t offset = rank - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& o = out[offset + d];
      if (s[d] == o || s[d] == 1) continue;
      if (o == 1) {
        o = s[d];
        continue;
      }
      std::string message = NodeLabel(node) + "shapes";
      for (const Dims& t : shapes) message += " " + DimsToString(t);
      return InvalidInput(message + " cannot be broadcast together");
    }
  }
  return out;
}

Dims BroadcastStrides(const Dims& in, const Dims& out) {
  Dims strides(out.size(), 0);
  Dims in_strides = RowMajorStrides(in);
  size_t offset = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) strides[offset + d] = in[d] == 1 ? 0 : in_strides[d];
  return strides;
}

BroadcastIterator::BroadcastIterator(const Dims& out_dims, const std::vector<Dims>& input_dims)
    : out_dims_(out_dims), index_(out_dims.size(), 0), offsets_(input_dims.size(), 0) {
  for (const Dims& in : input_dims) strides_.push_back(BroadcastStrides(in, out_dims));
}

void BroadcastIterator::Next() {
  // Increment the multi-index; each input offset moves by that dimension's stride, and a
  // dimension that wraps back to 0 takes its accumulated stride back out.
  for (int64_t d = static_cast<int64_t>(out_dims_.size()) - 1; d >= 0; --d) {
    if (++index_[d] < out_dims_[d]) {
      for (size_t i = 0; i < offsets_.size(); ++i) offsets_[i] += strides_[i][d];
      return;
    }
    for (size_t i = 0; i < offsets_.size(); ++i) offsets_[i] -= (out_dims_[d] - 1) * strides_[i][d];
    index_[d] = 0;
  }
}

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t CeilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

StatusOr<WindowGeometry> ComputeWindowGeometry(const Node& node, const Dims& input,
                                               const Dims& kernel, bool ceil_mode) {
  const size_t n = input.size();
  const std::string label = NodeLabel(node);
  WindowGeometry g;
  g.kernel = kernel;
  if (kernel.size() != n)
    return InvalidInput(label + "kernel has " + std::to_string(kernel.size()) +
                        " spatial dimensions, the input " + std::to_string(n));
  IOS_ASSIGN_OR_RETURN(g.strides, node.attrs.GetInts("strides", Dims(n, 1)));
  IOS_ASSIGN_OR_RETURN(g.dilations, node.attrs.GetInts("dilations", Dims(n, 1)));
  IOS_ASSIGN_OR_RETURN(Dims pads, node.attrs.GetInts("pads", Dims(2 * n, 0)));
  IOS_ASSIGN_OR_RETURN(std::string auto_pad, node.attrs.GetString("auto_pad", "NOTSET"));
  if (g.strides.size() != n) return InvalidInput(label + "strides has the wrong length");
  if (g.dilations.size() != n) return InvalidInput(label + "dilations has the wrong length");
  if (pads.size() != 2 * n) return InvalidInput(label + "pads has the wrong length");
  g.pads_begin.assign(pads.begin(), pads.begin() + n);
  g.pads_end.assign(pads.begin() + n, pads.end());
  g.output.assign(n, 0);

  // As the op registry's window checks (ops/op_util.cc): values below 2^31 keep the arithmetic
  // below far from overflow.
  constexpr int64_t kMaxValue = (int64_t{1} << 31) - 1;
  for (size_t d = 0; d < n; ++d) {
    if (g.kernel[d] < 1) return InvalidInput(label + "kernel sizes must be positive");
    if (g.strides[d] < 1) return InvalidInput(label + "strides must be positive");
    if (g.dilations[d] < 1) return InvalidInput(label + "dilations must be positive");
    if (g.pads_begin[d] < 0 || g.pads_end[d] < 0)
      return InvalidInput(label + "pads must not be negative");
    if (g.kernel[d] > kMaxValue || g.strides[d] > kMaxValue || g.dilations[d] > kMaxValue ||
        g.pads_begin[d] > kMaxValue || g.pads_end[d] > kMaxValue)
      return InvalidInput(label + "kernel, strides, dilations and pads must be below 2^31");
    const int64_t in = input[d];
    const int64_t s = g.strides[d];
    const int64_t effective_kernel = (g.kernel[d] - 1) * g.dilations[d] + 1;

    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      g.output[d] = CeilDiv(in, s);
      int64_t total = std::max<int64_t>(0, (g.output[d] - 1) * s + effective_kernel - in);
      int64_t small_half = total / 2;
      bool upper = auto_pad == "SAME_UPPER";
      g.pads_begin[d] = upper ? small_half : total - small_half;
      g.pads_end[d] = upper ? total - small_half : small_half;
      continue;
    }
    if (auto_pad == "VALID") {
      g.pads_begin[d] = 0;
      g.pads_end[d] = 0;
    } else if (auto_pad != "NOTSET" && !auto_pad.empty()) {
      return InvalidInput(label + "unknown auto_pad '" + auto_pad + "'");
    }
    const int64_t span = in + g.pads_begin[d] + g.pads_end[d] - effective_kernel;
    if (span < 0)
      return InvalidInput(label + "the window (" + std::to_string(effective_kernel) +
                          ") is larger than the padded input (" +
                          std::to_string(in + g.pads_begin[d] + g.pads_end[d]) + ")");
    if (ceil_mode) {
      g.output[d] = CeilDiv(span, s) + 1;
      // The last window must start inside the input or its begin padding.
      if ((g.output[d] - 1) * s >= in + g.pads_begin[d]) --g.output[d];
    } else {
      g.output[d] = FloorDiv(span, s) + 1;
    }
  }
  return g;
}

double HalfBitsToDouble(uint16_t bits) {
  const int sign = bits >> 15;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  double magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), -24);  // zero or subnormal
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa + 1024), exponent - 25);
  }
  return sign ? -magnitude : magnitude;
}

uint16_t DoubleToHalfBits(double value) {
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return sign | 0x7e00;
  const double magnitude = std::fabs(value);
  if (magnitude >= 65520.0) return sign | 0x7c00;  // rounds to infinity
  if (magnitude < std::ldexp(1.0, -14)) {
    // Subnormal: units of 2^-24; rounding up to 1024 yields the smallest normal, 0x0400.
    return sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(magnitude, 24)));
  }
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = f * 2^exponent, f in [0.5, 1)
  exponent -= 1;                     // now magnitude / 2^exponent is in [1, 2)
  int64_t mantissa =
      static_cast<int64_t>(std::nearbyint(std::ldexp(magnitude, 10 - exponent))) - 1024;
  if (mantissa == 1024) {
    mantissa = 0;
    ++exponent;
  }
  if (exponent + 15 >= 31) return sign | 0x7c00;
  return sign | static_cast<uint16_t>(((exponent + 15) << 10) | mantissa);
}

}  // namespace ios
