// ios's errors: every call of the library returns a Status, or a StatusOr<T> that holds a value
// or the Status saying why there is none. The messages are the ones the iosc and iosrun command
// lines print. No exception crosses the library's boundary, and nothing in it aborts.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "ios/export.h"

namespace ios {

enum class StatusCode {
  kOk = 0,
  kInvalidInput,  // the user's file, bytes or options are wrong (the CLIs exit with status 2)
  kUnsupported,   // valid input that ios does not handle (exit status 2)
  kIoError,       // a file could not be read or written (exit status 2)
  kInternal,      // a bug in ios (exit status 1)
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // The same error with "context: " before its message.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value, or the error that stands in its place. value() and operator* on an error are a
// programming error in the caller: they print the error and abort, as they would at any
// other misuse, rather than read garbage; check ok() first, or use value_or().
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = Status(StatusCode::kInternal, "StatusOr made from an OK Status");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return Checked(), *value_; }
  const T& value() const& { return Checked(), *value_; }
  T&& value() && { return Checked(), std::move(*value_); }
  T value_or(T fallback) const& { return ok() ? *value_ : std::move(fallback); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  void Checked() const {
    if (value_) return;
    std::fprintf(stderr, "ios: StatusOr::value() on an error: %s\n", status_.message().c_str());
    std::abort();
  }

  Status status_;
  std::optional<T> value_;
};

}  // namespace ios
