#include "runtime/run_profile.h"

#include <google/protobuf/struct.pb.h>

#include <algorithm>
#include <cstdio>
#include <limits>

#include "ops/op_registry.h"
#include "util/json_print.h"

namespace ios {
namespace {

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace

StatusOr<RunProfile> ProfileRuns(const Graph& graph, const Schedule& schedule,
                                 const std::vector<RunTrace>& runs,
                                 const std::vector<double>& stage_predicted_ms,
                                 const std::vector<KernelPath>& kernel_paths) {
  if (runs.empty()) return InvalidInput("no traced run to profile");
  const std::vector<OpPlace> places = PlaceOps(graph, schedule);
  std::vector<std::pair<int, int>> stages;
  for (size_t b = 0; b < schedule.blocks.size(); ++b)
    for (size_t s = 0; s < schedule.blocks[b].stages.size(); ++s)
      stages.push_back({static_cast<int>(b), static_cast<int>(s)});

  std::vector<std::vector<double>> op_ms(graph.nodes.size());
  std::vector<std::vector<double>> stage_ms(stages.size());
  // The sums are taken per run, then their median: on a loaded machine each run is slowed in
  // different ops, so summed per-op medians would undercount the median run.
  std::vector<double> run_ms, run_op_sum, run_stage_sum;
  for (const RunTrace& run : runs) {
    run_ms.push_back(Ms(run.end_ns - run.begin_ns));
    double op_sum = 0;
    std::vector<int64_t> begin(stages.size(), std::numeric_limits<int64_t>::max());
    std::vector<int64_t> end(stages.size(), std::numeric_limits<int64_t>::min());
    for (const std::vector<TraceSpan>& stream : run.streams) {
      for (const TraceSpan& span : stream) {
        if (span.kind != CommandKind::kRunOp || span.op < 0 ||
            span.op >= static_cast<NodeId>(graph.nodes.size()))
          continue;
        op_ms[span.op].push_back(Ms(span.end_ns - span.begin_ns));
        op_sum += Ms(span.end_ns - span.begin_ns);
        const int g = places[span.op].global_stage;
        if (g < 0) continue;
        begin[g] = std::min(begin[g], span.begin_ns);
        end[g] = std::max(end[g], span.end_ns);
      }
    }
    double stage_sum = 0;
    for (size_t g = 0; g < stages.size(); ++g) {
      stage_ms[g].push_back(begin[g] <= end[g] ? Ms(end[g] - begin[g]) : 0.0);
      stage_sum += stage_ms[g].back();
    }
    run_op_sum.push_back(op_sum);
    run_stage_sum.push_back(stage_sum);
  }

  RunProfile profile;
  profile.runs = static_cast<int>(runs.size());
  profile.run_ms = Median(run_ms);
  profile.op_ms_sum = Median(run_op_sum);
  profile.stage_ms_sum = Median(run_stage_sum);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (op_ms[n].empty()) continue;
    OpProfile op;
    op.op = static_cast<NodeId>(n);
    op.place = places[n];
    if (n < kernel_paths.size()) op.path = kernel_paths[n];
    op.ms = Median(op_ms[n]);
    const OpCost cost = NodeCost(graph, op.op);
    op.flops = cost.flops;
    op.bytes = cost.bytes_moved;
    profile.ops.push_back(op);
  }
  double medians_summed = 0;
  for (const OpProfile& op : profile.ops) medians_summed += op.ms;
  for (OpProfile& op : profile.ops) op.share = medians_summed > 0 ? op.ms / medians_summed : 0;
  std::sort(profile.ops.begin(), profile.ops.end(),
            [](const OpProfile& a, const OpProfile& b) { return a.ms > b.ms; });
  for (size_t g = 0; g < stages.size(); ++g) {
    StageProfile stage;
    stage.block = stages[g].first;
    stage.stage = stages[g].second;
    const ScheduleStage& scheduled = schedule.blocks[stage.block].stages[stage.stage];
    stage.groups = static_cast<int>(scheduled.groups.size());
    for (const ScheduleGroup& group : scheduled.groups)
      stage.ops += static_cast<int>(group.nodes.size());
    stage.ms = Median(stage_ms[g]);
    if (g < stage_predicted_ms.size()) stage.predicted_ms = stage_predicted_ms[g];
    profile.stages.push_back(stage);
  }
  return profile;
}

namespace {

// The op type, tagged with a slow path: "Tile [ref]".
std::string TypeWithPath(const Node& node, KernelPath path) {
  if (path == KernelPath::kOwnKernel) return node.op_type;
  return node.op_type + " [" + KernelPathTag(path) + "]";
}

}  // namespace

std::string FormatProfile(const Graph& graph, const RunProfile& profile, int top_ops) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof(line),
                "profile: %d traced run(s), medians: run %.3f ms; ops %.3f ms summed per run, "
                "stages %.3f ms summed per run (the rest is dispatch and waits between stages)\n",
                profile.runs, profile.run_ms, profile.op_ms_sum, profile.stage_ms_sum);
  out += line;
  out += "\nslowest ops (median ms, share of the op medians summed):\n";
  std::snprintf(line, sizeof(line), "  %-36s %-18s %6s %9s %6s %9s %9s %9s\n", "op", "type",
                "stage", "ms", "share", "MFLOP", "GFLOP/s", "MB");
  out += line;
  const int shown = std::min<int>(top_ops, static_cast<int>(profile.ops.size()));
  for (int i = 0; i < shown; ++i) {
    const OpProfile& op = profile.ops[i];
    const Node& node = graph.nodes[op.op];
    const std::string stage = std::to_string(op.place.block) + "." + std::to_string(op.place.stage);
    const double share = 100.0 * op.share;
    const double gflops = op.ms > 0 ? op.flops / (op.ms * 1e6) : 0;
    std::snprintf(line, sizeof(line), "  %-36.36s %-18.18s %6s %9.4f %5.1f%% %9.2f %9.2f %9.3f\n",
                  node.name.c_str(), TypeWithPath(node, op.path).c_str(), stage.c_str(), op.ms,
                  share, op.flops / 1e6, gflops, op.bytes / 1e6);
    out += line;
  }
  if (shown < static_cast<int>(profile.ops.size()))
    out += "  ... " + std::to_string(profile.ops.size() - shown) + " more (--export-profile)\n";
  // Every op on a slow path, however fast it ran.
  int slow = 0;
  double slow_share = 0;
  for (const OpProfile& op : profile.ops) {
    if (op.path == KernelPath::kOwnKernel) continue;
    ++slow;
    slow_share += op.share;
  }
  if (slow > 0) {
    std::snprintf(line, sizeof(line),
                  "\nslow paths: %d op(s) not on the backend's own kernels, %.1f%% of the op "
                  "time:\n",
                  slow, 100.0 * slow_share);
    out += line;
    for (const OpProfile& op : profile.ops) {
      if (op.path == KernelPath::kOwnKernel) continue;
      const Node& node = graph.nodes[op.op];
      std::snprintf(line, sizeof(line), "  %-36.36s %-18.18s %-16s %9.4f ms %5.1f%%\n",
                    node.name.c_str(), node.op_type.c_str(), KernelPathName(op.path), op.ms,
                    100.0 * op.share);
      out += line;
    }
  }
  out += "\nstages (median ms measured, against the plan's prediction):\n";
  std::snprintf(line, sizeof(line), "  %-8s %6s %4s %10s %10s %9s\n", "stage", "groups", "ops",
                "measured", "predicted", "ratio");
  out += line;
  for (const StageProfile& stage : profile.stages) {
    const std::string name = std::to_string(stage.block) + "." + std::to_string(stage.stage);
    if (stage.predicted_ms > 0) {
      std::snprintf(line, sizeof(line), "  %-8s %6d %4d %10.4f %10.4f %8.2fx\n", name.c_str(),
                    stage.groups, stage.ops, stage.ms, stage.predicted_ms,
                    stage.ms / stage.predicted_ms);
    } else {
      std::snprintf(line, sizeof(line), "  %-8s %6d %4d %10.4f %10s %9s\n", name.c_str(),
                    stage.groups, stage.ops, stage.ms, "-", "-");
    }
    out += line;
  }
  return out;
}

StatusOr<std::string> ProfileJson(const Graph& graph, const RunProfile& profile) {
  using google::protobuf::Struct;
  auto set = [](Struct* s, const std::string& key) -> google::protobuf::Value& {
    return (*s->mutable_fields())[key];
  };
  Struct root;
  set(&root, "runs").set_number_value(profile.runs);
  set(&root, "run_ms").set_number_value(profile.run_ms);
  set(&root, "op_ms_sum").set_number_value(profile.op_ms_sum);
  set(&root, "stage_ms_sum").set_number_value(profile.stage_ms_sum);
  auto* ops = set(&root, "ops").mutable_list_value();
  for (const OpProfile& op : profile.ops) {
    Struct* entry = ops->add_values()->mutable_struct_value();
    const Node& node = graph.nodes[op.op];
    set(entry, "op").set_number_value(op.op);
    set(entry, "name").set_string_value(node.name);
    set(entry, "op_type").set_string_value(node.op_type);
    set(entry, "block").set_number_value(op.place.block);
    set(entry, "stage").set_number_value(op.place.stage);
    set(entry, "group").set_number_value(op.place.group);
    set(entry, "ms").set_number_value(op.ms);
    set(entry, "share").set_number_value(op.share);
    set(entry, "flops").set_number_value(op.flops);
    set(entry, "gflops_per_s").set_number_value(op.ms > 0 ? op.flops / (op.ms * 1e6) : 0);
    set(entry, "bytes").set_number_value(op.bytes);
    set(entry, "kernel").set_string_value(KernelPathName(op.path));
    // The value names, so that a reader can rebuild the graph (critical paths, bounds).
    for (const auto& [key, ids] : {std::pair<const char*, const std::vector<ValueId>*>{
                                       "inputs", &node.inputs},
                                   {"outputs", &node.outputs}}) {
      auto* names = set(entry, key).mutable_list_value();
      for (ValueId id : *ids)
        if (id != kNoValue) names->add_values()->set_string_value(graph.values[id].name);
    }
  }
  auto* stages = set(&root, "stages").mutable_list_value();
  for (const StageProfile& stage : profile.stages) {
    Struct* entry = stages->add_values()->mutable_struct_value();
    set(entry, "block").set_number_value(stage.block);
    set(entry, "stage").set_number_value(stage.stage);
    set(entry, "groups").set_number_value(stage.groups);
    set(entry, "ops").set_number_value(stage.ops);
    set(entry, "ms").set_number_value(stage.ms);
    if (stage.predicted_ms > 0) set(entry, "predicted_ms").set_number_value(stage.predicted_ms);
  }
  return MessageToJson(root);
}

}  // namespace ios
