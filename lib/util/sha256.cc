#include "util/sha256.h"

#include <openssl/evp.h>

#include <cstddef>
#include <memory>

namespace ios {

std::string Sha256Bytes(const void* data, size_t size) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                  EVP_MD_CTX_free);
  bool ok = context != nullptr && EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) == 1 &&
            EVP_DigestUpdate(context.get(), data, size) == 1 &&
            EVP_DigestFinal_ex(context.get(), digest, &length) == 1;
  // Only an allocation failure inside OpenSSL can fail SHA-256; report it as no digest.
  if (!ok) return std::string();
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string Sha256Hex(const std::string& bytes) {
  const std::string digest = Sha256Bytes(bytes.data(), bytes.size());
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * digest.size());
  for (unsigned char c : digest) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 0xf]);
  }
  return hex;
}

}  // namespace ios
