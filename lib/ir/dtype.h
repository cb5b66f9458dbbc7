// Element types of tensors. Values match ONNX's TensorProto.DataType so that import and export
// are a cast, but ios code never depends on the numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ios {

enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUint8 = 2,
  kInt8 = 3,
  kInt32 = 6,
  kInt64 = 7,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
};

// Bytes per element; 0 for kUndefined.
size_t DTypeSize(DType dtype);
std::string DTypeName(DType dtype);
// Maps an ONNX TensorProto.DataType number; kUndefined when ios does not handle it.
DType DTypeFromOnnx(int32_t onnx_type);

}  // namespace ios
