// Issuing a CommandList from one host thread, as the CUDA backend does when it captures the
// schedule into a CUDA Graph or replays it onto streams directly. Backend-neutral: the CUDA
// session implements CommandSink with cudaEventRecord / cudaStreamWaitEvent / kernel launches,
// and the tests implement it with a recorder.
//
// Order: streams are visited round-robin; each visit issues a stream's commands up to and
// including its next op, stopping early at a wait whose event has not been issued yet. So every
// wait is issued after the record it waits for (required: a CUDA stream waiting on an event
// that was never recorded does not wait at all, and inside a capture it is an error), each
// stream's own order is kept, and the ops of concurrent groups are interleaved in launch order,
// so that the GPU sees independent kernels early (Opara's launch-order finding).
#pragma once

#include <string>
#include <vector>

#include "runtime/command_list.h"
#include "util/status.h"

namespace ios {

class CommandSink {
 public:
  virtual ~CommandSink() = default;
  virtual Status RunOp(int stream, NodeId op) = 0;
  virtual Status RecordEvent(int stream, int event) = 0;
  virtual Status WaitEvent(int stream, int event) = 0;
};

// Issues every command of `commands` to `sink` in the order described above. Fails (without
// issuing the rest) on an event recorded twice, or when the streams wait on each other in a
// cycle or on an event that no stream records.
Status IssueCommands(const CommandList& commands, CommandSink& sink);

// One issued command, as a recorder sink sees it.
struct IssuedCommand {
  int stream = 0;
  Command command;
};

// The issue order itself, for tests and for --dump output.
StatusOr<std::vector<IssuedCommand>> IssueOrder(const CommandList& commands);

// The shape a capture needs, checked on an issue order: every wait comes after its record;
// every non-origin stream that is used starts by waiting on an event the origin recorded (it
// joins the capture through the origin) and ends by recording an event that the origin waits on
// later (the capture joins it back before it ends).
Status CheckCaptureSequence(const std::vector<IssuedCommand>& order, int num_streams);

}  // namespace ios
