#include "onnx/attribute_proto.h"

#include "onnx/tensor_proto.h"

namespace ios {

StatusOr<AttributeValue> AttributeFromProto(const onnx::AttributeProto& proto,
                                            const std::string& what) {
  const std::string where = what + ": attribute '" + proto.name() + "'";
  switch (proto.type()) {
    case onnx::AttributeProto::FLOAT: return AttributeValue(proto.f());
    case onnx::AttributeProto::INT: return AttributeValue(static_cast<int64_t>(proto.i()));
    case onnx::AttributeProto::STRING: return AttributeValue(proto.s());
    case onnx::AttributeProto::FLOATS:
      return AttributeValue(std::vector<float>(proto.floats().begin(), proto.floats().end()));
    case onnx::AttributeProto::INTS:
      return AttributeValue(std::vector<int64_t>(proto.ints().begin(), proto.ints().end()));
    case onnx::AttributeProto::STRINGS:
      return AttributeValue(std::vector<std::string>(proto.strings().begin(),
                                                     proto.strings().end()));
    case onnx::AttributeProto::TENSOR: {
      IOS_ASSIGN_OR_RETURN(Tensor tensor, TensorFromProto(proto.t(), where));
      return AttributeValue(std::move(tensor));
    }
    case onnx::AttributeProto::UNDEFINED:
      // Very old files leave the type unset; infer it from the field that is filled in.
      if (proto.has_f()) return AttributeValue(proto.f());
      if (proto.has_i()) return AttributeValue(static_cast<int64_t>(proto.i()));
      if (proto.has_s()) return AttributeValue(proto.s());
      if (proto.ints_size() > 0)
        return AttributeValue(std::vector<int64_t>(proto.ints().begin(), proto.ints().end()));
      if (proto.floats_size() > 0)
        return AttributeValue(std::vector<float>(proto.floats().begin(), proto.floats().end()));
      return InvalidInput(where + " has no type and no value");
    default:
      return Unsupported(where + " is a graph, sparse tensor or type attribute; ios supports "
                                 "plain values and tensors only");
  }
}

onnx::AttributeProto AttributeToProto(const std::string& name, const AttributeValue& value) {
  onnx::AttributeProto proto;
  proto.set_name(name);
  if (auto* i = std::get_if<int64_t>(&value)) {
    proto.set_type(onnx::AttributeProto::INT);
    proto.set_i(*i);
  } else if (auto* f = std::get_if<float>(&value)) {
    proto.set_type(onnx::AttributeProto::FLOAT);
    proto.set_f(*f);
  } else if (auto* s = std::get_if<std::string>(&value)) {
    proto.set_type(onnx::AttributeProto::STRING);
    proto.set_s(*s);
  } else if (auto* is = std::get_if<std::vector<int64_t>>(&value)) {
    proto.set_type(onnx::AttributeProto::INTS);
    for (int64_t v : *is) proto.add_ints(v);
  } else if (auto* fs = std::get_if<std::vector<float>>(&value)) {
    proto.set_type(onnx::AttributeProto::FLOATS);
    for (float v : *fs) proto.add_floats(v);
  } else if (auto* ss = std::get_if<std::vector<std::string>>(&value)) {
    proto.set_type(onnx::AttributeProto::STRINGS);
    for (const auto& v : *ss) proto.add_strings(v);
  } else if (auto* t = std::get_if<Tensor>(&value)) {
    proto.set_type(onnx::AttributeProto::TENSOR);
    *proto.mutable_t() = TensorToProto(*t, name);
  }
  return proto;
}

}  // namespace ios
