#include "ops/kernel_caps.h"

#include <algorithm>

#include "ir/fused_activation.h"

namespace ios {
namespace {

// Whether input `index` is read by `node` through that input alone.
bool ReadOnlyThere(const Node& node, size_t index) {
  return std::count(node.inputs.begin(), node.inputs.end(), node.inputs[index]) == 1;
}

}  // namespace

bool InPlaceEitherOfTwo(const Node& node, size_t input_index) {
  return node.inputs.size() == 2 && input_index < 2;
}

bool InPlaceFirstInput(const Node& node, size_t input_index) {
  return input_index == 0 && !node.inputs.empty() && ReadOnlyThere(node, 0);
}

bool InPlaceInferenceFirstInput(const Node& node, size_t input_index) {
  StatusOr<int64_t> training = node.attrs.GetInt("training_mode", 0);
  return training.ok() && training.value() == 0 && InPlaceFirstInput(node, input_index);
}

bool InPlaceFusedResidual(const Node& node, size_t input_index) {
  return HasFusedResidual(node) && input_index == 3 && node.inputs.size() == 4 &&
         ReadOnlyThere(node, 3);
}

}  // namespace ios
