// The --load-inputs / --save-outputs / --check file convention: DIR/input_N.pb and
// DIR/output_N.pb, ONNX TensorProto files numbered from 0.
#pragma once

#include <string>
#include <vector>

#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

// Reads DIR/<prefix>_0.pb, _1.pb, ... until the first missing number; an error when there is none.
StatusOr<std::vector<Tensor>> ReadNumberedTensors(const std::string& dir,
                                                  const std::string& prefix);
Status WriteNumberedTensors(const std::string& dir, const std::string& prefix,
                            const std::vector<Tensor>& tensors,
                            const std::vector<std::string>& names);

}  // namespace ios
