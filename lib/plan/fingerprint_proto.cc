#include "plan/fingerprint_proto.h"

namespace ios {

plan::DeviceFingerprint ToPlanFingerprint(const DeviceFingerprint& device) {
  return FingerprintToMessage<plan::DeviceFingerprint>(device);
}

DeviceFingerprint FromPlanFingerprint(const plan::DeviceFingerprint& device) {
  return FingerprintFromMessage(device);
}

}  // namespace ios
