// ios._ios: the extension under the Python package `ios` (python/ios), binding libios's public
// API (include/ios). The package's modules give it its Python shape; see docs/python.md.
#include <ios/version.h>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "compile.h"
#include "errors.h"
#include "session.h"

namespace nb = nanobind;

NB_MODULE(_ios, module) {
  module.doc() = "The native half of the ios package: libios's public API (include/ios).";
  ios_python::RegisterErrors(module);
  ios_python::BindCompile(module);
  ios_python::BindSession(module);
  module.def("version", [] {
    const ios::VersionInfo version = ios::Version();
    nb::typed<nb::dict, nb::str, nb::str> info;
    info["library"] = version.library;
    info["api"] = std::to_string(version.api_major) + "." + std::to_string(version.api_minor);
    info["plan_format"] = std::to_string(version.plan_format_major) + "." +
                          std::to_string(version.plan_format_minor);
    return info;
  });
}
