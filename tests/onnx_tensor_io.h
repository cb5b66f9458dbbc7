// Test helpers: ONNX TensorProto / AttributeProto → ios values, for the conformance test that
// runs ONNX's backend node tests. Self-contained on purpose (it may move into lib/onnx/).
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "ir/attribute.h"
#include "ir/tensor.h"
#include "util/status.h"

namespace ios::test {

// Decodes raw_data or the typed fields (float_data, double_data, int64_data, int32_data).
// Unsupported for element types ios has no DType for and for external data.
StatusOr<Tensor> TensorFromOnnx(const onnx::TensorProto& proto);
// Reads a serialised TensorProto file (the input_N.pb / output_N.pb of a node test).
StatusOr<Tensor> ReadOnnxTensorFile(const std::string& path);
// Converts a tensor, int, float, string or list attribute; Unsupported for graphs, sparse
// tensors, type protos and function attribute references.
StatusOr<AttributeValue> AttributeFromOnnx(const onnx::AttributeProto& proto);

}  // namespace ios::test
