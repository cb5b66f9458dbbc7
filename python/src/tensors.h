// Arrays given for a session's tensors: numpy arrays and anything with __dlpack__ (read through
// nanobind's DLPack import, without a copy), or __cuda_array_interface__. Each is checked against
// the tensor's dtype, shape and layout (dense, row-major), and refused with a message naming the
// tensor otherwise.
#pragma once

#include <ios/session.h>

#include <cstddef>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

namespace ios_python {

// The numpy name of a dtype ("float32"), as Session.inputs reports it.
const char* NumpyName(ios::DataType dtype);
// The tensor's shape as Python writes a tuple: "(1, 3, 224, 224)".
std::string ShapeText(const ios::TensorInfo& info);

enum class Memory { kHost, kDevice };

// One array given for a tensor, checked. `holder` keeps the imported array alive (release it
// with the GIL held).
struct CheckedArray {
  void* data = nullptr;
  size_t bytes = 0;
  nanobind::ndarray<> holder;
};

// Checks `value` for the tensor `info`; `role` is "input" or "output" (outputs must be
// writable), `memory` where the run reads it (host memory, or the GPU's for RunOnDevice).
CheckedArray CheckArray(nanobind::handle value, const ios::TensorInfo& info, const char* role,
                        Memory memory);

}  // namespace ios_python
