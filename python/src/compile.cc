#include "compile.h"

#include <ios/compiler.h>

#include <cstdint>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "errors.h"

namespace nb = nanobind;

namespace ios_python {
namespace {

// Calls the Python progress callback from the compiling thread. A callback that raises is not
// called again; its exception is raised once the compile returns (the library cannot be
// interrupted mid-search, and no exception may cross it).
class ProgressRelay {
 public:
  explicit ProgressRelay(nb::object callback) : callback_(std::move(callback)) {}

  void Attach(ios::CompileOptions* options) {
    if (callback_.is_none()) return;
    options->progress = [this](const ios::CompileProgress& p) {
      nb::gil_scoped_acquire acquire;
      if (error_) return;
      try {
        callback_(p.parts_done, p.parts_total, p.stages_measured, p.seconds);
      } catch (...) {
        error_ = std::current_exception();
      }
    };
  }
  void RethrowIfFailed() {
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  nb::object callback_;
  std::exception_ptr error_;
};

ios::CompileOptions OptionsOf(int64_t batch,
                              const std::map<std::string, std::vector<int64_t>>& input_shapes,
                              const std::string& device, const std::string& schedule,
                              const std::string& timing_cache, bool strip_weights) {
  ios::CompileOptions options;
  if (batch > 0) options.batch = batch;
  options.input_shapes = input_shapes;
  options.device = device;
  options.schedule = schedule;
  options.timing_cache_path = timing_cache;
  options.strip_weights = strip_weights;
  return options;
}

template <typename Compile>
ios::Plan CompileWith(ios::CompileOptions options, nb::object progress, Compile compile) {
  ProgressRelay relay(std::move(progress));
  relay.Attach(&options);
  ios::StatusOr<ios::Plan> plan = [&] {
    nb::gil_scoped_release release;
    return compile(options);
  }();
  relay.RethrowIfFailed();
  return Unwrap(std::move(plan));
}

nb::typed<nb::dict, nb::str, nb::object> Statistics(const ios::Plan& plan) {
  const ios::SearchStatistics& s = plan.statistics();
  nb::typed<nb::dict, nb::str, nb::object> stats;
  stats["searched"] = s.searched;
  stats["predicted_latency_ms"] = s.predicted_latency_ms;
  stats["sequential_latency_ms"] = s.sequential_latency_ms;
  stats["greedy_latency_ms"] = s.greedy_latency_ms;
  stats["search_seconds"] = s.search_seconds;
  stats["distinct_stages_measured"] = s.distinct_stages_measured;
  stats["parts"] = s.parts;
  return stats;
}

}  // namespace

void BindCompile(nb::module_& module) {
  nb::class_<ios::Plan>(module, "NativePlan")
      .def(
          "save",
          [](const ios::Plan& plan, const std::string& path) {
            ios::Status status;
            {
              nb::gil_scoped_release release;
              status = plan.Save(path);
            }
            Check(status);
          },
          nb::arg("path"))
      .def("to_bytes",
           [](const ios::Plan& plan) {
             ios::StatusOr<std::string> bytes = [&] {
               nb::gil_scoped_release release;
               return plan.Serialize();
             }();
             const std::string data = Unwrap(std::move(bytes));
             return nb::bytes(data.data(), data.size());
           })
      .def_prop_ro("statistics_json", &ios::Plan::statistics_json)
      .def_prop_ro("statistics", &Statistics)
      .def_prop_ro("predicted_latency_ms", &ios::Plan::predicted_latency_ms)
      .def_prop_ro("batch", &ios::Plan::batch);

  module.def(
      "compile_file",
      [](const std::string& path, int64_t batch,
         const std::map<std::string, std::vector<int64_t>>& input_shapes,
         const std::string& device, const std::string& schedule, const std::string& timing_cache,
         bool strip_weights, nb::object progress) {
        return CompileWith(
            OptionsOf(batch, input_shapes, device, schedule, timing_cache, strip_weights),
            std::move(progress),
            [&](const ios::CompileOptions& options) { return ios::Plan::Compile(path, options); });
      },
      nb::arg("path"), nb::arg("batch"), nb::arg("input_shapes"), nb::arg("device"),
      nb::arg("schedule"), nb::arg("timing_cache"), nb::arg("strip_weights"),
      nb::arg("progress").none());
  module.def(
      "compile_bytes",
      [](nb::bytes data, const std::string& name, int64_t batch,
         const std::map<std::string, std::vector<int64_t>>& input_shapes,
         const std::string& device, const std::string& schedule, const std::string& timing_cache,
         bool strip_weights, nb::object progress) {
        const std::string bytes(data.c_str(), data.size());
        return CompileWith(
            OptionsOf(batch, input_shapes, device, schedule, timing_cache, strip_weights),
            std::move(progress), [&](const ios::CompileOptions& options) {
              return ios::Plan::CompileBytes(bytes, name, options);
            });
      },
      nb::arg("data"), nb::arg("name"), nb::arg("batch"), nb::arg("input_shapes"),
      nb::arg("device"), nb::arg("schedule"), nb::arg("timing_cache"), nb::arg("strip_weights"),
      nb::arg("progress").none());
  module.def(
      "device_fingerprint",
      [](const std::string& device) {
        ios::StatusOr<std::string> json = [&] {
          nb::gil_scoped_release release;
          return ios::DeviceFingerprintJson(device);
        }();
        return Unwrap(std::move(json));
      },
      nb::arg("device"));
}

}  // namespace ios_python
