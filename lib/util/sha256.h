// SHA-256 digests (OpenSSL), e.g. of the model file a plan was compiled from.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace ios {

// The digest of `bytes` as 64 lowercase hexadecimal digits.
std::string Sha256Hex(const std::string& bytes);
// The digest of `size` bytes at `data`, as its 32 raw bytes (empty only if OpenSSL fails).
std::string Sha256Bytes(const void* data, size_t size);

// The digest of bytes given in pieces, e.g. a file hashed as it is read, never held whole.
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;

  void Update(const void* data, size_t size);
  // The digest of everything given, as Sha256Bytes gives it (empty only if OpenSSL failed, or
  // once finished).
  std::string Finish();
  // The same as Sha256Hex writes it.
  std::string FinishHex();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
  bool ok_ = false;
};

}  // namespace ios
