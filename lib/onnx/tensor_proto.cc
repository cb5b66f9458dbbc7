#include "onnx/tensor_proto.h"

#include <algorithm>
#include <cstring>

#include "onnx/external_data.h"
#include "util/checked_int.h"
#include "util/file_util.h"

namespace ios {
namespace {

template <typename Dst, typename Field>
void CopyTypedField(const Field& field, Tensor& tensor) {
  Dst* dst = tensor.data<Dst>();
  for (int i = 0; i < field.size(); ++i) dst[i] = static_cast<Dst>(field.Get(i));
}

}  // namespace

StatusOr<Tensor> TensorFromProto(const onnx::TensorProto& proto, const std::string& what,
                                 ExternalDataReader* external) {
  DType dtype = DTypeFromOnnx(proto.data_type());
  if (dtype == DType::kUndefined) {
    return Unsupported(what + ": tensor element type " + std::to_string(proto.data_type()) +
                       " is not supported");
  }
  Dims dims(proto.dims().begin(), proto.dims().end());
  // Sizes are checked against the data before the tensor is allocated: dims that claim more
  // than the data holds are an error, not an allocation of that size. Every shape's rule
  // (CheckedNumBytes: a 0 dim counts as 1, so that an empty tensor cannot hide dims whose
  // product overflows), with room for 16 bytes per element.
  CheckedInt64 room = 16;
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) return InvalidInput(what + ": negative dimension in " + DimsToString(dims));
    room *= std::max<int64_t>(d, 1);
    if (!room.ok()) return InvalidInput(what + ": dims " + DimsToString(dims) + " overflow a size");
    count *= d;
  }
  const int64_t expected = count * static_cast<int64_t>(DTypeSize(dtype));
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    if (external == nullptr) {
      return Unsupported(what +
                         ": its data is external, and the model was not read from a file "
                         "whose folder would hold it");
    }
    IOS_ASSIGN_OR_RETURN(ExternalDataRef ref, ParseExternalDataRef(proto, what));
    IOS_RETURN_IF_ERROR(external->Check(ref, expected, what));
    Tensor tensor(dtype, dims);
    IOS_RETURN_IF_ERROR(external->Read(ref, expected, tensor.raw(), what));
    return tensor;
  }
  if (proto.has_raw_data()) {
    if (static_cast<int64_t>(proto.raw_data().size()) != expected) {
      return InvalidInput(what + ": has " + std::to_string(proto.raw_data().size()) +
                          " bytes of data, expected " + std::to_string(expected) + " for " +
                          DTypeName(dtype) + DimsToString(dims));
    }
    Tensor tensor(dtype, dims);
    if (expected > 0) std::memcpy(tensor.raw(), proto.raw_data().data(), expected);
    return tensor;
  }
  int64_t stored = 0;
  switch (dtype) {
    case DType::kFloat32:
      stored = proto.float_data_size();
      break;
    case DType::kFloat64:
      stored = proto.double_data_size();
      break;
    case DType::kInt64:
      stored = proto.int64_data_size();
      break;
    default:
      stored = proto.int32_data_size();
      break;  // int32, int8, uint8, bool, float16 bits
  }
  if (stored != count) {
    return InvalidInput(what + ": has " + std::to_string(stored) + " elements, expected " +
                        std::to_string(count) + " for " + DTypeName(dtype) + DimsToString(dims));
  }
  Tensor tensor(dtype, dims);
  switch (dtype) {
    case DType::kFloat32:
      CopyTypedField<float>(proto.float_data(), tensor);
      break;
    case DType::kFloat64:
      CopyTypedField<double>(proto.double_data(), tensor);
      break;
    case DType::kInt64:
      CopyTypedField<int64_t>(proto.int64_data(), tensor);
      break;
    case DType::kInt32:
      CopyTypedField<int32_t>(proto.int32_data(), tensor);
      break;
    case DType::kInt8:
      CopyTypedField<int8_t>(proto.int32_data(), tensor);
      break;
    case DType::kUint8:
      CopyTypedField<uint8_t>(proto.int32_data(), tensor);
      break;
    case DType::kBool:
      CopyTypedField<uint8_t>(proto.int32_data(), tensor);
      break;
    case DType::kFloat16:
      CopyTypedField<uint16_t>(proto.int32_data(), tensor);
      break;
    case DType::kUndefined:
      break;
  }
  return tensor;
}

onnx::TensorProto TensorToProto(const Tensor& tensor, const std::string& name) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(static_cast<int32_t>(tensor.dtype()));
  for (int64_t d : tensor.dims()) proto.add_dims(d);
  proto.set_raw_data(tensor.raw(), tensor.num_bytes());
  return proto;
}

StatusOr<Tensor> ReadTensorFile(const std::string& path) {
  IOS_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) {
    return InvalidInput(path + ": not an ONNX TensorProto file (truncated or corrupted)");
  }
  return TensorFromProto(proto, path);
}

Status WriteTensorFile(const Tensor& tensor, const std::string& name, const std::string& path) {
  return WriteFileAtomically(path, TensorToProto(tensor, name).SerializeAsString());
}

}  // namespace ios
