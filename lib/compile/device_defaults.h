// The options whose defaults depend on the target device, worked out in one place for iosc and
// the public API: an option left at kDeviceDefault (pipeline_options.h) gets the device's value.
#pragma once

#include "compile/pipeline_options.h"

namespace ios {

inline constexpr int kDefaultGroupsPerStage = 8;  // the paper's s, and a GPU's streams
inline constexpr int kCpuProfileWarmup = 2;

// This machine's hardware threads (at least 1).
int MachineCores();

// max_groups_per_stage: 8, and on the CPU at most `cores` (a stage with more groups than cores
// only time-slices them, and profiling such stages would cost most of the search time).
// profile_warmup: 2 on the CPU; on a CUDA device it stays kDeviceDefault, which the CUDA profiler
// reads as its own default (3 graph launches, cuda_stage_profiler.h). Values given are kept.
void ResolveDeviceDefaults(PipelineOptions& options, int cores);
inline void ResolveDeviceDefaults(PipelineOptions& options) {
  ResolveDeviceDefaults(options, MachineCores());
}

// Whether ResolveDeviceDefaults has run (RunPipeline refuses options where it has not).
bool DeviceDefaultsResolved(const PipelineOptions& options);

// The groups per stage of --schedule greedy: max_streams, or where it is 0 the device's (the
// CPU: its cores; a GPU: 8 streams).
int GreedyStreams(const PipelineOptions& options, int cores);

}  // namespace ios
