// Structural validation of a plan before anything uses it: versions, index ranges, sizes and the
// schedule's coverage. `source` (the file name) prefixes every message. Errors are InvalidInput.
// The semantic checks (schedule order, memory overlaps) need the graph; LoadPlan runs them.
#pragma once

#include <string>

#include "iosplan.pb.h"
#include "util/status.h"

namespace ios {

// Where the weights' bytes are: in the message (Weight.data), or still in a format 3 file
// (PlanFile, plan_io.h: Weight.data empty, Weight.bytes and Weight.offset set).
enum class WeightBytes { kInMessage, kInFile };

Status ValidatePlan(const plan::Plan& plan, const std::string& source,
                    WeightBytes weights = WeightBytes::kInMessage);

// Bytes of a plan tensor (dims x dtype size), or -1 when the dtype is unknown, a dim is
// negative or the size overflows.
int64_t PlanTensorBytes(const plan::Tensor& tensor);

}  // namespace ios
