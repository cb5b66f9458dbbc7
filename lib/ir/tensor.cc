#include "ir/tensor.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "kernels/math/cast_math.h"  // HalfToDouble: header-only element math, no dependencies

namespace ios {

int64_t NumElements(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string DimsToString(const Dims& dims) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < dims.size(); ++i) out << (i ? "," : "") << dims[i];
  out << "]";
  return out.str();
}

Dims RowMajorStrides(const Dims& dims) {
  Dims strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}

Tensor::Tensor(DType dtype, Dims dims)
    : dtype_(dtype),
      dims_(std::move(dims)),
      bytes_(static_cast<size_t>(NumElements(dims_)) * DTypeSize(dtype), 0) {}

int64_t Tensor::IntAt(int64_t i) const {
  switch (dtype_) {
    case DType::kInt64:
      return data<int64_t>()[i];
    case DType::kInt32:
      return data<int32_t>()[i];
    case DType::kInt8:
      return data<int8_t>()[i];
    case DType::kUint8:
      return data<uint8_t>()[i];
    case DType::kBool:
      return data<uint8_t>()[i] != 0;
    // As Cast converts (kernels/math/cast_math.h): toward zero, and INT64_MIN for NaN and
    // values outside int64, where a plain cast is undefined (the fuzzer fed a NaN).
    case DType::kFloat32:
      return CastToWideInteger(CastValue{true, data<float>()[i], 0});
    case DType::kFloat64:
      return CastToWideInteger(CastValue{true, data<double>()[i], 0});
    default:
      return 0;
  }
}

int64_t CheckedNumBytes(DType dtype, const Dims& dims) {
  CheckedInt64 bytes = static_cast<int64_t>(DTypeSize(dtype));
  bool empty = false;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    empty = empty || d == 0;
    bytes *= std::max<int64_t>(d, 1);
  }
  if (!bytes.ok()) return -1;
  return empty ? 0 : *bytes.get();
}

double Tensor::FloatAt(int64_t i) const {
  switch (dtype_) {
    case DType::kFloat32:
      return data<float>()[i];
    case DType::kFloat64:
      return data<double>()[i];
    case DType::kFloat16:
      return HalfToDouble(data<uint16_t>()[i]);
    default:
      return static_cast<double>(IntAt(i));
  }
}

std::vector<int64_t> Tensor::ToInt64Vector() const {
  std::vector<int64_t> out(static_cast<size_t>(num_elements()));
  for (int64_t i = 0; i < num_elements(); ++i) out[i] = IntAt(i);
  return out;
}

Tensor Tensor::FromInt64(const std::vector<int64_t>& values, Dims dims) {
  Tensor t(DType::kInt64, std::move(dims));
  // No memcpy for an empty vector: its data() may be null. Never past `values`' end.
  const size_t n = std::min(values.size(), static_cast<size_t>(t.num_elements()));
  if (n > 0) std::memcpy(t.raw(), values.data(), n * sizeof(int64_t));
  return t;
}

Tensor Tensor::FromFloat(const std::vector<float>& values, Dims dims) {
  Tensor t(DType::kFloat32, std::move(dims));
  const size_t n = std::min(values.size(), static_cast<size_t>(t.num_elements()));
  if (n > 0) std::memcpy(t.raw(), values.data(), n * sizeof(float));
  return t;
}

}  // namespace ios
