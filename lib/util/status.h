// Status and StatusOr (include/ios/status.h): errors are values inside the library; the CLIs
// turn them into messages and exit codes. Here: the constructors by kind and the macros.
#pragma once

#include <string>
#include <utility>

#include "ios/status.h"  // Status and StatusOr are the public API's

namespace ios {

Status InvalidInput(std::string message);
Status Unsupported(std::string message);
Status IoError(std::string message);
Status Internal(std::string message);

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
