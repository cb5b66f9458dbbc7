// Helpers shared by the reference kernels: dtype dispatch, broadcasting, multi-index iteration,
// attribute/input reading and the window (conv/pool) geometry that ONNX defines.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "ops/node_reading.h"  // OpsetBefore, NodeLabel, NormalizeAxis, ReadIntsInput
#include "util/status.h"

namespace ios {

// ---- dtype dispatch -------------------------------------------------------------------------
// A value that carries a C++ element type into a generic lambda: `[&](auto tag) { using T =
// typename decltype(tag)::type; ... }`.
template <typename T>
struct TypeTag {
  using type = T;
};

// The C++ type that stores a bool tensor's elements (one byte, 0 or 1).
using BoolStorage = uint8_t;

// Calls fn(TypeTag<T>{}) for the C++ type of `dtype` when it is one of the numeric types the
// reference kernels handle (float32, float64, int64, int32, int8, uint8); Unsupported otherwise.
template <typename Fn>
Status DispatchNumeric(DType dtype, const std::string& op_type, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat32:
      return fn(TypeTag<float>{});
    case DType::kFloat64:
      return fn(TypeTag<double>{});
    case DType::kInt64:
      return fn(TypeTag<int64_t>{});
    case DType::kInt32:
      return fn(TypeTag<int32_t>{});
    case DType::kInt8:
      return fn(TypeTag<int8_t>{});
    case DType::kUint8:
      return fn(TypeTag<uint8_t>{});
    default:
      break;
  }
  return Unsupported(op_type + ": element type " + DTypeName(dtype) + " is not supported");
}

// As DispatchNumeric, but only float32 and float64.
template <typename Fn>
Status DispatchFloat(DType dtype, const std::string& op_type, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat32:
      return fn(TypeTag<float>{});
    case DType::kFloat64:
      return fn(TypeTag<double>{});
    default:
      break;
  }
  return Unsupported(op_type + ": element type " + DTypeName(dtype) + " is not supported");
}

// As DispatchNumeric, plus bool (stored as BoolStorage).
template <typename Fn>
Status DispatchNumericOrBool(DType dtype, const std::string& op_type, Fn&& fn) {
  if (dtype == DType::kBool) return fn(TypeTag<BoolStorage>{});
  return DispatchNumeric(dtype, op_type, std::forward<Fn>(fn));
}

// True for the dtypes whose elements the reference kernels can copy around (every dtype with
// a known size: the numeric types, bool and float16).
bool IsCopyableDType(DType dtype);

// ---- input and attribute checks ------------------------------------------------------------
// InvalidInput unless inputs[index] is present.
Status RequireInput(const Node& node, const std::vector<const Tensor*>& inputs, size_t index);
// The input when it is present, else null (also when the node has fewer inputs).
const Tensor* OptionalInput(const std::vector<const Tensor*>& inputs, size_t index);
// InvalidInput unless the node has at least `count` output slots.
Status RequireOutputs(const Node& node, const std::vector<Tensor>* outputs, size_t count);

// InvalidInput unless every dimension is >= 0 and the element count stays within what a
// reference kernel should ever materialise (2^32 elements), so that a malformed shape input
// cannot overflow the count or exhaust memory.
Status CheckOutputDims(const Node& node, const Dims& dims);

// A scalar (or one-element) input as double.
StatusOr<double> ReadScalarInput(const Node& node, const Tensor& tensor, const char* what);

// ---- index arithmetic ----------------------------------------------------------------------
// floor(a / b) and ceil(a / b) for b > 0 (C++ division truncates toward zero instead).
int64_t FloorDiv(int64_t a, int64_t b);
int64_t CeilDiv(int64_t a, int64_t b);
// Advances a row-major multi-index over `dims`; false after the last index.
bool NextIndex(Dims& index, const Dims& dims);
// Offset of a multi-index in a tensor with the given strides.
int64_t OffsetOf(const Dims& index, const Dims& strides);
// Calls fn(index) for every multi-index of `dims` in row-major order (once for a scalar, never
// when a dimension is 0).
template <typename Fn>
void ForEachIndex(const Dims& dims, Fn&& fn) {
  if (NumElements(dims) == 0) return;
  Dims index(dims.size(), 0);
  do {
    fn(static_cast<const Dims&>(index));
  } while (NextIndex(index, dims));
}

// The multidirectional (numpy) broadcast of several shapes; InvalidInput when incompatible.
StatusOr<Dims> BroadcastShapes(const Node& node, const std::vector<Dims>& shapes);
// Strides for reading a tensor of shape `in` while iterating over the broadcast shape `out`:
// aligned to out's rank from the right, 0 for broadcast (size-1 or missing) dimensions.
Dims BroadcastStrides(const Dims& in, const Dims& out);

// Walks the elements of a broadcast output in row-major order and tracks the matching offset
// in each input.
class BroadcastIterator {
 public:
  BroadcastIterator(const Dims& out_dims, const std::vector<Dims>& input_dims);
  // Offset into input i for the current output element.
  int64_t offset(size_t i) const { return offsets_[i]; }
  // Moves to the next output element.
  void Next();

 private:
  Dims out_dims_;
  Dims index_;
  std::vector<Dims> strides_;
  std::vector<int64_t> offsets_;
};

// ---- window geometry (Conv, ConvTranspose-free pools, MaxPool, AveragePool) ----------------
struct WindowGeometry {
  Dims kernel;  // per spatial dimension
  Dims strides;
  Dims dilations;
  Dims pads_begin;
  Dims pads_end;
  Dims output;  // output spatial sizes
};

// Reads strides, dilations, pads and auto_pad from the node and computes the output spatial
// sizes for sliding a window of `kernel` over `input` (spatial dimensions only). ONNX rules:
// NOTSET uses the explicit pads, VALID no pads, SAME_UPPER/SAME_LOWER output ceil(in/stride)
// with the extra pad at the end/begin. With ceil_mode (pools), onnxruntime's rule applies:
// out = ceil((in + pads - ((k-1)*d+1)) / s) + 1, less one when the last window would start at
// or after the end of the input plus the begin pad.
StatusOr<WindowGeometry> ComputeWindowGeometry(const Node& node, const Dims& input,
                                               const Dims& kernel, bool ceil_mode);

// ---- conversion helpers --------------------------------------------------------------------
// IEEE 754 half precision (float16 tensors store the 16 bits). The double-to-half conversion
// rounds to nearest even directly from the double, as numpy does.
double HalfBitsToDouble(uint16_t bits);
uint16_t DoubleToHalfBits(double value);

// Converts between element types the way Cast does: float to integer truncates toward zero
// (NaN and out-of-range values give the integer minimum, then wrap to narrower types, as
// x86 does), anything to bool is x != 0.
template <typename To, typename From>
To ConvertElement(From value) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // -9.2e18 .. 9.2e18 is exactly int64's range in double; outside it (and NaN) use INT64_MIN.
    constexpr double kLimit = 9223372036854775808.0;
    int64_t wide = INT64_MIN;
    double v = static_cast<double>(value);
    if (v > -kLimit && v < kLimit) wide = static_cast<int64_t>(v);
    if constexpr (std::is_same_v<To, int64_t>) {
      return wide;
    } else {
      // Wrap modulo 2^bits (well defined via the unsigned type).
      using U = std::make_unsigned_t<To>;
      return static_cast<To>(static_cast<U>(static_cast<uint64_t>(wide)));
    }
  } else if constexpr (std::is_integral_v<From> && std::is_integral_v<To> &&
                       sizeof(To) < sizeof(From)) {
    using U = std::make_unsigned_t<To>;
    return static_cast<To>(static_cast<U>(value));
  } else {
    return static_cast<To>(value);
  }
}

}  // namespace ios
