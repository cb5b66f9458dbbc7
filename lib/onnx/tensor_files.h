// The tensor-folder convention of iosrun --load-inputs / --save-outputs / --check and iosc
// --reference-outputs: DIR/input_N.pb and DIR/output_N.pb, ONNX TensorProto files numbered
// from 0 (the layout of ONNX's backend test data, and what scripts/ort_reference.py writes).
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
