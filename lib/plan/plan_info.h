// Human- and machine-readable descriptions of a plan (iosrun --info, --info-json).
#pragma once

#include <string>
#include <vector>

#include "iosplan.pb.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

// A few lines: format and producer, model hash, batch, device, counts, schedule, memory, stage
// latencies.
std::string FormatPlanSummary(const plan::Plan& plan);

// "cuda (NVIDIA H100 80GB HBM3, sm_90, 132 SMs, driver ..., runtime ..., cuDNN ...)", "sim (A100)".
std::string DeviceSummary(const plan::DeviceFingerprint& device);

// The host memory a CPU run of the plan takes for its buffers: every weight's bytes plus the
// arena (saturating at INT64_MAX for sizes that do not add up), known before anything is read.
int64_t PlanHostBytes(const plan::Plan& plan);

// The stage latencies a plan records ({block, stage, latency}), per stage of `schedule` in
// order; -1 for a stage without one (greedy and sequential plans record none).
std::vector<double> PredictedStageMs(
    const Schedule& schedule,
    const google::protobuf::RepeatedPtrField<plan::StageLatency>& latencies);

// The whole plan as JSON (protobuf's own JSON mapping, proto field names, defaults printed),
// with each weight's data left out (its `bytes` field keeps the size).
StatusOr<std::string> PlanInfoJson(const plan::Plan& plan);

}  // namespace ios
