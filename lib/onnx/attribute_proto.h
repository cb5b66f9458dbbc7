// ONNX AttributeProto → ios AttributeValue.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "ir/attribute.h"
#include "util/status.h"

namespace ios {

// `what` names the node in error messages.
StatusOr<AttributeValue> AttributeFromProto(const onnx::AttributeProto& proto,
                                            const std::string& what);
// The reverse, for the exporter.
onnx::AttributeProto AttributeToProto(const std::string& name, const AttributeValue& value);

}  // namespace ios
