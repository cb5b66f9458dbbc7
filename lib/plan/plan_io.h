// Reading and writing plan files. Writing is atomic (a failed write leaves no partial plan);
// reading refuses anything that is not a valid plan of this format (ValidatePlan).
#pragma once

#include <string>

#include "iosplan.pb.h"
#include "util/status.h"

namespace ios {

// Serialises deterministically (the same plan gives the same bytes).
Status WritePlanFile(const plan::Plan& plan, const std::string& path);
// InvalidInput "<path>: not an ios plan (truncated or corrupted)" for bytes that do not parse as
// a plan, and ValidatePlan's errors for a plan that is not valid.
StatusOr<plan::Plan> ReadPlanFile(const std::string& path);

}  // namespace ios
