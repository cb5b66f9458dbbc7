// Compiling an ONNX model into a plan: import and canonicalise the model, cut it into blocks,
// profile candidate stages on the target (or ask an analytic GPU model), run the IOS search
// with its pruning, merge convs, plan memory. What `iosc` does, from a program.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ios/export.h"
#include "ios/status.h"

namespace ios {

struct CompileProgress {
  int parts_done = 0;           // of the search's parts (block pieces) ...
  int parts_total = 0;          // ... in all
  int64_t stages_measured = 0;  // distinct stages profiled so far
  double seconds = 0;           // since the search started
};

struct CompileOptions {
  int64_t batch = 1;  // dimension 0 of every input that input_shapes does not fix
  // An input's whole shape by name, for models with free dimensions (detection, OCR).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Where stage costs come from: "cpu" (measured on this CPU), "sim:V100", "sim:A100",
  // "sim:H100" (analytic GPU models), or a CUDA device: "0", "cuda", "cuda:N" (measured there).
  std::string device = "cpu";
  // "ios" (the IOS search, both strategies), "ios-parallel", "ios-merge", "greedy" or
  // "sequential".
  std::string schedule = "ios";
  int max_units_per_group = 3;   // the paper's pruning r (0 = unlimited)
  // The paper's pruning s (0 = unlimited); -1: 8, and at most the cores on "cpu".
  int max_groups_per_stage = -1;
  double search_budget_s = 0;    // 0 = no limit; past it, the rest of a block goes greedily
  // On "cpu": seconds of stage measuring for the search, estimated from the stages' latencies
  // (so a timing cache gives the same plan); past it the later parts run sequentially (0 = none).
  double profile_budget_s = 40;
  std::string timing_cache_path;  // measured stage costs, read and written; "" = none
  bool strip_weights = false;     // a weight-stripped plan (SessionOptions::weights_model_path)
  std::function<void(const CompileProgress&)> progress;  // called as the search goes
  std::function<void(const std::string&)> log;  // the lines `iosc` prints, each ending in '\n'
};

struct SearchStatistics {
  bool searched = false;  // false for "sequential" and "greedy": the figures below are 0
  double predicted_latency_ms = 0;  // of the plan's schedule, by the cost source
  double sequential_latency_ms = 0;  // the sequential schedule's, by the same source
  double greedy_latency_ms = 0;
  double search_seconds = 0;
  int64_t distinct_stages_measured = 0;
  int parts = 0;
};

class IOS_API Plan {
 public:
  // The model from a file (its external weights beside it), or from bytes (no external data;
  // `name` names it in messages).
  static StatusOr<Plan> Compile(const std::string& model_path, const CompileOptions& options);
  static StatusOr<Plan> CompileBytes(const std::string& model_bytes, const std::string& name,
                                     const CompileOptions& options);

  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;
  ~Plan();

  // The plan file's bytes, and writing them atomically to a file: what `iosc -o` writes.
  StatusOr<std::string> Serialize() const;
  Status Save(const std::string& path) const;

  const SearchStatistics& statistics() const;
  // The compile's report as JSON, what `iosc --stats-json` writes: the search's parts (states,
  // transitions, stages measured, latencies) where it ran, the schedule's kind and predicted
  // latency, and a CPU plan's slow nodes (ops that will not run on the CPU's own kernels).
  const std::string& statistics_json() const;
  // The sum of the plan's predicted stage latencies (0 without a cost source).
  double predicted_latency_ms() const;
  int64_t batch() const;

 private:
  struct Impl;
  explicit Plan(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  friend struct PlanAccess;  // the library's own code
};

// The fingerprint of a device as a plan records it, as JSON: for "cpu" this CPU's model, cores
// and ISA; for "sim:NAME" the analytic model; for a CUDA device its name, compute capability,
// multiprocessors and driver, runtime and cuDNN versions. Plans and stage timings made for one
// fingerprint hold for another only by chance: a cache of plans keys them by it.
IOS_API StatusOr<std::string> DeviceFingerprintJson(const std::string& device);

}  // namespace ios
