// Status and StatusOr: errors are values inside the library; the CLIs turn them into
// messages and exit codes. No exceptions cross a library boundary.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace ios {

enum class StatusCode {
  kOk = 0,
  kInvalidInput,  // the user's file or flags are wrong (CLI exit status 2)
  kUnsupported,   // valid input that ios does not handle (exit status 2)
  kIoError,       // a file could not be read or written (exit status 2)
  kInternal,      // a bug in ios (exit status 1)
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // Prepends context ("while importing X: ") to the message.
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

Status InvalidInput(std::string message);
Status Unsupported(std::string message);
Status IoError(std::string message);
Status Internal(std::string message);

template <typename T>
class StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design
  StatusOr(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace ios

#define IOS_CONCAT_INNER(a, b) a##b
#define IOS_CONCAT(a, b) IOS_CONCAT_INNER(a, b)

#define IOS_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::ios::Status ios_status_ = (expr);        \
    if (!ios_status_.ok()) return ios_status_; \
  } while (0)

#define IOS_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()

#define IOS_ASSIGN_OR_RETURN(lhs, expr) \
  IOS_ASSIGN_OR_RETURN_IMPL(IOS_CONCAT(ios_statusor_, __LINE__), lhs, expr)
