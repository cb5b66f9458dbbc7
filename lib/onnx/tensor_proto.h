// Conversion between ONNX TensorProto and ios::Tensor, and reading/writing .pb tensor files.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

class ExternalDataReader;

// Decodes raw_data, the typed repeated fields, or external data (read through `external`;
// without one, a tensor with external data is refused); checks that the data size matches the
// dims before allocating anything. `what` names the tensor in error messages.
StatusOr<Tensor> TensorFromProto(const onnx::TensorProto& proto, const std::string& what,
                                 ExternalDataReader* external = nullptr);
// Encodes as raw_data.
onnx::TensorProto TensorToProto(const Tensor& tensor, const std::string& name);

StatusOr<Tensor> ReadTensorFile(const std::string& path);
// Writes atomically: a temporary file in the same folder, then rename.
Status WriteTensorFile(const Tensor& tensor, const std::string& name, const std::string& path);

}  // namespace ios
