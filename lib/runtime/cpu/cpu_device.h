// The CPU's device fingerprint for plans, and the check iosrun makes before running a plan.
#pragma once

#include <string>
#include <vector>

#include "iosplan.pb.h"
#include "util/status.h"

namespace ios {

plan::DeviceFingerprint CpuFingerprint();

// "oneDNN 2.6.3": the version of the oneDNN library loaded at run time, whose kernels the CPU
// profiler's timings measure (a timing cache from another version is not reused).
std::string CpuKernelVersions();

// Whether a plan made for `planned` may run on this CPU. Refuses another device kind, and an
// instruction set this CPU lacks (unless `force`); differences that only affect speed (model
// name, core count) come back as warnings.
Status CheckCpuFingerprint(const plan::DeviceFingerprint& planned, bool force,
                           std::vector<std::string>* warnings);

}  // namespace ios
