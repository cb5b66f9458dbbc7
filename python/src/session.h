// ios.Session's native half: a plan opened on a device (ios::Session), its tensors by name, and
// runs on host arrays (Run) or on device arrays in order with a CUDA stream (RunOnDevice), with
// the GIL released while the library works.
#pragma once

#include <ios/session.h>

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <nanobind/nanobind.h>

namespace ios_python {

// (name, numpy dtype name, shape, bytes) per tensor.
using TensorList = std::vector<std::tuple<std::string, std::string, std::vector<int64_t>, size_t>>;
// Output name to array.
using ArrayDict = nanobind::typed<nanobind::dict, nanobind::str, nanobind::object>;

class NativeSession {
 public:
  explicit NativeSession(std::unique_ptr<ios::Session> session);

  ios::Session& session() { return *session_; }
  TensorList Inputs() const;
  TensorList Outputs() const;
  bool on_cuda() const;

  // One inference. `feeds`: a dict of input name to array. `outputs`: None (every output, in
  // new numpy arrays), a sequence of names (those), or a dict of name to array written in
  // place. `on_device`: the arrays are on the session's GPU, run in order with `stream` (a
  // cudaStream_t as an integer). Returns a dict of output name to array.
  ArrayDict Run(nanobind::handle feeds, nanobind::handle outputs, bool on_device,
                     uintptr_t stream);

  // The seconds each of `iterations` calls of ios::Session::Run on the same host buffers took,
  // timed in C++: what the binding's own overhead is measured against (scripts/bench_python.py).
  std::vector<double> NativeRunTimes(nanobind::handle feeds, int iterations);

 private:
  size_t InputIndex(const std::string& name) const;
  size_t OutputIndex(const std::string& name) const;

  std::unique_ptr<ios::Session> session_;
  std::unordered_map<std::string, size_t> input_index_, output_index_;
  std::vector<nanobind::object> output_shapes_;  // tuples, for numpy.empty
  std::vector<nanobind::object> output_names_;   // str
};

void BindSession(nanobind::module_& module);

}  // namespace ios_python
