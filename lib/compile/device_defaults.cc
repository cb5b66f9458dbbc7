#include "compile/device_defaults.h"

#include <algorithm>
#include <thread>

namespace ios {
namespace {

constexpr int kGroupsPerStage = 8;  // the paper's s, and a GPU's streams
constexpr int kCpuProfileWarmup = 2;

}  // namespace

int MachineCores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

void ResolveDeviceDefaults(PipelineOptions& options, int cores) {
  const bool cpu = options.device == "cpu";
  if (options.max_groups_per_stage == kDeviceDefault)
    options.max_groups_per_stage = cpu ? std::min(kGroupsPerStage, cores) : kGroupsPerStage;
  if (options.profile_warmup == kDeviceDefault && !IsCudaDevice(options.device))
    options.profile_warmup = kCpuProfileWarmup;
}

bool DeviceDefaultsResolved(const PipelineOptions& options) {
  return options.max_groups_per_stage != kDeviceDefault &&
         (options.profile_warmup != kDeviceDefault || IsCudaDevice(options.device));
}

int GreedyStreams(const PipelineOptions& options, int cores) {
  if (options.max_streams > 0) return options.max_streams;
  return options.device == "cpu" ? cores : kGroupsPerStage;
}

}  // namespace ios
