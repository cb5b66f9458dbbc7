// Human- and machine-readable descriptions of a plan (iosrun --info, --info-json).
#pragma once

#include <string>

#include "iosplan.pb.h"
#include "util/status.h"

namespace ios {

// A few lines: format and producer, model hash, batch, device, counts, schedule, memory, stage
// latencies.
std::string FormatPlanSummary(const plan::Plan& plan);

// The host memory a CPU run of the plan takes for its buffers: every weight's bytes plus the
// arena (saturating at INT64_MAX for sizes that do not add up), known before anything is read.
int64_t PlanHostBytes(const plan::Plan& plan);

// The whole plan as JSON (protobuf's own JSON mapping, proto field names, defaults printed),
// with each weight's data left out (its `bytes` field keeps the size).
StatusOr<std::string> PlanInfoJson(const plan::Plan& plan);

}  // namespace ios
