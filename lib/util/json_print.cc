#include "util/json_print.h"

#include <google/protobuf/util/json_util.h>

namespace ios {

StatusOr<std::string> MessageToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return Internal("cannot print " + message.GetTypeName() + " as JSON: " + status.ToString());
  }
  return json;
}

}  // namespace ios
