#include "plan/plan_format.h"

namespace ios {

plan::DataType DTypeToPlan(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return plan::FLOAT32;
    case DType::kUint8: return plan::UINT8;
    case DType::kInt8: return plan::INT8;
    case DType::kInt32: return plan::INT32;
    case DType::kInt64: return plan::INT64;
    case DType::kBool: return plan::BOOL;
    case DType::kFloat16: return plan::FLOAT16;
    case DType::kFloat64: return plan::FLOAT64;
    case DType::kUndefined: return plan::DATA_TYPE_UNDEFINED;
  }
  return plan::DATA_TYPE_UNDEFINED;
}

DType DTypeFromPlan(int32_t data_type) {
  switch (data_type) {
    case plan::FLOAT32: return DType::kFloat32;
    case plan::UINT8: return DType::kUint8;
    case plan::INT8: return DType::kInt8;
    case plan::INT32: return DType::kInt32;
    case plan::INT64: return DType::kInt64;
    case plan::BOOL: return DType::kBool;
    case plan::FLOAT16: return DType::kFloat16;
    case plan::FLOAT64: return DType::kFloat64;
    default: return DType::kUndefined;
  }
}

plan::Strategy StrategyToPlan(StageStrategy strategy) {
  switch (strategy) {
    case StageStrategy::kConcurrent: return plan::CONCURRENT;
    case StageStrategy::kMerge: return plan::MERGE;
  }
  return plan::STRATEGY_UNDEFINED;
}

plan::Layout LayoutToPlan(Layout layout) {
  switch (layout) {
    case Layout::kChannelsLast: return plan::CHANNELS_LAST;
    case Layout::kChannelsBlocked8: return plan::CHANNELS_BLOCKED_8;
    case Layout::kRowMajor: break;
  }
  return plan::ROW_MAJOR;
}

std::optional<Layout> LayoutFromPlan(int32_t layout) {
  switch (layout) {
    case plan::ROW_MAJOR: return Layout::kRowMajor;
    case plan::CHANNELS_LAST: return Layout::kChannelsLast;
    case plan::CHANNELS_BLOCKED_8: return Layout::kChannelsBlocked8;
    default: return std::nullopt;
  }
}

}  // namespace ios
