// Runs what iosrun's options ask for; returns the exit code (1 for a --check mismatch).
#pragma once

#include "iosrun/iosrun_options.h"
#include "util/status.h"

namespace ios {

StatusOr<int> RunIosrun(const IosrunOptions& options);

}  // namespace ios
