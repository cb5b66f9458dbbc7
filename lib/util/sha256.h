// SHA-256 digests (OpenSSL), e.g. of the model file a plan was compiled from.
#pragma once

#include <string>

namespace ios {

// The digest of `bytes` as 64 lowercase hexadecimal digits.
std::string Sha256Hex(const std::string& bytes);
// The digest of `size` bytes at `data`, as its 32 raw bytes (empty only if OpenSSL fails).
std::string Sha256Bytes(const void* data, size_t size);

}  // namespace ios
