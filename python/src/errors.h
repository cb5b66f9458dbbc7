// ios::Status as Python exceptions: a failed Status is thrown as StatusError, which the module's
// translator raises as the matching class of ios.errors (ios.InvalidInput, ios.Unsupported,
// ios.IoError, ios.InternalError, all ios.Error) with the library's message.
#pragma once

#include <ios/status.h>

#include <string>
#include <utility>

#include <nanobind/nanobind.h>

namespace ios_python {

struct StatusError {
  ios::StatusCode code;
  std::string message;
};

[[noreturn]] inline void ThrowStatus(const ios::Status& status) {
  throw StatusError{status.code(), status.message()};
}
[[noreturn]] inline void ThrowInvalid(std::string message) {
  throw StatusError{ios::StatusCode::kInvalidInput, std::move(message)};
}
inline void Check(const ios::Status& status) {
  if (!status.ok()) ThrowStatus(status);
}
template <typename T>
T Unwrap(ios::StatusOr<T> value) {
  if (!value.ok()) ThrowStatus(value.status());
  return std::move(value).value();
}

void RegisterErrors(nanobind::module_& module);

}  // namespace ios_python
