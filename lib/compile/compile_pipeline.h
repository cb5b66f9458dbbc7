// Runs what iosc's options ask for: import, canonicalise, cut into blocks, report.
#pragma once

#include "iosc/iosc_options.h"
#include "util/status.h"

namespace ios {

Status RunIosc(const IoscOptions& options);

}  // namespace ios
