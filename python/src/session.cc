#include "session.h"

#include <chrono>
#include <utility>

#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "errors.h"
#include "tensors.h"

namespace nb = nanobind;

namespace ios_python {
namespace {

TensorList Describe(const std::vector<ios::TensorInfo>& tensors) {
  TensorList out;
  for (const ios::TensorInfo& info : tensors)
    out.emplace_back(info.name, NumpyName(info.dtype), info.dims, info.bytes);
  return out;
}

std::string Names(const std::vector<ios::TensorInfo>& tensors) {
  std::string names;
  for (const ios::TensorInfo& info : tensors)
    names += (names.empty() ? "'" : ", '") + info.name + "'";
  return names;
}

std::string KeyOf(nb::handle key, const char* what) {
  if (!nb::isinstance<nb::str>(key))
    ThrowInvalid(std::string(what) + " names must be strings, got " +
                 nb::cast<std::string>(nb::str(key.type().attr("__name__"))));
  return nb::cast<std::string>(key);
}

// numpy.empty, looked up once (numpy stays loaded: the package imports it).
nb::handle NumpyEmpty() {
  static nb::handle empty = nb::object(nb::module_::import_("numpy").attr("empty")).release();
  return empty;
}

ios::SessionOptions OptionsOf(const std::string& device, int threads, const std::string& weights,
                              bool force, bool verify) {
  ios::SessionOptions options;
  options.device = device;
  options.threads = threads;
  options.weights_model_path = weights;
  options.force = force;
  options.verify = verify;
  return options;
}

template <typename Open>
std::unique_ptr<NativeSession> OpenWith(Open open) {
  ios::StatusOr<std::unique_ptr<ios::Session>> session = [&] {
    nb::gil_scoped_release release;
    return open();
  }();
  return std::make_unique<NativeSession>(Unwrap(std::move(session)));
}

}  // namespace

NativeSession::NativeSession(std::unique_ptr<ios::Session> session)
    : session_(std::move(session)) {
  for (size_t i = 0; i < session_->inputs().size(); ++i)
    input_index_[session_->inputs()[i].name] = i;
  for (size_t i = 0; i < session_->outputs().size(); ++i) {
    const ios::TensorInfo& info = session_->outputs()[i];
    output_index_[info.name] = i;
    nb::list dims;
    for (int64_t dim : info.dims) dims.append(dim);
    output_shapes_.push_back(nb::tuple(dims));
    output_names_.push_back(nb::str(info.name.c_str(), info.name.size()));
  }
}

TensorList NativeSession::Inputs() const { return Describe(session_->inputs()); }
TensorList NativeSession::Outputs() const { return Describe(session_->outputs()); }
bool NativeSession::on_cuda() const { return session_->device().rfind("cuda", 0) == 0; }

size_t NativeSession::InputIndex(const std::string& name) const {
  auto found = input_index_.find(name);
  if (found == input_index_.end())
    ThrowInvalid("the plan has no input '" + name + "' (its inputs: " +
                 Names(session_->inputs()) + ")");
  return found->second;
}

size_t NativeSession::OutputIndex(const std::string& name) const {
  auto found = output_index_.find(name);
  if (found == output_index_.end())
    ThrowInvalid("the plan has no output '" + name + "' (its outputs: " +
                 Names(session_->outputs()) + ")");
  return found->second;
}

ArrayDict NativeSession::Run(nb::handle feeds, nb::handle outputs, bool on_device,
                            uintptr_t stream) {
  const Memory memory = on_device ? Memory::kDevice : Memory::kHost;
  if (!nb::isinstance<nb::dict>(feeds))
    ThrowInvalid("the inputs must be a dict of input name to array, got " +
                 nb::cast<std::string>(nb::str(feeds.type().attr("__name__"))));
  const std::vector<ios::TensorInfo>& inputs = session_->inputs();
  const std::vector<ios::TensorInfo>& infos = session_->outputs();
  // Declared before the GIL is released, destroyed after it is taken back.
  std::vector<CheckedArray> held;
  held.reserve(inputs.size() + infos.size());
  std::vector<ios::InputBuffer> input_buffers;
  input_buffers.reserve(inputs.size());
  std::vector<bool> given(inputs.size(), false);
  for (auto [key, value] : nb::borrow<nb::dict>(feeds)) {
    const size_t index = InputIndex(KeyOf(key, "input"));
    if (given[index]) ThrowInvalid("input '" + inputs[index].name + "' is given twice");
    given[index] = true;
    held.push_back(CheckArray(value, inputs[index], "input", memory));
    input_buffers.push_back({inputs[index].name, held.back().data, held.back().bytes});
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!given[i])
      ThrowInvalid("input '" + inputs[i].name + "' is not given (the plan's inputs: " +
                   Names(inputs) + ")");

  ArrayDict results;
  std::vector<ios::OutputBuffer> output_buffers;
  auto add_output = [&](size_t index, nb::handle array) {
    held.push_back(CheckArray(array, infos[index], "output", memory));
    output_buffers.push_back({infos[index].name, held.back().data, held.back().bytes});
    results[output_names_[index]] = array;
  };
  auto add_new_output = [&](size_t index) {
    if (on_device)
      ThrowInvalid("a run on device arrays writes its outputs into arrays the caller gives: "
                   "pass outputs={'" + infos[index].name + "': ...}");
    nb::object array = NumpyEmpty()(output_shapes_[index], NumpyName(infos[index].dtype));
    add_output(index, array);
  };
  if (outputs.is_none()) {
    for (size_t i = 0; i < infos.size(); ++i) add_new_output(i);
  } else if (nb::isinstance<nb::dict>(outputs)) {
    for (auto [key, value] : nb::borrow<nb::dict>(outputs))
      add_output(OutputIndex(KeyOf(key, "output")), value);
  } else if (nb::isinstance<nb::str>(outputs)) {
    ThrowInvalid("outputs must be a list of output names or a dict of name to array, got the "
                 "string '" + nb::cast<std::string>(outputs) + "'");
  } else {
    for (nb::handle name : outputs) add_new_output(OutputIndex(KeyOf(name, "output")));
  }

  ios::Status status;
  {
    nb::gil_scoped_release release;
    status = on_device
                 ? session_->RunOnDevice(input_buffers, output_buffers,
                                         reinterpret_cast<void*>(stream))
                 : session_->Run(input_buffers, output_buffers);
  }
  Check(status);
  return results;
}

std::vector<double> NativeSession::NativeRunTimes(nb::handle feeds, int iterations) {
  const std::vector<ios::TensorInfo>& inputs = session_->inputs();
  std::vector<CheckedArray> held;
  std::vector<ios::InputBuffer> input_buffers;
  for (auto [key, value] : nb::cast<nb::dict>(feeds)) {
    const size_t index = InputIndex(KeyOf(key, "input"));
    held.push_back(CheckArray(value, inputs[index], "input", Memory::kHost));
    input_buffers.push_back({inputs[index].name, held.back().data, held.back().bytes});
  }
  std::vector<std::vector<char>> storage;
  std::vector<ios::OutputBuffer> output_buffers;
  for (const ios::TensorInfo& info : session_->outputs()) {
    storage.emplace_back(info.bytes);
    output_buffers.push_back({info.name, storage.back().data(), info.bytes});
  }
  std::vector<double> seconds;
  seconds.reserve(static_cast<size_t>(iterations));
  ios::Status status;
  {
    nb::gil_scoped_release release;
    for (int i = 0; i < iterations && status.ok(); ++i) {
      const auto start = std::chrono::steady_clock::now();
      status = session_->Run(input_buffers, output_buffers);
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }
  Check(status);
  return seconds;
}

void BindSession(nb::module_& module) {
  nb::class_<NativeSession>(module, "NativeSession")
      .def_static(
          "open",
          [](const std::string& path, const std::string& device, int threads,
             const std::string& weights, bool force, bool verify) {
            const ios::SessionOptions options = OptionsOf(device, threads, weights, force, verify);
            return OpenWith([&] { return ios::Session::Open(path, options); });
          },
          nb::arg("path"), nb::arg("device"), nb::arg("threads"), nb::arg("weights"),
          nb::arg("force"), nb::arg("verify"))
      .def_static(
          "from_bytes",
          [](nb::bytes data, const std::string& device, int threads, const std::string& weights,
             bool force, bool verify) {
            const std::string bytes(data.c_str(), data.size());
            const ios::SessionOptions options = OptionsOf(device, threads, weights, force, verify);
            return OpenWith([&] { return ios::Session::FromBytes(bytes, options); });
          },
          nb::arg("data"), nb::arg("device"), nb::arg("threads"), nb::arg("weights"),
          nb::arg("force"), nb::arg("verify"))
      .def_static(
          "from_plan",
          [](const ios::Plan& plan, const std::string& device, int threads, bool force) {
            const ios::SessionOptions options = OptionsOf(device, threads, "", force, true);
            return OpenWith([&] { return ios::Session::FromPlan(plan, options); });
          },
          nb::arg("plan"), nb::arg("device"), nb::arg("threads"), nb::arg("force"))
      .def_prop_ro("inputs", &NativeSession::Inputs)
      .def_prop_ro("outputs", &NativeSession::Outputs)
      .def_prop_ro("device", [](NativeSession& self) { return self.session().device(); })
      .def_prop_ro("batch", [](NativeSession& self) { return self.session().batch(); })
      .def_prop_ro("on_cuda", &NativeSession::on_cuda)
      .def("run", &NativeSession::Run, nb::arg("feeds").none(), nb::arg("outputs").none(),
           nb::arg("on_device"), nb::arg("stream"))
      .def("native_run_times", &NativeSession::NativeRunTimes, nb::arg("feeds"),
           nb::arg("iterations"));
}

}  // namespace ios_python
