#include "util/sha256.h"

#include <openssl/evp.h>

#include <cstddef>
#include <memory>

namespace ios {

namespace {

std::string Hex(const std::string& digest) {
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * digest.size());
  for (unsigned char c : digest) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 0xf]);
  }
  return hex;
}

}  // namespace

std::string Sha256Hex(const std::string& bytes) {
  return Hex(Sha256Bytes(bytes.data(), bytes.size()));
}

struct Sha256Stream::Context {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md{EVP_MD_CTX_new(), EVP_MD_CTX_free};
};

Sha256Stream::Sha256Stream() : context_(std::make_unique<Context>()) {
  ok_ = context_->md != nullptr &&
        EVP_DigestInit_ex(context_->md.get(), EVP_sha256(), nullptr) == 1;
}

Sha256Stream::~Sha256Stream() = default;

void Sha256Stream::Update(const void* data, size_t size) {
  ok_ = ok_ && EVP_DigestUpdate(context_->md.get(), data, size) == 1;
}

std::string Sha256Stream::Finish() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  ok_ = ok_ && EVP_DigestFinal_ex(context_->md.get(), digest, &length) == 1;
  if (!ok_) return std::string();
  ok_ = false;  // finished: a second call gives no digest
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string Sha256Stream::FinishHex() { return Hex(Finish()); }

std::string Sha256Bytes(const void* data, size_t size) {
  Sha256Stream stream;
  stream.Update(data, size);
  return stream.Finish();
}

}  // namespace ios
