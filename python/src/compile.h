// ios.compile's native half (ios::Plan::Compile, CompileBytes) and ios.Plan, with the GIL
// released while the library compiles and the progress callback run with it held.
#pragma once

#include <nanobind/nanobind.h>

namespace ios_python {

void BindCompile(nanobind::module_& module);

}  // namespace ios_python
