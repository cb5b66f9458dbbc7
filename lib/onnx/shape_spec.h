// Parsing an input-shape flag, NAME:DIMS (trtexec's --shapes, one input per flag): `DIMS` is
// positive integers separated by 'x' ("1x3x640x640"; empty for a scalar). The name is everything
// before the last ':', so that names holding a colon ("input:0") work.
#pragma once

#include <string>
#include <utility>

#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

StatusOr<std::pair<std::string, Dims>> ParseInputShapeSpec(const std::string& spec);

}  // namespace ios
