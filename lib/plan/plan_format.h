// The plan file's format version and the mappings between ios enums and the plan's proto enums
// (explicit, so that neither side depends on the other's numbers).
#pragma once

#include <cstdint>

#include "iosplan.pb.h"
#include "ir/dtype.h"
#include "sched/schedule.h"

namespace ios {

// Readers accept plans of their own major version; a minor version only adds fields.
constexpr uint32_t kPlanFormatMajor = 1;
constexpr uint32_t kPlanFormatMinor = 1;  // 1.1 added Plan.cuda and zero-copy views

plan::DataType DTypeToPlan(DType dtype);
// kUndefined for DATA_TYPE_UNDEFINED and for numbers this build does not know.
DType DTypeFromPlan(int32_t data_type);

plan::Strategy StrategyToPlan(StageStrategy strategy);

}  // namespace ios
