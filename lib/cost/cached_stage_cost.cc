#include "cost/cached_stage_cost.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

#include <spdlog/spdlog.h>

#include "cost/stage_signature.h"
#include "timing_cache.pb.h"
#include "util/file_util.h"
#include "util/sha256.h"

namespace ios {
namespace {

constexpr const char* kMagic = "ios-timing-cache";
constexpr int kFormatMajor = 1;
constexpr int kFormatMinor = 0;

bool IsSha256Hex(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::string DescribeDevice(const plan::DeviceFingerprint& device) {
  auto or_unknown = [](const std::string& s) { return s.empty() ? std::string("unknown") : s; };
  const std::string capability =
      "sm_" + std::to_string(device.compute_major()) + std::to_string(device.compute_minor());
  if (device.kind() == "cpu") {
    return "the CPU " + or_unknown(device.cpu_model()) + " (" + or_unknown(device.cpu_isa()) +
           ", " + std::to_string(device.cpu_cores()) + " cores)";
  }
  if (device.kind() == "cuda") {
    return "the CUDA GPU " + or_unknown(device.gpu_name()) + " (" + capability + ")";
  }
  if (device.kind() == "sim") {
    std::string text = "the analytic GPU model " + or_unknown(device.sim_model());
    if (!device.gpu_name().empty()) text += " (" + device.gpu_name() + ", " + capability + ")";
    return text;
  }
  return "a device of kind '" + device.kind() + "'";
}

std::string DeviceMismatch(const plan::DeviceFingerprint& made_for,
                           const plan::DeviceFingerprint& current) {
  auto differs = [](const std::string& what, const std::string& a, const std::string& b) {
    return a == b ? std::string() : what + " '" + a + "' vs '" + b + "'";
  };
  for (const std::string& difference : {
           differs("device kind", made_for.kind(), current.kind()),
           differs("analytic model", made_for.sim_model(), current.sim_model()),
           differs("GPU", made_for.gpu_name(), current.gpu_name()),
           differs("compute capability",
                   std::to_string(made_for.compute_major()) + "." +
                       std::to_string(made_for.compute_minor()),
                   std::to_string(current.compute_major()) + "." +
                       std::to_string(current.compute_minor())),
           differs("CPU", made_for.cpu_model(), current.cpu_model()),
           differs("instruction set", made_for.cpu_isa(), current.cpu_isa()),
           differs("core count", std::to_string(made_for.cpu_cores()),
                   std::to_string(current.cpu_cores())),
       }) {
    if (!difference.empty()) return difference;
  }
  return "";
}

const std::vector<int>& CachedStageCost::UnitKeys(const Graph& graph, const UnitGraph& units) {
  if (keyed_units_ == &units && keyed_graph_ == &graph && unit_keys_.size() == units.units.size())
    return unit_keys_;
  keyed_units_ = &units;
  keyed_graph_ = &graph;
  unit_keys_.assign(units.units.size(), -1);
  for (const Unit& unit : units.units) {
    StageCandidate alone;
    alone.groups = {{unit.id}};
    std::string signature = StageSignature(graph, units, alone);
    auto [it, inserted] = unit_intern_.emplace(signature, static_cast<int>(unit_intern_.size()));
    if (inserted) unit_signature_by_id_.push_back(signature);
    unit_keys_[unit.id] = it->second;
  }
  return unit_keys_;
}

std::string CachedStageCost::PersistentKey(const std::vector<int64_t>& fast_key) const {
  // fast_key = strategy, then per group its length and its units' interned signatures.
  std::string text = fast_key[0] == static_cast<int64_t>(StageStrategy::kMerge) ? "merge" : "concurrent";
  for (size_t i = 1; i < fast_key.size();) {
    const int64_t length = fast_key[i++];
    text += "\n{";
    for (int64_t k = 0; k < length; ++k, ++i)
      text += (fast_key[i] >= 0 ? unit_signature_by_id_[fast_key[i]] : std::string("?")) + "|";
    text += "}";
  }
  return Sha256Hex(text);
}

StatusOr<double> CachedStageCost::StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                                 const StageCandidate& stage) {
  ++requests_;
  const std::vector<int>& unit_keys = UnitKeys(graph, units);
  std::vector<std::vector<int64_t>> groups;
  for (const auto& group : stage.groups) {
    std::vector<int64_t> ids;
    for (UnitId u : group) ids.push_back(u >= 0 && static_cast<size_t>(u) < unit_keys.size() ? unit_keys[u] : -1);
    groups.push_back(std::move(ids));
  }
  std::sort(groups.begin(), groups.end());
  std::vector<int64_t> fast_key{static_cast<int64_t>(stage.strategy)};
  for (const auto& group : groups) {
    fast_key.push_back(static_cast<int64_t>(group.size()));
    fast_key.insert(fast_key.end(), group.begin(), group.end());
  }
  auto fast = by_fast_key_.find(fast_key);
  if (fast != by_fast_key_.end()) return fast->second;

  // First sight in this run: the timing cache (when one was loaded), then the inner source.
  // The persistent key (a SHA-256 of the key's text) is only needed against a loaded cache and
  // when saving, so it is not computed per new stage otherwise.
  double latency = 0;
  bool known = false;
  if (!latency_ms_.empty()) {
    auto found = latency_ms_.find(PersistentKey(fast_key));
    if (found != latency_ms_.end()) {
      latency = found->second;
      known = true;
    }
  }
  if (!known) {
    IOS_ASSIGN_OR_RETURN(latency, inner_.StageLatencyMs(graph, units, stage));
    ++distinct_measured_;
  }
  by_fast_key_.emplace(std::move(fast_key), latency);
  return latency;
}

Status CachedStageCost::LoadTimingCache(const std::string& path, bool ignore_mismatch) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    if (error) return IoError(path + ": cannot access the timing cache: " + error.message());
    spdlog::info("timing cache {} does not exist yet; starting empty", path);
    return Status::Ok();
  }
  IOS_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  proto::TimingCache cache;
  if (!cache.ParseFromString(bytes) || cache.magic() != kMagic) {
    return InvalidInput(path + ": not an ios timing cache, or corrupted (delete it to start a " +
                        "new one)");
  }
  if (cache.format_major() != kFormatMajor) {
    return InvalidInput(path + ": timing cache format " + std::to_string(cache.format_major()) +
                        "." + std::to_string(cache.format_minor()) + "; this ios reads format " +
                        std::to_string(kFormatMajor) + ".x");
  }
  const plan::DeviceFingerprint current = inner_.Fingerprint();
  std::string mismatch = DeviceMismatch(cache.device(), current);
  if (mismatch.empty() && cache.source() != inner_.Name()) {
    mismatch = "cost source '" + cache.source() + "' vs '" + inner_.Name() + "'";
  }
  if (!mismatch.empty()) {
    const std::string message = path + ": this timing cache was measured by " + cache.source() +
                                " on " + DescribeDevice(cache.device()) +
                                ", but stage costs now come from " + inner_.Name() + " on " +
                                DescribeDevice(current) + " (" + mismatch + ")";
    if (!ignore_mismatch) {
      return InvalidInput(message + "; its timings would be wrong here: use another cache file");
    }
    warnings_.push_back(message + "; the cache is ignored");
    spdlog::warn("{}", warnings_.back());
    return Status::Ok();
  }
  std::map<std::string, double> loaded;
  for (int i = 0; i < cache.stages_size(); ++i) {
    const proto::StageTiming& stage = cache.stages(i);
    if (!IsSha256Hex(stage.signature_sha256()) || !std::isfinite(stage.latency_ms()) ||
        stage.latency_ms() < 0) {
      return InvalidInput(path + ": corrupted timing cache (entry " + std::to_string(i) +
                          " has signature '" + stage.signature_sha256() + "' and latency " +
                          std::to_string(stage.latency_ms()) + " ms)");
    }
    loaded[stage.signature_sha256()] = stage.latency_ms();
  }
  // Timings measured in this process win over older ones from the file.
  for (const auto& [key, latency] : loaded) latency_ms_.emplace(key, latency);
  return Status::Ok();
}

Status CachedStageCost::SaveTimingCache(const std::string& path) const {
  proto::TimingCache cache;
  cache.set_magic(kMagic);
  cache.set_format_major(kFormatMajor);
  cache.set_format_minor(kFormatMinor);
  cache.set_source(inner_.Name());
  *cache.mutable_device() = inner_.Fingerprint();
  std::map<std::string, double> all = latency_ms_;
  for (const auto& [fast_key, latency] : by_fast_key_) all.emplace(PersistentKey(fast_key), latency);
  for (const auto& [key, latency] : all) {  // std::map: sorted by key
    proto::StageTiming* stage = cache.add_stages();
    stage->set_signature_sha256(key);
    stage->set_latency_ms(latency);
  }
  std::string bytes;
  if (!cache.SerializeToString(&bytes)) {
    return Internal(path + ": cannot serialise the timing cache");
  }
  return WriteFileAtomically(path, bytes);
}

}  // namespace ios
