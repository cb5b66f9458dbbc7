#include "plan/plan_info.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "util/json_print.h"

namespace ios {
namespace {

std::string FormatBytes(int64_t bytes) {
  char text[64];
  if (bytes >= (int64_t{1} << 20)) {
    std::snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  } else if (bytes >= (int64_t{1} << 10)) {
    std::snprintf(text, sizeof(text), "%.1f KiB", static_cast<double>(bytes) / (1 << 10));
  } else {
    std::snprintf(text, sizeof(text), "%lld B", static_cast<long long>(bytes));
  }
  return text;
}

}  // namespace

std::string DeviceSummary(const plan::DeviceFingerprint& device) {
  std::ostringstream out;
  if (device.kind().empty()) return "unspecified";
  out << device.kind();
  if (device.kind() == "cpu") {
    out << " (" << (device.cpu_model().empty() ? "unknown model" : device.cpu_model()) << ", "
        << device.cpu_cores() << " cores"
        << (device.cpu_isa().empty() ? "" : ", " + device.cpu_isa()) << ")";
  } else if (device.kind() == "cuda") {
    out << " (" << device.gpu_name() << ", sm_" << device.compute_major() << device.compute_minor()
        << ", " << device.multiprocessors() << " SMs, driver " << device.driver_version()
        << ", runtime " << device.runtime_version() << ", cuDNN " << device.cudnn_version() << ")";
  } else if (!device.sim_model().empty()) {
    out << " (" << device.sim_model() << ")";
  }
  return out.str();
}

std::string FormatPlanSummary(const plan::Plan& plan) {
  std::ostringstream out;
  out << "plan format " << plan.format_major() << "." << plan.format_minor() << ", written by ios "
      << (plan.producer().ios_version().empty() ? "(unknown)" : plan.producer().ios_version())
      << "\n";
  if (!plan.producer().command_line().empty())  // plans before 0.1 recorded it
    out << "command: " << plan.producer().command_line() << "\n";
  if (!plan.producer().options().empty()) {
    const std::map<std::string, std::string> sorted(plan.producer().options().begin(),
                                                    plan.producer().options().end());
    out << "options:";
    for (const auto& [key, value] : sorted) out << " " << key << "=" << value;
    out << "\n";
  }
  out << "model: " << (plan.graph_name().empty() ? "(unnamed)" : plan.graph_name()) << ", sha256 "
      << (plan.model_sha256().empty() ? "(none)" : plan.model_sha256()) << ", opset "
      << plan.opset() << ", batch " << plan.batch() << "\n";
  out << "device: " << DeviceSummary(plan.device()) << "\n";

  int64_t weight_bytes = 0;
  for (const plan::Weight& weight : plan.weights())
    weight_bytes += std::max<int64_t>(weight.bytes(), static_cast<int64_t>(weight.data().size()));
  out << "tensors: " << plan.tensors_size() << ", ops: " << plan.ops_size()
      << ", weights: " << plan.weights_size() << " (" << FormatBytes(weight_bytes) << ")\n";
  int channels_last = 0;
  int blocked = 0;
  for (const plan::Tensor& tensor : plan.tensors()) {
    channels_last += tensor.layout() == plan::CHANNELS_LAST;
    blocked += tensor.layout() == plan::CHANNELS_BLOCKED_8;
  }
  if (channels_last + blocked > 0)
    out << "layout: " << channels_last << " channels-last tensors between the ops that take them, "
        << blocked << " channels-blocked-8 between convs, the rest row-major\n";
  if (plan.weights_stripped()) {
    int counts[4] = {0, 0, 0, 0};
    for (const plan::Weight& weight : plan.weights())
      ++counts[weight.derivation() >= 0 && weight.derivation() < 4 ? weight.derivation() : 0];
    out << "weights stripped: rebuilt at load from the model (iosrun --weights MODEL): "
        << counts[plan::INITIALIZER] << " the model's tensors, " << counts[plan::FOLDED]
        << " folded by the passes, " << counts[plan::MERGED] << " of merged convs\n";
  }

  int stages = 0;
  int max_groups = 0;
  for (const plan::Block& block : plan.schedule().blocks()) {
    stages += block.stages_size();
    for (const plan::Stage& stage : block.stages())
      max_groups = std::max(max_groups, stage.groups_size());
  }
  out << "schedule: " << (plan.schedule().kind().empty() ? "(unnamed)" : plan.schedule().kind())
      << ", " << plan.schedule().blocks_size() << " blocks, " << stages << " stages, at most "
      << max_groups << " groups per stage\n";

  const plan::MemoryPlan& memory = plan.memory();
  out << "memory: arena " << FormatBytes(memory.arena_bytes()) << " for "
      << FormatBytes(memory.total_tensor_bytes()) << " of tensors";
  if (memory.total_tensor_bytes() > 0) {
    char ratio[32];
    std::snprintf(ratio, sizeof(ratio), "%.1f%%",
                  100.0 * static_cast<double>(memory.arena_bytes()) /
                      static_cast<double>(memory.total_tensor_bytes()));
    out << " (" << ratio << ")";
  }
  int views = 0;
  int strided = 0;
  int64_t view_bytes = 0;  // what the skipped Concats and Splits would have copied
  for (const plan::TensorPlacement& placement : memory.placements()) {
    if (!placement.is_view()) continue;
    ++views;
    strided += placement.view_pitch() != 0;
    view_bytes += placement.bytes();
  }
  out << ", alignment " << memory.alignment() << ", " << views << " zero-copy slice views ("
      << strided << " strided; " << FormatBytes(view_bytes)
      << " not copied per run; plan/tensor_views.h)\n";

  std::set<std::string> sources;
  for (const plan::StageLatency& latency : plan.stage_latencies()) sources.insert(latency.source());
  out << "stage latencies: " << plan.stage_latencies_size();
  if (!sources.empty()) {
    out << " (source";
    for (const std::string& source : sources)
      out << (source == *sources.begin() ? " " : ", ") << source;
    out << ")";
  }
  out << "\n";
  return out.str();
}

StatusOr<std::string> PlanInfoJson(const plan::Plan& plan) {
  plan::Plan copy = plan;
  for (plan::Weight& weight : *copy.mutable_weights()) {
    if (weight.bytes() == 0) weight.set_bytes(static_cast<int64_t>(weight.data().size()));
    weight.clear_data();
  }
  return MessageToJson(copy);
}

int64_t PlanHostBytes(const plan::Plan& plan) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t total = std::max<int64_t>(0, plan.memory().arena_bytes());
  for (const plan::Weight& weight : plan.weights()) {
    const int64_t bytes = std::max<int64_t>(0, weight.bytes());
    total = bytes > kMax - total ? kMax : total + bytes;
  }
  return total;
}

std::vector<double> PredictedStageMs(
    const Schedule& schedule,
    const google::protobuf::RepeatedPtrField<plan::StageLatency>& latencies) {
  std::map<std::pair<int, int>, double> by_stage;
  for (const plan::StageLatency& latency : latencies)
    by_stage[{latency.block(), latency.stage()}] = latency.latency_ms();
  std::vector<double> predicted;
  for (size_t b = 0; b < schedule.blocks.size(); ++b) {
    for (size_t s = 0; s < schedule.blocks[b].stages.size(); ++s) {
      auto it = by_stage.find({static_cast<int>(b), static_cast<int>(s)});
      predicted.push_back(it == by_stage.end() ? -1.0 : it->second);
    }
  }
  return predicted;
}

}  // namespace ios
