// SHA-256 digests (OpenSSL), e.g. of the model file a plan was compiled from.
#pragma once

#include <string>

namespace ios {

// The digest of `bytes` as 64 lowercase hexadecimal digits.
std::string Sha256Hex(const std::string& bytes);

}  // namespace ios
