// CachedStageCost: a StageCostSource in front of another that measures each distinct stage once.
// Stages are identified by StageKeyer's key (stage_signature.h, which argues what the key keeps
// and drops): the strategy and the multiset of groups, each the sequence of its units'
// signatures. Unit signatures are computed once per unit, so a request costs a few hash lookups
// of small integer sequences, not a string build, and allocates nothing once a stage is known.
//
// The measurements can persist in a timing cache file (proto/timing_cache.proto): the SHA-256 of
// each signature and its latency, with the inner source's Name() and Fingerprint(). A cache is
// tied to the device it was measured on: loading one made by another source or on another device
// (kind; GPU name and compute capability; CPU model, instruction set and core count; analytic
// model) is an InvalidInput error that names the device it was made for, unless the caller asks
// to ignore mismatches, in which case the file is skipped with a warning (never used).
// A missing file is an empty cache; an unreadable, corrupted or newer-major file is an error
// naming the file. A cache made by another ios version or with other kernel library versions
// (KernelVersions()) is stale rather than wrong: it is skipped with a warning, the stages are
// measured again, and saving replaces it. Saving writes every known timing (loaded and
// measured) atomically, with this ios's and the kernels' versions.
//
// Where the inner source costs a one-group stage as the sum of its units' one-unit stages
// (ComposesOneGroupStages), the cache sums its own figures for those instead of asking: a chain
// of units then costs exactly what the same units cost as separate stages, also when some came
// from a timing cache and the rest were measured now, or when a unit shares its one-unit stage's
// key with another (the same op on the same shapes elsewhere).
//
// Errors of the inner source are passed through and not cached. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sched/stage_cost_source.h"
#include "sched/stage_signature.h"

namespace ios {

class CachedStageCost : public StageCostSource {
 public:
  explicit CachedStageCost(StageCostSource& inner) : inner_(inner) {}

  StatusOr<double> StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                  const StageCandidate& stage) override;
  // Kept by the block's text (each node's op with its input and output values and their dims,
  // stage by stage) and the round, persisted beside the stages: a plan recompiled from a timing
  // cache makes the same choices.
  StatusOr<double> BlockLatencyMs(const Graph& graph, const ScheduleBlock& block,
                                  int round) override;
  bool MeasuresBlocks() const override { return inner_.MeasuresBlocks(); }
  // Kept by the unit's stage key and the width, persisted beside the stages: a search from a
  // timing cache skips the same stages.
  StatusOr<double> UnitAloneLatencyMs(const Graph& graph, const UnitGraph& units, UnitId unit,
                                      int stage_width) override;
  bool BoundsStages() const override { return inner_.BoundsStages(); }
  std::string Name() const override { return inner_.Name(); }
  std::string CountersText() const override { return inner_.CountersText(); }
  DeviceFingerprint Fingerprint() const override { return inner_.Fingerprint(); }
  std::string KernelVersions() const override { return inner_.KernelVersions(); }

  // Every StageLatencyMs call.
  int64_t requests() const { return requests_; }
  // Requests for one-group stages that the inner source composes of their units
  // (ComposesOneGroupStages), answered as the sum of the units' one-unit stages.
  int64_t composed() const { return composed_; }
  // Calls that reached the inner source (distinct signatures not already known).
  int64_t distinct_measured() const { return distinct_measured_; }
  // UnitAloneLatencyMs calls that reached the inner source.
  int64_t unit_bounds_measured() const { return unit_bounds_measured_; }
  // Timings known: loaded from a cache plus measured.
  size_t size() const { return latency_ms_.size() + static_cast<size_t>(distinct_measured_); }

  Status LoadTimingCache(const std::string& path, bool ignore_mismatch = false);
  Status SaveTimingCache(const std::string& path) const;

  // Warnings of LoadTimingCache (a skipped cache), also logged.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  // The timing-cache key of a stage key: the SHA-256 of its canonical text.
  std::string PersistentKey(int32_t key) const;
  std::string UnitAloneKey(int32_t key, int stage_width) const;
  StatusOr<double> ComposedLatencyMs(const Graph& graph, const UnitGraph& units,
                                     const std::vector<UnitId>& group);
  // The stage of `key` (keyer_ bound): known, loaded or measured.
  StatusOr<double> KeyedLatencyMs(const Graph& graph, const UnitGraph& units,
                                  const StageCandidate& stage, int32_t key);

  StageCostSource& inner_;
  std::map<std::string, double> latency_ms_;  // loaded: SHA-256 of the key's text -> latency
  StageKeyer keyer_;
  std::vector<double> by_key_;  // by stage key; NaN = not known yet
  std::map<std::string, double> blocks_measured_;  // SHA-256 of a block's text -> latency
  // UnitAloneLatencyMs by (the lone unit's stage key, width); persisted under UnitAloneKey.
  std::map<std::pair<int32_t, int>, double> unit_alone_ms_;
  int64_t unit_bounds_measured_ = 0;
  int64_t requests_ = 0;
  int64_t composed_ = 0;
  int64_t distinct_measured_ = 0;
  std::vector<std::string> warnings_;
};

// "the CPU Intel Xeon ... (avx2, 2 cores)", "the CUDA GPU NVIDIA A100 (sm_80)", "the analytic GPU
// model V100 (Tesla V100-SXM2, sm_70)": for messages.
std::string DescribeDevice(const DeviceFingerprint& device);

// Empty when a timing made on `made_for` may be used for `current`; otherwise what differs.
std::string DeviceMismatch(const DeviceFingerprint& made_for, const DeviceFingerprint& current);

}  // namespace ios
