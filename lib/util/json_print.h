// Protobuf messages as JSON, the way every ios report prints them: indented, with proto field
// names and with fields at their default values included (so that consumers see every key).
#pragma once

#include <string>

#include <google/protobuf/message.h>

#include "util/status.h"

namespace ios {

StatusOr<std::string> MessageToJson(const google::protobuf::Message& message);

}  // namespace ios
