#include "compile/device_defaults.h"

#include <algorithm>
#include <thread>

namespace ios {

int MachineCores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

void ResolveDeviceDefaults(PipelineOptions& options, int cores) {
  const bool cpu = options.device == "cpu";
  if (options.max_groups_per_stage == kDeviceDefault)
    options.max_groups_per_stage =
        cpu ? std::min(kDefaultGroupsPerStage, cores) : kDefaultGroupsPerStage;
  if (options.profile_warmup == kDeviceDefault && !IsCudaDevice(options.device))
    options.profile_warmup = kCpuProfileWarmup;
}

bool DeviceDefaultsResolved(const PipelineOptions& options) {
  return options.max_groups_per_stage != kDeviceDefault &&
         (options.profile_warmup != kDeviceDefault || IsCudaDevice(options.device));
}

int GreedyStreams(const PipelineOptions& options, int cores) {
  if (options.max_streams > 0) return options.max_streams;
  return options.device == "cpu" ? cores : kDefaultGroupsPerStage;
}

}  // namespace ios
