// Lowering a schedule to per-stream commands, the fork/join shape check, and a readable dump.
//
// Merge-strategy stages: ApplyMergeStages (sched/merge_convs.h) turns a kMerge stage into a
// single group (the merged conv and its Split) before plans are built, so it runs on the origin
// with no events. Lowering does not look at the strategy: a kMerge stage that still had several
// groups would run them concurrently, one stream each.
#include "runtime/command_list.h"

#include <algorithm>
#include <sstream>

namespace ios {
namespace {

Command RunOp(NodeId op, int32_t threads) {
  Command command;
  command.kind = CommandKind::kRunOp;
  command.op = op;
  command.threads = threads;
  return command;
}

Command EventCommand(CommandKind kind, int32_t event) {
  Command command;
  command.kind = kind;
  command.event = event;
  return command;
}

}  // namespace

// `max_streams` 0 means no cap (as in GreedySchedule); negative values are an error.
StatusOr<CommandList> LowerToCommands(const Graph& graph, const Schedule& schedule, int max_streams,
                                      int total_threads) {
  if (max_streams < 0)
    return InvalidInput("max_streams must be >= 0 (0 = no cap), got " +
                        std::to_string(max_streams));
  if (total_threads < 1)
    return InvalidInput("total_threads must be >= 1, got " + std::to_string(total_threads));

  CommandList list;
  list.streams.resize(1);  // the origin always exists, even for an empty schedule
  std::vector<bool> seen(graph.nodes.size(), false);
  auto check_node = [&](NodeId n) -> Status {
    if (n < 0 || n >= static_cast<NodeId>(graph.nodes.size()) || graph.nodes[n].dead)
      return Internal("schedule names node " + std::to_string(n) + ", which is not live");
    if (seen[n]) return Internal("schedule runs " + graph.Describe(n) + " twice");
    seen[n] = true;
    return Status::Ok();
  };

  for (const ScheduleBlock& block : schedule.blocks) {
    for (const ScheduleStage& stage : block.stages) {
      // Strategy-independent (see the top of this file).
      std::vector<const ScheduleGroup*> groups;
      for (const ScheduleGroup& group : stage.groups) {
        if (!group.nodes.empty()) groups.push_back(&group);
      }
      if (groups.empty()) continue;
      const int k = static_cast<int>(groups.size());
      const int32_t threads = std::max(1, total_threads / k);
      const int used = max_streams == 0 ? k : std::min(k, max_streams);
      if (static_cast<int>(list.streams.size()) < used) list.streams.resize(used);

      if (used == 1) {
        for (const ScheduleGroup* group : groups) {
          for (NodeId n : group->nodes) {
            IOS_RETURN_IF_ERROR(check_node(n));
            list.streams[0].push_back(RunOp(n, threads));
          }
        }
        continue;
      }

      // Fork: one origin event that every other stream of the stage waits on first.
      const int32_t fork = list.num_events++;
      list.streams[0].push_back(EventCommand(CommandKind::kRecordEvent, fork));
      for (int s = 1; s < used; ++s)
        list.streams[s].push_back(EventCommand(CommandKind::kWaitEvent, fork));
      // Group g runs on stream g % used: groups beyond the cap share streams round-robin and
      // run one after another there, in group order.
      for (int g = 0; g < k; ++g) {
        std::vector<Command>& stream = list.streams[g % used];
        for (NodeId n : groups[g]->nodes) {
          IOS_RETURN_IF_ERROR(check_node(n));
          stream.push_back(RunOp(n, threads));
        }
      }
      // Join: every other stream records after its last op; the origin waits on all of them.
      for (int s = 1; s < used; ++s) {
        const int32_t join = list.num_events++;
        list.streams[s].push_back(EventCommand(CommandKind::kRecordEvent, join));
        list.streams[0].push_back(EventCommand(CommandKind::kWaitEvent, join));
      }
    }
  }
  return list;
}

Status CheckForkJoin(const CommandList& commands) {
  if (commands.streams.empty()) return Internal("command list has no origin stream");
  if (commands.num_events < 0) return Internal("command list has a negative event count");
  const size_t num_events = static_cast<size_t>(commands.num_events);
  // Where each event is recorded: stream, or -1.
  std::vector<int> record_stream(num_events, -1);
  std::vector<bool> origin_waits(num_events, false);
  for (size_t s = 0; s < commands.streams.size(); ++s) {
    const auto& stream = commands.streams[s];
    for (size_t i = 0; i < stream.size(); ++i) {
      const Command& c = stream[i];
      if (c.kind == CommandKind::kRunOp) continue;
      if (c.event < 0 || static_cast<size_t>(c.event) >= num_events) {
        return Internal("stream " + std::to_string(s) + " command " + std::to_string(i) +
                        " names event " + std::to_string(c.event) + ", outside [0, " +
                        std::to_string(num_events) + ")");
      }
      if (c.kind == CommandKind::kRecordEvent) {
        if (record_stream[c.event] >= 0) {
          return Internal("event " + std::to_string(c.event) + " is recorded twice (streams " +
                          std::to_string(record_stream[c.event]) + " and " + std::to_string(s) +
                          ")");
        }
        record_stream[c.event] = static_cast<int>(s);
      } else if (s == 0) {
        origin_waits[c.event] = true;
      }
    }
  }
  for (size_t s = 0; s < commands.streams.size(); ++s) {
    for (const Command& c : commands.streams[s]) {
      if (c.kind == CommandKind::kWaitEvent && record_stream[c.event] < 0) {
        return Internal("stream " + std::to_string(s) + " waits on event " +
                        std::to_string(c.event) + ", which is never recorded");
      }
    }
  }
  for (size_t s = 1; s < commands.streams.size(); ++s) {
    const auto& stream = commands.streams[s];
    if (stream.empty()) continue;
    const std::string name = "stream " + std::to_string(s);
    const Command& first = stream.front();
    if (first.kind != CommandKind::kWaitEvent || record_stream[first.event] != 0) {
      return Internal(name +
                      " does not begin with a wait on an event the origin records, so it "
                      "would not join a capture of the origin stream");
    }
    const Command& last = stream.back();
    if (last.kind != CommandKind::kRecordEvent || !origin_waits[last.event]) {
      return Internal(name +
                      " does not end with a record that the origin waits on, so its work "
                      "would not join back into the origin stream");
    }
  }
  return Status::Ok();
}

std::string DescribeCommands(const Graph& graph, const CommandList& commands) {
  std::ostringstream out;
  out << "command list: " << commands.streams.size() << " stream(s), " << commands.num_events
      << " event(s)\n";
  for (size_t s = 0; s < commands.streams.size(); ++s) {
    out << "stream " << s << (s == 0 ? " (origin)" : "") << ":\n";
    for (const Command& c : commands.streams[s]) {
      switch (c.kind) {
        case CommandKind::kRunOp:
          out << "  run ";
          if (c.op >= 0 && c.op < static_cast<NodeId>(graph.nodes.size()))
            out << graph.Describe(c.op);
          else
            out << "<invalid node " << c.op << ">";
          out << " threads=" << c.threads << "\n";
          break;
        case CommandKind::kRecordEvent:
          out << "  record e" << c.event << "\n";
          break;
        case CommandKind::kWaitEvent:
          out << "  wait e" << c.event << "\n";
          break;
      }
    }
  }
  return out.str();
}

}  // namespace ios
