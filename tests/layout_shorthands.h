// Short names for the tensor layouts (ir/layout.h), for the layout tests' tables.
#pragma once

#include "ir/layout.h"

namespace ios::testing {

inline constexpr Layout kRM = Layout::kRowMajor;
inline constexpr Layout kCL = Layout::kChannelsLast;
inline constexpr Layout kB8 = Layout::kChannelsBlocked8;

}  // namespace ios::testing
