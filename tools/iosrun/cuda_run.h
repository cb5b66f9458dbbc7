// iosrun's GPU path: runs, checks and benchmarks a plan opened on CUDA device N (CudaSession).
// Built only with the CUDA backend (IOS_HAVE_CUDA).
#pragma once

#include "iosrun/iosrun_options.h"
#include "session/plan_session.h"
#include "util/status.h"

namespace ios {

// Runs, checks, benchmarks or traces the plan that `opened` holds on its CUDA device
// (OpenPlanSession chose the device and checked the plan's fingerprint). Returns the exit code,
// as RunIosrun does.
StatusOr<int> RunOnCuda(const IosrunOptions& options, PlanSession& opened);

}  // namespace ios
