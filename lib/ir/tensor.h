// A dense, row-major tensor held on the host: weights, folded constants, and the data that
// reference kernels read and write.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "util/checked_int.h"

namespace ios {

using Dims = std::vector<int64_t>;

// Number of elements; 1 for a scalar (empty dims). Plain arithmetic: for dims that
// CheckedNumBytes accepted.
int64_t NumElements(const Dims& dims);
// Bytes of a dense tensor of these dims, or -1 when a dimension is negative or the dims do not
// fit: their bytes with every 0 counted as 1 must fit in int64, so that the element count of
// any subset of them (a Flatten's two halves, a Concat's rows) fits too, also in an empty tensor
// (a hostile or mistaken shape, whose element count would overflow).
int64_t CheckedNumBytes(DType dtype, const Dims& dims);
std::string DimsToString(const Dims& dims);
// Row-major strides in elements.
Dims RowMajorStrides(const Dims& dims);

class Tensor {
 public:
  Tensor() = default;
  Tensor(DType dtype, Dims dims);

  DType dtype() const { return dtype_; }
  const Dims& dims() const { return dims_; }
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  int64_t num_elements() const { return NumElements(dims_); }
  size_t num_bytes() const { return bytes_.size(); }

  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(bytes_.data());
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(bytes_.data());
  }
  uint8_t* raw() { return bytes_.data(); }
  const uint8_t* raw() const { return bytes_.data(); }

  // Reads element i of an integer or float tensor as int64 / double (for shape math).
  int64_t IntAt(int64_t i) const;
  double FloatAt(int64_t i) const;
  // All elements of an integer tensor as int64 (for shape, axes, pads inputs).
  std::vector<int64_t> ToInt64Vector() const;

  void Reshape(Dims dims) { dims_ = std::move(dims); }

  static Tensor FromInt64(const std::vector<int64_t>& values, Dims dims);
  static Tensor FromFloat(const std::vector<float>& values, Dims dims);

 private:
  DType dtype_ = DType::kUndefined;
  Dims dims_;
  std::vector<uint8_t> bytes_;  // std::vector's allocator aligns to max_align_t
};

}  // namespace ios
