// iosrun --trace, --profile and --export-profile on the CPU: traced runs of a session, written
// as a Chrome trace and printed or written as a profile.
#pragma once

#include "iosrun/iosrun_options.h"
#include "runtime/cpu/cpu_session.h"
#include "util/status.h"

namespace ios {

// True when any of the three options asks for traced runs.
bool WantsTrace(const IosrunOptions& options);
Status TraceAndProfile(const IosrunOptions& options, CpuSession& session);

}  // namespace ios
