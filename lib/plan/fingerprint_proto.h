// The plain DeviceFingerprint (util/device_fingerprint.h) and the plan's message, both ways.
#pragma once

#include "iosplan.pb.h"
#include "util/device_fingerprint.h"

namespace ios {

plan::DeviceFingerprint ToPlanFingerprint(const DeviceFingerprint& device);
DeviceFingerprint FromPlanFingerprint(const plan::DeviceFingerprint& device);

}  // namespace ios
