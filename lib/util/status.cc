#include "util/status.h"

namespace ios {

Status InvalidInput(std::string message) {
  return Status(StatusCode::kInvalidInput, std::move(message));
}
Status Unsupported(std::string message) {
  return Status(StatusCode::kUnsupported, std::move(message));
}
Status IoError(std::string message) { return Status(StatusCode::kIoError, std::move(message)); }
Status Internal(std::string message) { return Status(StatusCode::kInternal, std::move(message)); }

}  // namespace ios
