// A structure-aware mutation of any protobuf message, by reflection: byte flips in a serialised
// model or plan mostly land in weights, so the fuzz targets' custom mutators (LLVMFuzzerCustom-
// Mutator) change one field of the parsed message instead — a number to a boundary value, a
// string to another string of the message (which rewires ONNX node inputs), a repeated field's
// element removed, duplicated or swapped, a sub-message cleared or replaced by a sibling.
#pragma once

#include <google/protobuf/message.h>

#include <cstdint>
#include <random>

namespace ios::fuzz {

// Applies one mutation to a field chosen uniformly among every field of `message` and of its
// sub-messages (set or not, up to a depth of 8). False when the message has no field at all.
bool MutateProto(google::protobuf::Message* message, std::mt19937_64& rng);

}  // namespace ios::fuzz
