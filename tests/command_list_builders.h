// One-line builders of Commands for tests that write command lists by hand.
#pragma once

#include <cstdint>

#include "runtime/command_list.h"

namespace ios::testing {

// Runs `op` with `threads` intra-op threads (the CPU backend's share).
inline Command Op(NodeId op, int32_t threads = 1) {
  Command c;
  c.kind = CommandKind::kRunOp;
  c.op = op;
  c.threads = threads;
  return c;
}

inline Command Record(int32_t event) {
  Command c;
  c.kind = CommandKind::kRecordEvent;
  c.event = event;
  return c;
}

inline Command Wait(int32_t event) {
  Command c;
  c.kind = CommandKind::kWaitEvent;
  c.event = event;
  return c;
}

}  // namespace ios::testing
