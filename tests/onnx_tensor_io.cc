#include "onnx_tensor_io.h"

#include <cstring>
#include <fstream>
#include <sstream>

namespace ios::test {
namespace {

// Copies `values` (one per element) into the tensor, converting to the element type T.
template <typename T, typename Repeated>
Status CopyTyped(const Repeated& values, Tensor& tensor, const char* field) {
  if (values.size() != tensor.num_elements())
    return InvalidInput(std::string("TensorProto ") + field + " has " +
                        std::to_string(values.size()) + " values for " +
                        std::to_string(tensor.num_elements()) + " elements");
  T* dst = tensor.data<T>();
  for (int i = 0; i < values.size(); ++i) dst[i] = static_cast<T>(values.Get(i));
  return Status::Ok();
}

}  // namespace

StatusOr<Tensor> TensorFromOnnx(const onnx::TensorProto& proto) {
  const std::string what = "TensorProto '" + proto.name() + "'";
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return Unsupported(what + ": external data is not supported");
  const DType dtype = DTypeFromOnnx(proto.data_type());
  if (dtype == DType::kUndefined)
    return Unsupported(what + ": ONNX element type " + std::to_string(proto.data_type()) +
                       " is not supported");
  Dims dims;
  for (int64_t d : proto.dims()) {
    if (d < 0) return InvalidInput(what + ": negative dimension");
    dims.push_back(d);
  }
  Tensor tensor(dtype, dims);
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != tensor.num_bytes())
      return InvalidInput(what + ": raw_data has " + std::to_string(proto.raw_data().size()) +
                          " bytes, expected " + std::to_string(tensor.num_bytes()));
    if (tensor.num_bytes() > 0)  // little-endian host, as ONNX stores raw_data
      std::memcpy(tensor.raw(), proto.raw_data().data(), tensor.num_bytes());
    return tensor;
  }
  if (tensor.num_elements() == 0) return tensor;
  switch (dtype) {
    case DType::kFloat32:
      IOS_RETURN_IF_ERROR(CopyTyped<float>(proto.float_data(), tensor, "float_data"));
      break;
    case DType::kFloat64:
      IOS_RETURN_IF_ERROR(CopyTyped<double>(proto.double_data(), tensor, "double_data"));
      break;
    case DType::kInt64:
      IOS_RETURN_IF_ERROR(CopyTyped<int64_t>(proto.int64_data(), tensor, "int64_data"));
      break;
    case DType::kInt32:
      IOS_RETURN_IF_ERROR(CopyTyped<int32_t>(proto.int32_data(), tensor, "int32_data"));
      break;
    case DType::kInt8:
      IOS_RETURN_IF_ERROR(CopyTyped<int8_t>(proto.int32_data(), tensor, "int32_data"));
      break;
    case DType::kUint8:
    case DType::kBool:
      IOS_RETURN_IF_ERROR(CopyTyped<uint8_t>(proto.int32_data(), tensor, "int32_data"));
      break;
    case DType::kFloat16:  // the IEEE half bits, one per int32
      IOS_RETURN_IF_ERROR(CopyTyped<uint16_t>(proto.int32_data(), tensor, "int32_data"));
      break;
    case DType::kUndefined:
      break;
  }
  return tensor;
}

StatusOr<Tensor> ReadOnnxTensorFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError("cannot open " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes.str())) return InvalidInput(path + " is not a TensorProto");
  auto tensor = TensorFromOnnx(proto);
  if (!tensor.ok()) return tensor.status().WithContext(path);
  return tensor;
}

StatusOr<AttributeValue> AttributeFromOnnx(const onnx::AttributeProto& proto) {
  const std::string what = "attribute '" + proto.name() + "'";
  if (!proto.ref_attr_name().empty())
    return Unsupported(what + ": function attribute references are not supported");
  switch (proto.type()) {
    case onnx::AttributeProto::FLOAT:
      return AttributeValue(proto.f());
    case onnx::AttributeProto::INT:
      return AttributeValue(static_cast<int64_t>(proto.i()));
    case onnx::AttributeProto::STRING:
      return AttributeValue(proto.s());
    case onnx::AttributeProto::TENSOR: {
      auto tensor = TensorFromOnnx(proto.t());
      if (!tensor.ok()) return tensor.status().WithContext(what);
      return AttributeValue(std::move(tensor).value());
    }
    case onnx::AttributeProto::FLOATS:
      return AttributeValue(std::vector<float>(proto.floats().begin(), proto.floats().end()));
    case onnx::AttributeProto::INTS:
      return AttributeValue(std::vector<int64_t>(proto.ints().begin(), proto.ints().end()));
    case onnx::AttributeProto::STRINGS:
      return AttributeValue(
          std::vector<std::string>(proto.strings().begin(), proto.strings().end()));
    default:
      return Unsupported(what + ": attribute type " + std::to_string(proto.type()) +
                         " is not supported");
  }
}

}  // namespace ios::test
