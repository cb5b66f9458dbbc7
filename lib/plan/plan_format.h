// The plan file's format version and the mappings between ios enums and the plan's proto enums
// (explicit, so that neither side depends on the other's numbers).
#pragma once

#include <cstdint>
#include <optional>

#include "iosplan.pb.h"
#include "ir/dtype.h"
#include "ir/layout.h"
#include "sched/schedule.h"

namespace ios {

// Readers accept plans from kOldestPlanFormatMajor to their own major version; a minor version
// only adds fields that older readers may ignore, a major one fields they must not ignore.
// 1.1 added Plan.cuda and zero-copy views; 2.0 strided views (TensorPlacement.view_pitch); 3.0
// the container file whose weights follow the message (plan_io.h, Weight.offset); 3.1
// weight-stripped plans (Plan.weights_stripped, Weight.derivation; a 3.0 reader refuses them as
// truncated, since their weights lie outside the file); 4.0 tensor layouts (Tensor.layout: a
// 3.x reader would read a channels-last tensor as row-major); 5.0 the channels-blocked-8 layout
// (a 4.x reader would refuse it only as an unknown layout, not as a plan it is too old for); 6.0
// views of channels-blocked-8 tensors (a 5.x reader would refuse them as views of a tensor that
// is not row-major, not as a plan it is too old for); 7.0 activations fused into a CPU plan's
// BatchNormalizations (ios.activation on a BN node: a 6.x reader's BN kernels would ignore it and
// give wrong outputs).
constexpr uint32_t kPlanFormatMajor = 7;
constexpr uint32_t kPlanFormatMinor = 0;
constexpr uint32_t kOldestPlanFormatMajor = 1;

plan::DataType DTypeToPlan(DType dtype);
// kUndefined for DATA_TYPE_UNDEFINED and for numbers this build does not know.
DType DTypeFromPlan(int32_t data_type);

plan::Strategy StrategyToPlan(StageStrategy strategy);

plan::Layout LayoutToPlan(Layout layout);
// Null for numbers this build does not know.
std::optional<Layout> LayoutFromPlan(int32_t layout);

}  // namespace ios
