// The --device values that name a CUDA device, parsed in one place for iosc and iosrun.
#pragma once

#include <string>

namespace ios {

// The CUDA device ordinal that `device` names: "cuda" (device 0), "cuda:N" or "N", with N of at
// most 6 digits; -1 for any other value (cpu, sim:NAME, a typo, an ordinal too long to be one).
int CudaOrdinalOf(const std::string& device);

}  // namespace ios
