// CachedStageCost: a StageCostSource in front of another that measures each distinct stage once.
// A stage is identified by its units' signatures (StageSignature of each unit alone: its ops'
// types, shapes and attributes and its internal wiring), each group as the sequence of its units,
// the groups as a multiset, and the strategy. The wiring between units and which outside tensors
// the groups share are left out: they do not change what runs, and leaving them out is what lets
// repeated cells and RandWire's look-alike nodes share measurements. Per-unit signatures are
// computed once per unit, so a request costs a few integer comparisons, not a string build.
//
// The measurements can persist in a timing cache file (proto/timing_cache.proto): the SHA-256 of
// each signature and its latency, with the inner source's Name() and Fingerprint(). A cache is
// tied to the device it was measured on: loading one made by another source or on another device
// (kind; GPU name and compute capability; CPU model, instruction set and core count; analytic
// model) is an InvalidInput error that names the device it was made for, unless the caller asks
// to ignore mismatches, in which case the file is skipped with a warning (never used).
// A missing file is an empty cache; an unreadable, corrupted or newer-major file is an error
// naming the file. Saving writes every known timing (loaded and measured) atomically.
//
// Errors of the inner source are passed through and not cached. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "cost/stage_cost.h"

namespace ios {

class CachedStageCost : public StageCostSource {
 public:
  explicit CachedStageCost(StageCostSource& inner) : inner_(inner) {}

  StatusOr<double> StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                  const StageCandidate& stage) override;
  std::string Name() const override { return inner_.Name(); }
  plan::DeviceFingerprint Fingerprint() const override { return inner_.Fingerprint(); }

  // Every StageLatencyMs call.
  int64_t requests() const { return requests_; }
  // Calls that reached the inner source (distinct signatures not already known).
  int64_t distinct_measured() const { return distinct_measured_; }
  // Timings known: loaded from a cache plus measured.
  size_t size() const { return latency_ms_.size() + static_cast<size_t>(distinct_measured_); }

  Status LoadTimingCache(const std::string& path, bool ignore_mismatch = false);
  Status SaveTimingCache(const std::string& path) const;

  // Warnings of LoadTimingCache (a skipped cache), also logged.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  // Interned signature of every unit of `units` (recomputed when another unit graph comes).
  const std::vector<int>& UnitKeys(const Graph& graph, const UnitGraph& units);
  // The timing-cache key of an interned stage key: the SHA-256 of its text form.
  std::string PersistentKey(const std::vector<int64_t>& fast_key) const;

  StageCostSource& inner_;
  std::map<std::string, double> latency_ms_;  // SHA-256 of the stage key string -> latency
  std::map<std::vector<int64_t>, double> by_fast_key_;  // interned stage key -> latency
  std::unordered_map<std::string, int> unit_intern_;    // unit signature -> id
  std::vector<std::string> unit_signature_by_id_;
  const UnitGraph* keyed_units_ = nullptr;
  const Graph* keyed_graph_ = nullptr;
  std::vector<int> unit_keys_;
  int64_t requests_ = 0;
  int64_t distinct_measured_ = 0;
  std::vector<std::string> warnings_;
};

// "the CPU Intel Xeon ... (avx2, 2 cores)", "the CUDA GPU NVIDIA A100 (sm_80)", "the analytic GPU
// model V100 (Tesla V100-SXM2, sm_70)": for messages.
std::string DescribeDevice(const plan::DeviceFingerprint& device);

// Empty when a timing made on `made_for` may be used for `current`; otherwise what differs.
std::string DeviceMismatch(const plan::DeviceFingerprint& made_for,
                           const plan::DeviceFingerprint& current);

}  // namespace ios
