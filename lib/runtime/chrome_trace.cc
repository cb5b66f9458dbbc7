#include "runtime/chrome_trace.h"

#include <google/protobuf/struct.pb.h>

#include <algorithm>
#include <limits>
#include <sstream>

#include "util/json_print.h"

namespace ios {
namespace {

using google::protobuf::Struct;

constexpr int kPid = 1;
// Tracks after the streams': the stages of each run.
constexpr int kStagesTid = 1000;

void Set(Struct* s, const std::string& key, double number) {
  (*s->mutable_fields())[key].set_number_value(number);
}
void Set(Struct* s, const std::string& key, const std::string& text) {
  (*s->mutable_fields())[key].set_string_value(text);
}
Struct* SetStruct(Struct* s, const std::string& key) {
  return (*s->mutable_fields())[key].mutable_struct_value();
}

std::string Shapes(const Graph& graph, const std::vector<ValueId>& values) {
  std::ostringstream out;
  bool first = true;
  for (ValueId v : values) {
    if (v == kNoValue) continue;
    out << (first ? "" : " ") << DimsToString(graph.values[v].dims);
    first = false;
  }
  return out.str();
}

class TraceBuilder {
 public:
  explicit TraceBuilder(int64_t origin_ns) : origin_ns_(origin_ns) {}

  Struct* Add(const std::string& name, const std::string& phase, int tid) {
    google::protobuf::Value* value = events_.add_values();
    Struct* event = value->mutable_struct_value();
    Set(event, "name", name);
    Set(event, "ph", phase);
    Set(event, "pid", kPid);
    Set(event, "tid", tid);
    return event;
  }
  Struct* Span(const std::string& name, const std::string& category, int tid, int64_t begin_ns,
               int64_t end_ns) {
    Struct* event = Add(name, "X", tid);
    Set(event, "cat", category);
    Set(event, "ts", Micros(begin_ns));
    Set(event, "dur", static_cast<double>(std::max<int64_t>(0, end_ns - begin_ns)) / 1000.0);
    return event;
  }
  double Micros(int64_t ns) const { return static_cast<double>(ns - origin_ns_) / 1000.0; }

  google::protobuf::ListValue& events() { return events_; }

 private:
  int64_t origin_ns_;
  google::protobuf::ListValue events_;
};

}  // namespace

std::vector<OpPlace> PlaceOps(const Graph& graph, const Schedule& schedule) {
  std::vector<OpPlace> places(graph.nodes.size());
  int global = 0;
  for (size_t b = 0; b < schedule.blocks.size(); ++b) {
    const ScheduleBlock& block = schedule.blocks[b];
    for (size_t s = 0; s < block.stages.size(); ++s, ++global) {
      for (size_t g = 0; g < block.stages[s].groups.size(); ++g) {
        for (NodeId n : block.stages[s].groups[g].nodes) {
          if (n < 0 || n >= static_cast<NodeId>(places.size())) continue;
          places[n] = {static_cast<int>(b), static_cast<int>(s), global, static_cast<int>(g)};
        }
      }
    }
  }
  return places;
}

StatusOr<std::string> ChromeTraceJson(const Graph& graph, const Schedule& schedule,
                                      const CommandList& commands,
                                      const std::vector<RunTrace>& runs,
                                      const ChromeTraceOptions& options) {
  if (runs.empty()) return InvalidInput("no traced run to write");
  const std::vector<OpPlace> places = PlaceOps(graph, schedule);
  int total_stages = 0;
  std::vector<std::pair<int, int>> stage_names;  // per global stage: block, stage
  for (size_t b = 0; b < schedule.blocks.size(); ++b)
    for (size_t s = 0; s < schedule.blocks[b].stages.size(); ++s, ++total_stages)
      stage_names.push_back({static_cast<int>(b), static_cast<int>(s)});

  TraceBuilder trace(runs.front().begin_ns);
  Set(SetStruct(trace.Add("process_name", "M", 0), "args"), "name", options.process_name);
  for (size_t s = 0; s < commands.streams.size(); ++s) {
    const int tid = static_cast<int>(s);
    Set(SetStruct(trace.Add("thread_name", "M", tid), "args"), "name",
        "stream " + std::to_string(s) + (s == 0 ? " (origin)" : ""));
    Set(SetStruct(trace.Add("thread_sort_index", "M", tid), "args"), "sort_index", tid);
  }
  Set(SetStruct(trace.Add("thread_name", "M", kStagesTid), "args"), "name", "stages");
  Set(SetStruct(trace.Add("thread_sort_index", "M", kStagesTid), "args"), "sort_index", -1);

  for (size_t r = 0; r < runs.size(); ++r) {
    const RunTrace& run = runs[r];
    const double iteration = static_cast<double>(r);
    std::vector<int64_t> stage_begin(total_stages, std::numeric_limits<int64_t>::max());
    std::vector<int64_t> stage_end(total_stages, std::numeric_limits<int64_t>::min());
    // Where each event was recorded, for the flows to its waits.
    std::vector<std::pair<int, int64_t>> recorded(static_cast<size_t>(commands.num_events),
                                                  {-1, 0});
    for (size_t s = 0; s < run.streams.size(); ++s) {
      for (const TraceSpan& span : run.streams[s]) {
        if (span.kind == CommandKind::kRecordEvent && span.event >= 0 &&
            span.event < commands.num_events)
          recorded[span.event] = {static_cast<int>(s), span.begin_ns};
      }
    }
    for (size_t s = 0; s < run.streams.size(); ++s) {
      const int tid = static_cast<int>(s);
      for (const TraceSpan& span : run.streams[s]) {
        switch (span.kind) {
          case CommandKind::kRunOp: {
            if (span.op < 0 || span.op >= static_cast<NodeId>(graph.nodes.size())) break;
            const Node& node = graph.nodes[span.op];
            Struct* event = trace.Span(node.name.empty() ? node.op_type : node.name, node.op_type,
                                       tid, span.begin_ns, span.end_ns);
            Struct* args = SetStruct(event, "args");
            const OpPlace& place = places[span.op];
            Set(args, "op", span.op);
            Set(args, "op_type", node.op_type);
            Set(args, "inputs", Shapes(graph, node.inputs));
            Set(args, "outputs", Shapes(graph, node.outputs));
            Set(args, "block", place.block);
            Set(args, "stage", place.stage);
            Set(args, "group", place.group);
            Set(args, "threads", span.threads);
            Set(args, "iteration", iteration);
            if (place.global_stage >= 0) {
              stage_begin[place.global_stage] =
                  std::min(stage_begin[place.global_stage], span.begin_ns);
              stage_end[place.global_stage] = std::max(stage_end[place.global_stage], span.end_ns);
            }
            break;
          }
          case CommandKind::kRecordEvent: {
            const std::string name = "event " + std::to_string(span.event);
            Struct* event = trace.Span("record " + std::to_string(span.event), "event", tid,
                                       span.begin_ns, span.end_ns);
            Set(SetStruct(event, "args"), "iteration", iteration);
            Struct* flow = trace.Add(name, "s", tid);
            Set(flow, "cat", "event");
            Set(flow, "id", iteration * commands.num_events + span.event);
            Set(flow, "ts", trace.Micros(span.begin_ns));
            break;
          }
          case CommandKind::kWaitEvent: {
            Struct* event = trace.Span("wait " + std::to_string(span.event), "wait", tid,
                                       span.begin_ns, span.end_ns);
            Struct* args = SetStruct(event, "args");
            Set(args, "event", span.event);
            Set(args, "iteration", iteration);
            if (span.event >= 0 && span.event < commands.num_events &&
                recorded[span.event].first >= 0) {
              Set(args, "recorded_on_stream", recorded[span.event].first);
              Struct* flow = trace.Add("event " + std::to_string(span.event), "f", tid);
              Set(flow, "cat", "event");
              Set(flow, "bp", "e");
              Set(flow, "id", iteration * commands.num_events + span.event);
              Set(flow, "ts", trace.Micros(span.end_ns));
            }
            break;
          }
        }
      }
    }
    Struct* whole =
        trace.Span("run " + std::to_string(r), "run", kStagesTid, run.begin_ns, run.end_ns);
    Set(SetStruct(whole, "args"), "iteration", iteration);
    for (int g = 0; g < total_stages; ++g) {
      if (stage_begin[g] > stage_end[g]) continue;  // a stage of view-only ops
      const std::string name = "block " + std::to_string(stage_names[g].first) + " stage " +
                               std::to_string(stage_names[g].second);
      Struct* stage = trace.Span(name, "stage", kStagesTid, stage_begin[g], stage_end[g]);
      Struct* args = SetStruct(stage, "args");
      Set(args, "iteration", iteration);
      Set(args, "groups",
          static_cast<double>(
              schedule.blocks[stage_names[g].first].stages[stage_names[g].second].groups.size()));
      if (g < static_cast<int>(options.stage_predicted_ms.size()))
        Set(args, "predicted_ms", options.stage_predicted_ms[g]);
      Struct* boundary = trace.Add(name, "i", kStagesTid);
      Set(boundary, "cat", "stage");
      Set(boundary, "s", "g");
      Set(boundary, "ts", trace.Micros(stage_begin[g]));
    }
  }
  Struct file;
  *(*file.mutable_fields())["traceEvents"].mutable_list_value() = std::move(trace.events());
  Set(&file, "displayTimeUnit", "ms");
  return MessageToJson(file);
}

}  // namespace ios
