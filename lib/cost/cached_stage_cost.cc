#include "cost/cached_stage_cost.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <system_error>

#include "timing_cache.pb.h"
#include "util/file_util.h"
#include "util/sha256.h"

namespace ios {
namespace {

constexpr const char* kMagic = "ios-timing-cache";
constexpr int kFormatMajor = 1;
constexpr int kFormatMinor = 1;

bool IsSha256Hex(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::string DescribeDevice(const DeviceFingerprint& device) {
  auto or_unknown = [](const std::string& s) { return s.empty() ? std::string("unknown") : s; };
  const std::string capability =
      "sm_" + std::to_string(device.compute_major) + std::to_string(device.compute_minor);
  if (device.kind == "cpu") {
    return "the CPU " + or_unknown(device.cpu_model) + " (" + or_unknown(device.cpu_isa) +
           ", " + std::to_string(device.cpu_cores) + " cores)";
  }
  if (device.kind == "cuda") {
    return "the CUDA GPU " + or_unknown(device.gpu_name) + " (" + capability + ")";
  }
  if (device.kind == "sim") {
    std::string text = "the analytic GPU model " + or_unknown(device.sim_model);
    if (!device.gpu_name.empty()) text += " (" + device.gpu_name + ", " + capability + ")";
    return text;
  }
  return "a device of kind '" + device.kind + "'";
}

std::string DeviceMismatch(const DeviceFingerprint& made_for,
                           const DeviceFingerprint& current) {
  auto differs = [](const std::string& what, const std::string& a, const std::string& b) {
    return a == b ? std::string() : what + " '" + a + "' vs '" + b + "'";
  };
  for (const std::string& difference : {
           differs("device kind", made_for.kind, current.kind),
           differs("analytic model", made_for.sim_model, current.sim_model),
           differs("GPU", made_for.gpu_name, current.gpu_name),
           differs("compute capability",
                   std::to_string(made_for.compute_major) + "." +
                       std::to_string(made_for.compute_minor),
                   std::to_string(current.compute_major) + "." +
                       std::to_string(current.compute_minor)),
           differs("CPU", made_for.cpu_model, current.cpu_model),
           differs("instruction set", made_for.cpu_isa, current.cpu_isa),
           differs("core count", std::to_string(made_for.cpu_cores),
                   std::to_string(current.cpu_cores)),
       }) {
    if (!difference.empty()) return difference;
  }
  return "";
}

std::string CachedStageCost::PersistentKey(int32_t key) const {
  return Sha256Hex(keyer_.Text(key));
}

StatusOr<double> CachedStageCost::StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                                 const StageCandidate& stage) {
  ++requests_;
  keyer_.Bind(graph, units);
  if (ComposedOfUnits(inner_, stage)) return ComposedLatencyMs(graph, units, stage.groups[0]);
  return KeyedLatencyMs(graph, units, stage, keyer_.Key(stage));
}

// Neither kept nor saved: summed again from the one-unit figures at every request, so that a
// composed figure never outlives or contradicts them (a timing cache of an older ios may hold
// composed stages measured in another process).
StatusOr<double> CachedStageCost::ComposedLatencyMs(const Graph& graph, const UnitGraph& units,
                                                    const std::vector<UnitId>& group) {
  ++composed_;
  double sum = 0;
  StageCandidate alone;
  alone.groups = {{}};
  for (UnitId unit : group) {
    alone.groups[0] = {unit};
    IOS_ASSIGN_OR_RETURN(double ms, KeyedLatencyMs(graph, units, alone, keyer_.Key(alone)));
    sum += ms;
  }
  return sum;
}

StatusOr<double> CachedStageCost::KeyedLatencyMs(const Graph& graph, const UnitGraph& units,
                                                 const StageCandidate& stage, int32_t key) {
  if (static_cast<size_t>(key) >= by_key_.size())
    by_key_.resize(static_cast<size_t>(key) + 1, std::numeric_limits<double>::quiet_NaN());
  if (!std::isnan(by_key_[key])) return by_key_[key];

  // First sight in this run: the timing cache (when one was loaded), then the inner source.
  // The persistent key (a SHA-256 of the key's text) is only needed against a loaded cache and
  // when saving, so it is not computed per new stage otherwise.
  double latency = 0;
  bool known = false;
  if (!latency_ms_.empty()) {
    auto found = latency_ms_.find(PersistentKey(key));
    if (found != latency_ms_.end()) {
      latency = found->second;
      known = true;
    }
  }
  if (!known) {
    IOS_ASSIGN_OR_RETURN(latency, inner_.StageLatencyMs(graph, units, stage));
    ++distinct_measured_;
  }
  by_key_[key] = latency;
  return latency;
}

std::string CachedStageCost::UnitAloneKey(int32_t key, int stage_width) const {
  return Sha256Hex("unit alone in a stage of " + std::to_string(stage_width) + " groups\n" +
                   keyer_.Text(key));
}

StatusOr<double> CachedStageCost::UnitAloneLatencyMs(const Graph& graph, const UnitGraph& units,
                                                     UnitId unit, int stage_width) {
  StageCandidate alone;
  alone.groups = {{unit}};
  // Alone with the whole device: the one-unit stage itself, one measurement for both.
  if (stage_width <= 1) return StageLatencyMs(graph, units, alone);
  keyer_.Bind(graph, units);
  const int32_t key = keyer_.Key(alone);
  auto known = unit_alone_ms_.find({key, stage_width});
  if (known != unit_alone_ms_.end()) return known->second;
  double latency = 0;
  auto loaded = latency_ms_.empty() ? latency_ms_.end()
                                    : latency_ms_.find(UnitAloneKey(key, stage_width));
  if (loaded != latency_ms_.end()) {
    latency = loaded->second;
  } else {
    IOS_ASSIGN_OR_RETURN(latency, inner_.UnitAloneLatencyMs(graph, units, unit, stage_width));
    ++unit_bounds_measured_;
  }
  unit_alone_ms_.emplace(std::make_pair(key, stage_width), latency);
  return latency;
}

StatusOr<double> CachedStageCost::BlockLatencyMs(const Graph& graph, const ScheduleBlock& block,
                                                 int round) {
  std::string text = "block round " + std::to_string(round);
  auto value_text = [&](ValueId id) {
    if (id == kNoValue) return std::string("-");
    const Value& value = graph.values[id];
    std::string dims;
    for (int64_t d : value.dims) dims += std::to_string(d) + "x";
    // The layout too: the same block over channels-last tensors runs other kernels.
    return value.name + ":" + dims + LayoutTag(value.layout);
  };
  for (const ScheduleStage& stage : block.stages) {
    text += stage.strategy == StageStrategy::kMerge ? "\nmerge" : "\nstage";
    for (const ScheduleGroup& group : stage.groups) {
      text += " [";
      for (NodeId n : group.nodes) {
        const Node& node = graph.nodes[n];
        text += node.op_type + "(";
        for (ValueId id : node.inputs) text += value_text(id) + ",";
        text += ")->";
        for (ValueId id : node.outputs) text += value_text(id) + ",";
        text += ";";
      }
      text += "]";
    }
  }
  const std::string key = Sha256Hex(text);
  for (const auto* known : {&blocks_measured_, &latency_ms_}) {
    auto found = known->find(key);
    if (found != known->end()) return found->second;
  }
  IOS_ASSIGN_OR_RETURN(double latency, inner_.BlockLatencyMs(graph, block, round));
  blocks_measured_[key] = latency;
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
    // Refused either way, never read: a newer major's fields may change what the timings mean.
    const std::string format = "timing cache format " + std::to_string(cache.format_major()) + "." +
                               std::to_string(cache.format_minor());
    const std::string writer =
        cache.ios_version().empty() ? "" : " (written by ios " + cache.ios_version() + ")";
    const std::string ours = "this ios " + std::string(IOS_VERSION) + " reads format " +
                             std::to_string(kFormatMajor) + ".x";
    if (cache.format_major() > kFormatMajor)
      return InvalidInput(path + ": " + format + writer + " is newer than " + ours +
                          "; upgrade ios, or give iosc another cache file (or delete this one to " +
                          "measure again)");
    return InvalidInput(path + ": " + format + writer + " is older than " + ours +
                        "; delete it (or give iosc another cache file): the stages are measured " +
                        "again and saved in this format");
  }
  const DeviceFingerprint current = inner_.Fingerprint();
  const DeviceFingerprint made_for = FingerprintFromMessage(cache.device());
  std::string mismatch = DeviceMismatch(made_for, current);
  if (mismatch.empty() && cache.source() != inner_.Name()) {
    mismatch = "cost source '" + cache.source() + "' vs '" + inner_.Name() + "'";
  }
  if (!mismatch.empty()) {
    const std::string message = path + ": this timing cache was measured by " + cache.source() +
                                " on " + DescribeDevice(made_for) +
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
  // Right device, other versions: the timings are stale, not wrong. They are not used, and the
  // saved cache replaces them. A cache from before format 1.1 names no versions: stale too.
  const auto version_text = [](const std::string& ios, const std::string& kernels) {
    if (ios.empty()) return std::string("an ios that did not record its version");
    return "ios " + ios + (kernels.empty() ? std::string() : " with " + kernels);
  };
  const std::string made_by = version_text(cache.ios_version(), cache.kernel_versions());
  const std::string this_one = version_text(IOS_VERSION, inner_.KernelVersions());
  if (made_by != this_one) {
    warnings_.push_back(path + ": this timing cache was made by " + made_by + ", and this is " +
                        this_one + "; its timings are not used, and the stages are measured " +
                        "again (saving the cache replaces them)");
    spdlog::warn("{}", warnings_.back());
    return Status::Ok();
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
  *cache.mutable_device() = FingerprintToMessage<proto::DeviceFingerprint>(inner_.Fingerprint());
  cache.set_ios_version(IOS_VERSION);
  cache.set_kernel_versions(inner_.KernelVersions());
  std::map<std::string, double> all = latency_ms_;
  all.insert(blocks_measured_.begin(), blocks_measured_.end());
  for (size_t key = 0; key < by_key_.size(); ++key) {
    if (!std::isnan(by_key_[key]))
      all.emplace(PersistentKey(static_cast<int32_t>(key)), by_key_[key]);
  }
  for (const auto& [key_width, latency] : unit_alone_ms_)
    all.emplace(UnitAloneKey(key_width.first, key_width.second), latency);
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
