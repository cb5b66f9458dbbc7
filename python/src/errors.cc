#include "errors.h"

namespace nb = nanobind;

namespace ios_python {
namespace {

const char* ClassName(ios::StatusCode code) {
  switch (code) {
    case ios::StatusCode::kInvalidInput: return "InvalidInput";
    case ios::StatusCode::kUnsupported: return "Unsupported";
    case ios::StatusCode::kIoError: return "IoError";
    default: return "InternalError";
  }
}

}  // namespace

void RegisterErrors(nb::module_& module) {
  nb::register_exception_translator([](const std::exception_ptr& thrown, void*) {
    try {
      std::rethrow_exception(thrown);
    } catch (const StatusError& error) {
      // ios.errors is imported by the package before the extension is used, and stays loaded.
      nb::object errors = nb::module_::import_("ios.errors");
      nb::object type = errors.attr(ClassName(error.code));
      PyErr_SetObject(type.ptr(), nb::str(error.message.c_str(), error.message.size()).ptr());
    }
  });
}

}  // namespace ios_python
