// iosrun's GPU path: runs, checks and benchmarks a plan on CUDA device N through CudaSession.
// Built only with the CUDA backend (IOS_HAVE_CUDA).
#pragma once

#include "iosplan.pb.h"
#include "iosrun/iosrun_options.h"
#include "plan/plan_io.h"
#include "plan/plan_pick.h"
#include "util/status.h"

namespace ios {

// Returns the exit code, as RunIosrun does. "no CUDA device ..." (InvalidInput, exit 2) when
// device `ordinal` does not exist.
StatusOr<int> RunOnCuda(const IosrunOptions& options, PlanFile file, int ordinal);

// Device `ordinal`'s fingerprint and the check that a plan runs on it, for iosrun FOLDER.
StatusOr<PlanPickOptions> CudaPlanPickOptions(int ordinal);

}  // namespace ios
