// Conversion between ONNX TensorProto and ios::Tensor, and reading/writing .pb tensor files.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

// Decodes raw_data or the typed repeated fields; checks that the data size matches the dims.
// `what` names the tensor in error messages. External data is Unsupported.
StatusOr<Tensor> TensorFromProto(const onnx::TensorProto& proto, const std::string& what);
// Encodes as raw_data.
onnx::TensorProto TensorToProto(const Tensor& tensor, const std::string& name);

StatusOr<Tensor> ReadTensorFile(const std::string& path);
// Writes atomically: a temporary file in the same folder, then rename.
Status WriteTensorFile(const Tensor& tensor, const std::string& name, const std::string& path);

}  // namespace ios
