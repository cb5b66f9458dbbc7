#include "kernels/reference/reference_util.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "ops/op_util.h"

namespace ios {

bool IsCopyableDType(DType dtype) { return DTypeSize(dtype) != 0; }

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
  // The op registry's reading and arithmetic (ops/op_util.h), so that shape inference, the
  // reference kernels and every backend agree on the window; messages name the node.
  auto labelled = [&](const Status& status) {
    return Status(status.code(), NodeLabel(node) + status.message());
  };
  StatusOr<WindowParams> params = ReadWindowParams(node, kernel);
  if (!params.ok()) return labelled(params.status());
  StatusOr<Dims> output = WindowOutputDims(input, ceil_mode, &*params);
  if (!output.ok()) return labelled(output.status());
  const size_t n = kernel.size();
  WindowGeometry g;
  g.kernel = params->kernel;
  g.strides = params->strides;
  g.dilations = params->dilations;
  g.pads_begin.assign(params->pads.begin(), params->pads.begin() + static_cast<std::ptrdiff_t>(n));
  g.pads_end.assign(params->pads.begin() + static_cast<std::ptrdiff_t>(n), params->pads.end());
  g.output = *output;
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
