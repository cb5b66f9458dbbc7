#include "ios/version.h"
#include "plan/plan_format.h"

namespace ios {

VersionInfo Version() {
  VersionInfo version;
  version.library = IOS_VERSION;
  version.plan_format_major = static_cast<int>(kPlanFormatMajor);
  version.plan_format_minor = static_cast<int>(kPlanFormatMinor);
  return version;
}

}  // namespace ios
