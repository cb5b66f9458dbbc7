#include "runtime/issue_order.h"

#include <cstddef>

namespace ios {
namespace {

class RecordingSink : public CommandSink {
 public:
  Status RunOp(int stream, NodeId op) override {
    Command command;
    command.kind = CommandKind::kRunOp;
    command.op = op;
    order.push_back({stream, command});
    return Status::Ok();
  }
  Status RecordEvent(int stream, int event) override {
    return Add(stream, CommandKind::kRecordEvent, event);
  }
  Status WaitEvent(int stream, int event) override {
    return Add(stream, CommandKind::kWaitEvent, event);
  }

  std::vector<IssuedCommand> order;

 private:
  Status Add(int stream, CommandKind kind, int event) {
    Command command;
    command.kind = kind;
    command.event = event;
    order.push_back({stream, command});
    return Status::Ok();
  }
};

std::string StreamName(size_t stream) { return "stream " + std::to_string(stream); }

}  // namespace

Status IssueCommands(const CommandList& commands, CommandSink& sink) {
  const size_t num_streams = commands.streams.size();
  std::vector<size_t> next(num_streams, 0);
  std::vector<char> recorded(static_cast<size_t>(commands.num_events), 0);
  size_t remaining = 0;
  for (const auto& stream : commands.streams) remaining += stream.size();

  while (remaining > 0) {
    bool progressed = false;
    for (size_t s = 0; s < num_streams; ++s) {
      const std::vector<Command>& stream = commands.streams[s];
      while (next[s] < stream.size()) {
        const Command& command = stream[next[s]];
        const int stream_index = static_cast<int>(s);
        if (command.kind != CommandKind::kRunOp &&
            (command.event < 0 || command.event >= commands.num_events)) {
          return Internal(StreamName(s) + " uses event " + std::to_string(command.event) +
                          ", outside the list's " + std::to_string(commands.num_events));
        }
        if (command.kind == CommandKind::kWaitEvent) {
          if (!recorded[command.event]) break;  // blocked: let the other streams progress
          IOS_RETURN_IF_ERROR(sink.WaitEvent(stream_index, command.event));
        } else if (command.kind == CommandKind::kRecordEvent) {
          if (recorded[command.event]) {
            return Internal("event " + std::to_string(command.event) + " is recorded twice");
          }
          recorded[command.event] = 1;
          IOS_RETURN_IF_ERROR(sink.RecordEvent(stream_index, command.event));
        } else {
          IOS_RETURN_IF_ERROR(sink.RunOp(stream_index, command.op));
        }
        ++next[s];
        --remaining;
        progressed = true;
        if (command.kind == CommandKind::kRunOp) break;  // one op per visit: interleave streams
      }
    }
    if (!progressed) {
      return Internal(
          "the command list cannot be issued: its streams wait on events that are "
          "never recorded before the wait (a cycle or a missing record)");
    }
  }
  return Status::Ok();
}

StatusOr<std::vector<IssuedCommand>> IssueOrder(const CommandList& commands) {
  RecordingSink sink;
  IOS_RETURN_IF_ERROR(IssueCommands(commands, sink));
  return std::move(sink.order);
}

Status CheckCaptureSequence(const std::vector<IssuedCommand>& order, int num_streams) {
  std::vector<int> first(static_cast<size_t>(num_streams), -1);
  std::vector<int> last(static_cast<size_t>(num_streams), -1);
  std::vector<int> record_position;  // per event: where it was recorded
  std::vector<int> record_stream;
  for (size_t i = 0; i < order.size(); ++i) {
    const IssuedCommand& issued = order[i];
    if (issued.stream < 0 || issued.stream >= num_streams) {
      return Internal("command " + std::to_string(i) + " is on stream " +
                      std::to_string(issued.stream) + " of " + std::to_string(num_streams));
    }
    const size_t s = static_cast<size_t>(issued.stream);
    if (first[s] < 0) first[s] = static_cast<int>(i);
    last[s] = static_cast<int>(i);
    const int event = issued.command.event;
    if (issued.command.kind == CommandKind::kRecordEvent) {
      if (static_cast<size_t>(event) >= record_position.size()) {
        record_position.resize(static_cast<size_t>(event) + 1, -1);
        record_stream.resize(static_cast<size_t>(event) + 1, -1);
      }
      record_position[static_cast<size_t>(event)] = static_cast<int>(i);
      record_stream[static_cast<size_t>(event)] = issued.stream;
    } else if (issued.command.kind == CommandKind::kWaitEvent) {
      if (event < 0 || static_cast<size_t>(event) >= record_position.size() ||
          record_position[static_cast<size_t>(event)] < 0) {
        return Internal(StreamName(s) + " waits on event " + std::to_string(event) +
                        " before it is recorded (command " + std::to_string(i) + ")");
      }
    }
  }
  auto recorded_by = [&](int event) {
    return event >= 0 && static_cast<size_t>(event) < record_stream.size()
               ? record_stream[static_cast<size_t>(event)]
               : -1;
  };
  for (int s = 1; s < num_streams; ++s) {
    const size_t index = static_cast<size_t>(s);
    if (first[index] < 0) continue;  // an unused stream takes no part in the capture
    const IssuedCommand& head = order[static_cast<size_t>(first[index])];
    if (head.command.kind != CommandKind::kWaitEvent || recorded_by(head.command.event) != 0) {
      return Internal(StreamName(index) + " does not start by waiting on the origin");
    }
    const IssuedCommand& tail = order[static_cast<size_t>(last[index])];
    if (tail.command.kind != CommandKind::kRecordEvent) {
      return Internal(StreamName(index) + " does not end by recording an event");
    }
    bool joined = false;
    for (size_t i = static_cast<size_t>(last[index]) + 1; i < order.size() && !joined; ++i) {
      joined = order[i].stream == 0 && order[i].command.kind == CommandKind::kWaitEvent &&
               order[i].command.event == tail.command.event;
    }
    if (!joined) {
      return Internal(StreamName(index) +
                      "'s last event is never waited on by the origin, so "
                      "the capture would not join it");
    }
  }
  return Status::Ok();
}

}  // namespace ios
