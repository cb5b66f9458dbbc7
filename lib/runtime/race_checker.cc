#include "runtime/race_checker.h"

#include <algorithm>
#include <string>

namespace ios {
namespace {

std::string Where(size_t stream, size_t index) {
  return "stream " + std::to_string(stream) + " command " + std::to_string(index);
}

// Where each event is recorded, once the ids and the single-record rule are checked.
struct EventSite {
  int stream = -1;
  int index = -1;
};

StatusOr<std::vector<EventSite>> FindRecords(const CommandList& commands) {
  if (commands.num_events < 0) return Internal("command list has a negative event count");
  std::vector<EventSite> records(static_cast<size_t>(commands.num_events));
  for (size_t s = 0; s < commands.streams.size(); ++s) {
    const auto& stream = commands.streams[s];
    for (size_t i = 0; i < stream.size(); ++i) {
      const Command& c = stream[i];
      if (c.kind == CommandKind::kRunOp) continue;
      if (c.event < 0 || c.event >= commands.num_events) {
        return Internal(Where(s, i) + " names event " + std::to_string(c.event) + ", outside [0, " +
                        std::to_string(commands.num_events) + ")");
      }
      if (c.kind != CommandKind::kRecordEvent) continue;
      EventSite& site = records[c.event];
      if (site.stream >= 0) {
        return Internal("event " + std::to_string(c.event) + " is recorded twice: " +
                        Where(site.stream, site.index) + " and " + Where(s, i));
      }
      site = {static_cast<int>(s), static_cast<int>(i)};
    }
  }
  for (size_t s = 0; s < commands.streams.size(); ++s) {
    const auto& stream = commands.streams[s];
    for (size_t i = 0; i < stream.size(); ++i) {
      const Command& c = stream[i];
      if (c.kind != CommandKind::kWaitEvent) continue;
      const EventSite& site = records[c.event];
      if (site.stream < 0) {
        return Internal(Where(s, i) + " waits on event " + std::to_string(c.event) +
                        ", which no stream records");
      }
      if (site.stream == static_cast<int>(s) && site.index > static_cast<int>(i)) {
        return Internal(Where(s, i) + " waits on event " + std::to_string(c.event) +
                        ", which the same stream records later (command " +
                        std::to_string(site.index) + "): it would wait forever");
      }
    }
  }
  return records;
}

// An op command with the vector clock it runs at: clock[t] = how many commands of stream t
// happen before or at it (so clock[stream] = index + 1).
struct OpClock {
  int stream = 0;
  int index = 0;
  NodeId op = kNoNode;
  std::vector<int32_t> clock;
};

// Runs the list abstractly, in rounds: each stream advances until it reaches a wait whose event
// is not recorded yet. Stuck streams at the end mean cyclic waits.
StatusOr<std::vector<OpClock>> Simulate(const CommandList& commands) {
  IOS_ASSIGN_OR_RETURN(std::vector<EventSite> records, FindRecords(commands));
  const size_t num_streams = commands.streams.size();
  std::vector<size_t> position(num_streams, 0);
  std::vector<std::vector<int32_t>> current(num_streams, std::vector<int32_t>(num_streams, 0));
  std::vector<std::vector<int32_t>> event_clock(records.size());
  std::vector<OpClock> ops;
  bool progress = true;
  while (progress) {
    progress = false;
    for (size_t s = 0; s < num_streams; ++s) {
      const auto& stream = commands.streams[s];
      std::vector<int32_t>& clock = current[s];
      while (position[s] < stream.size()) {
        const Command& c = stream[position[s]];
        if (c.kind == CommandKind::kWaitEvent) {
          const std::vector<int32_t>& seen = event_clock[c.event];
          if (seen.empty()) break;  // not recorded yet
          for (size_t t = 0; t < num_streams; ++t) clock[t] = std::max(clock[t], seen[t]);
        }
        clock[s] = static_cast<int32_t>(position[s] + 1);
        if (c.kind == CommandKind::kRecordEvent) event_clock[c.event] = clock;
        if (c.kind == CommandKind::kRunOp)
          ops.push_back({static_cast<int>(s), static_cast<int>(position[s]), c.op, clock});
        ++position[s];
        progress = true;
      }
    }
  }
  std::string stuck;
  for (size_t s = 0; s < num_streams; ++s) {
    if (position[s] == commands.streams[s].size()) continue;
    const Command& c = commands.streams[s][position[s]];
    const EventSite& site = records[c.event];
    stuck += (stuck.empty() ? "" : "; ") + Where(s, position[s]) + " waits on event " +
             std::to_string(c.event) + " (recorded at " + Where(site.stream, site.index) + ")";
  }
  if (!stuck.empty()) return Internal("command list deadlocks, the waits form a cycle: " + stuck);
  return ops;
}

struct Access {
  ValueId value = kNoValue;
  bool write = false;
};

// Input i of node n is `inputs[i]`, output i is `outputs[i]`; `untouched` says which of them
// the op does not access (null: it accesses all).
std::vector<Access> AccessesOf(const Node& node, NodeId n, const UntouchedOperand& untouched) {
  std::vector<Access> accesses;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const ValueId v = node.inputs[i];
    if (v != kNoValue && !(untouched && untouched(n, false, i))) accesses.push_back({v, false});
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const ValueId v = node.outputs[i];
    if (v != kNoValue && !(untouched && untouched(n, true, i))) accesses.push_back({v, true});
  }
  return accesses;
}

std::string RangeText(const std::vector<ByteSpan>& ranges) {
  std::string text;
  for (const ByteSpan& range : ranges)
    text += (text.empty() ? "[" : ", [") + std::to_string(range.first) + ", " +
            std::to_string(range.second) + ")";
  return text;
}

bool Intersect(const std::vector<ByteSpan>& a, const std::vector<ByteSpan>& b) {
  for (const ByteSpan& x : a)
    for (const ByteSpan& y : b)
      if (x.first < x.second && y.first < y.second && x.first < y.second && y.first < x.second)
        return true;
  return false;
}

}  // namespace

Status CheckCommandListLiveness(const CommandList& commands) { return Simulate(commands).status(); }

Status CheckCommandListOrdering(const Graph& graph, const CommandList& commands,
                                const std::vector<std::pair<int64_t, int64_t>>& byte_ranges) {
  if (!byte_ranges.empty() && byte_ranges.size() != graph.values.size()) {
    return Internal("byte_ranges has " + std::to_string(byte_ranges.size()) +
                    " entries for a graph of " + std::to_string(graph.values.size()) + " values");
  }
  std::vector<std::vector<ByteSpan>> spans(byte_ranges.size());
  for (size_t v = 0; v < byte_ranges.size(); ++v)
    if (byte_ranges[v].first >= 0) spans[v] = {byte_ranges[v]};
  return CheckCommandListOrderingOverSpans(graph, commands, spans, nullptr);
}

Status CheckCommandListOrderingOverSpans(const Graph& graph, const CommandList& commands,
                                         const std::vector<std::vector<ByteSpan>>& byte_ranges,
                                         const UntouchedOperand& untouched) {
  if (!byte_ranges.empty() && byte_ranges.size() != graph.values.size()) {
    return Internal("byte_ranges has " + std::to_string(byte_ranges.size()) +
                    " entries for a graph of " + std::to_string(graph.values.size()) + " values");
  }
  IOS_ASSIGN_OR_RETURN(std::vector<OpClock> ops, Simulate(commands));
  std::vector<std::vector<Access>> accesses;
  accesses.reserve(ops.size());
  for (const OpClock& op : ops) {
    if (op.op < 0 || op.op >= static_cast<NodeId>(graph.nodes.size())) {
      return Internal(Where(op.stream, op.index) + " runs node " + std::to_string(op.op) +
                      ", which is not in the graph");
    }
    accesses.push_back(AccessesOf(graph.nodes[op.op], op.op, untouched));
  }
  auto intersect = [&](ValueId a, ValueId b) {
    return !byte_ranges.empty() && Intersect(byte_ranges[a], byte_ranges[b]);
  };
  auto describe_access = [&](const OpClock& op, const Access& access) {
    return graph.Describe(op.op) + " on stream " + std::to_string(op.stream) +
           (access.write ? " writes" : " reads") + " tensor '" + graph.values[access.value].name +
           "'";
  };

  for (size_t a = 0; a < ops.size(); ++a) {
    for (size_t b = a + 1; b < ops.size(); ++b) {
      const OpClock& x = ops[a];
      const OpClock& y = ops[b];
      if (x.stream == y.stream) continue;  // program order
      const bool x_before_y = y.clock[x.stream] > x.index;
      const bool y_before_x = x.clock[y.stream] > y.index;
      if (x_before_y || y_before_x) continue;
      for (const Access& p : accesses[a]) {
        for (const Access& q : accesses[b]) {
          if (!p.write && !q.write) continue;
          if (p.value == q.value) {
            return Internal("race: " + describe_access(x, p) + " and " + describe_access(y, q) +
                            ", and no event orders the two ops");
          }
          if (intersect(p.value, q.value)) {
            return Internal("race through memory reuse: " + describe_access(x, p) + " at bytes " +
                            RangeText(byte_ranges[p.value]) + " and " + describe_access(y, q) +
                            " at bytes " + RangeText(byte_ranges[q.value]) +
                            ", which overlap, and no event orders the two ops");
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace ios
