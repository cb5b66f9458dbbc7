// The ios library: compile an ONNX CNN into a plan (ios/compiler.h), run a plan (ios/session.h).
// See docs/api.md.
#pragma once

#include "ios/compiler.h"
#include "ios/session.h"
#include "ios/status.h"
#include "ios/version.h"
