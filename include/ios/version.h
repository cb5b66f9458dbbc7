// Versions: of the library (ios), of this API, and of the plan files it writes and reads.
//
// Stable: everything under include/ios/ at API major version 1. A minor version only adds (new
// functions, new fields at the end of the option structs); a change that breaks a caller's
// source bumps the major version. Plans: readers accept every plan of their format's major
// version (format 3 since ios 0.1) whatever its minor; a newer major is refused with a message
// (see docs/api.md).
#pragma once

#include <string>

#include "ios/export.h"

#define IOS_API_VERSION_MAJOR 1
#define IOS_API_VERSION_MINOR 0

namespace ios {

struct VersionInfo {
  std::string library;  // "0.1.0"
  int api_major = IOS_API_VERSION_MAJOR;
  int api_minor = IOS_API_VERSION_MINOR;
  int plan_format_major = 0;  // the plans this build writes
  int plan_format_minor = 0;
};

IOS_API VersionInfo Version();

}  // namespace ios
