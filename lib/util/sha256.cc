#include "util/sha256.h"

#include <openssl/evp.h>

#include <memory>

namespace ios {

std::string Sha256Hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  bool ok = context != nullptr && EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) == 1 &&
            EVP_DigestUpdate(context.get(), bytes.data(), bytes.size()) == 1 &&
            EVP_DigestFinal_ex(context.get(), digest, &length) == 1;
  // Only an allocation failure inside OpenSSL can fail SHA-256; report it as no digest.
  if (!ok) return std::string();
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

}  // namespace ios
