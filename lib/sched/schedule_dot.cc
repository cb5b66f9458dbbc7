#include "sched/schedule_dot.h"

#include <cstdio>
#include <sstream>
#include <vector>

#include "ops/op_registry.h"
#include "util/file_util.h"
#include "util/graphviz.h"

namespace ios {
namespace {

// DOT string literal contents: quotes and backslashes escaped, newlines as \n.
std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string Ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof(text), ms < 0.1 ? "%.4f ms" : "%.3f ms", ms);
  return text;
}

std::string OpLabel(const Node& node) {
  return (node.name.empty() ? node.op_type : node.name) + "\n" + node.op_type;
}

bool IsChainStage(const ScheduleStage& stage) {
  return stage.strategy == StageStrategy::kConcurrent && stage.groups.size() == 1 &&
         stage.groups[0].nodes.size() == 1;
}

// The first and the last op node of every group of a drawn stage.
struct Ends {
  std::vector<std::string> first;
  std::vector<std::string> last;
};

class DotWriter {
 public:
  DotWriter(const Graph& graph, const ScheduleDotOptions& options)
      : graph_(graph), options_(options) {}

  std::ostringstream& out() { return out_; }

  // Draws block `b`, whose first stage has global index `first_stage`.
  void Block(int b, const ScheduleBlock& block, int first_stage) {
    double block_ms = 0;
    bool predicted = true;
    for (size_t s = 0; s < block.stages.size(); ++s) {
      const int g = first_stage + static_cast<int>(s);
      if (g < static_cast<int>(options_.stage_predicted_ms.size()))
        block_ms += options_.stage_predicted_ms[g];
      else
        predicted = false;
    }
    out_ << "  subgraph cluster_b" << b << " {\n    label=\"block " << b << ": "
         << block.stages.size() << " stages" << (predicted ? ", " + Ms(block_ms) : std::string())
         << "\"; fontsize=14; style=rounded; color=\"#666666\";\n";
    Ends previous;
    size_t s = 0;
    while (s < block.stages.size()) {
      // A run of one-op stages longer than the threshold folds into one box.
      size_t run = 0;
      while (s + run < block.stages.size() && IsChainStage(block.stages[s + run])) ++run;
      Ends ends;
      if (run > static_cast<size_t>(options_.fold_chains_longer_than)) {
        const std::string id = FoldedChain(b, block, s, run, first_stage);
        ends = {{id}, {id}};
        s += run;
      } else {
        ends = Stage(b, static_cast<int>(s), block.stages[s], first_stage + static_cast<int>(s));
        ++s;
      }
      // Invisible edges from every group's last op to the next stage's first ops stack the
      // stages from top to bottom.
      for (const std::string& from : previous.last)
        for (const std::string& to : ends.first)
          out_ << "    " << from << " -> " << to << " [style=invis];\n";
      previous = ends;
    }
    out_ << "  }\n";
  }

 private:
  double PredictedMs(int global_stage) const {
    return global_stage < static_cast<int>(options_.stage_predicted_ms.size())
               ? options_.stage_predicted_ms[global_stage]
               : -1;
  }

  std::string NodeId(::ios::NodeId n) { return "op" + std::to_string(n); }

  // Draws one stage; returns its groups' first and last op nodes.
  Ends Stage(int b, int s, const ScheduleStage& stage, int global_stage) {
    const bool merged = stage.strategy == StageStrategy::kMerge;
    // The critical group: the most FLOPs (ties: the most ops).
    size_t critical = 0;
    double most = -1;
    for (size_t g = 0; g < stage.groups.size(); ++g) {
      double flops = 0;
      for (::ios::NodeId n : stage.groups[g].nodes) flops += NodeCost(graph_, n).flops;
      flops += 1e-9 * static_cast<double>(stage.groups[g].nodes.size());
      if (flops > most) {
        most = flops;
        critical = g;
      }
    }
    const double predicted = PredictedMs(global_stage);
    out_ << "    subgraph cluster_b" << b << "_s" << s << " {\n      label=\"stage " << s
         << (merged ? " (merged)" : "") << (predicted >= 0 ? ": " + Ms(predicted) : std::string())
         << "\"; style=\"rounded,filled\"; fillcolor=\"" << (merged ? "#fff1e0" : "#f7f7f7")
         << "\"; color=\"#bbbbbb\";\n";
    Ends ends;
    for (size_t g = 0; g < stage.groups.size(); ++g) {
      const bool is_critical = g == critical && stage.groups.size() > 1;
      out_ << "      subgraph cluster_b" << b << "_s" << s << "_g" << g
           << " {\n        label=\"group " << g << (is_critical ? " (critical)" : "")
           << "\"; style=\"rounded" << (is_critical ? ",bold" : "") << "\"; color=\""
           << (is_critical ? "#c0392b" : "#999999") << "\"; fontsize=9;\n";
      const std::vector<::ios::NodeId>& nodes = stage.groups[g].nodes;
      if (static_cast<int>(nodes.size()) > options_.fold_chains_longer_than) {
        // A long group folds into one box listing its ops in order.
        const std::string id = "group_b" + std::to_string(b) + "_s" + std::to_string(s) + "_g" +
                               std::to_string(g);
        std::string lines = std::to_string(nodes.size()) + " ops, in order:";
        for (::ios::NodeId n : nodes) {
          const Node& node = graph_.nodes[n];
          lines += "\n" + (node.name.empty() ? node.op_type : node.name) + "  (" + node.op_type +
                   (merged && node.op_type == "Conv" ? ", merged" : "") + ")";
        }
        out_ << "        " << id << " [shape=note, fillcolor=\"#eaf2f8\", label=\"" << Escape(lines)
             << "\"];\n      }\n";
        ends.first.push_back(id);
        ends.last.push_back(id);
        continue;
      }
      std::string previous;
      for (::ios::NodeId n : nodes) {
        const Node& node = graph_.nodes[n];
        const bool merged_conv = merged && node.op_type == "Conv";
        out_ << "        " << NodeId(n) << " [label=\"" << Escape(OpLabel(node)) << "\""
             << (merged_conv ? ", fillcolor=\"#f5b041\", penwidth=2" : "") << "];\n";
        if (!previous.empty()) out_ << "        " << previous << " -> " << NodeId(n) << ";\n";
        if (previous.empty()) ends.first.push_back(NodeId(n));
        previous = NodeId(n);
      }
      if (!previous.empty()) ends.last.push_back(previous);
      out_ << "      }\n";
    }
    out_ << "    }\n";
    return ends;
  }

  // Draws `count` one-op stages from stage `s` as one box listing their ops.
  std::string FoldedChain(int b, const ScheduleBlock& block, size_t s, size_t count,
                          int first_stage) {
    double ms = 0;
    bool predicted = true;
    std::string ops;
    for (size_t i = 0; i < count; ++i) {
      const ::ios::NodeId n = block.stages[s + i].groups[0].nodes[0];
      const Node& node = graph_.nodes[n];
      ops += (i ? "\n" : "") + (node.name.empty() ? node.op_type : node.name) + "  (" +
             node.op_type + ")";
      const double p = PredictedMs(first_stage + static_cast<int>(s + i));
      if (p >= 0)
        ms += p;
      else
        predicted = false;
    }
    const std::string id = "chain_b" + std::to_string(b) + "_s" + std::to_string(s);
    out_ << "    " << id << " [shape=note, fillcolor=\"#eaf2f8\", label=\""
         << Escape("stages " + std::to_string(s) + "-" + std::to_string(s + count - 1) +
                   ": a chain of " + std::to_string(count) + " ops" +
                   (predicted ? ", " + Ms(ms) : std::string()) + "\n" + ops)
         << "\"];\n";
    return id;
  }

  const Graph& graph_;
  const ScheduleDotOptions& options_;
  std::ostringstream out_;
};

}  // namespace

StatusOr<std::string> ScheduleToDot(const Graph& graph, const Schedule& schedule,
                                    const ScheduleDotOptions& options) {
  if (options.block >= static_cast<int>(schedule.blocks.size()))
    return InvalidInput("block " + std::to_string(options.block) +
                        " does not exist: the schedule has " +
                        std::to_string(schedule.blocks.size()) + " blocks (0.." +
                        std::to_string(static_cast<int>(schedule.blocks.size()) - 1) + ")");
  for (const ScheduleBlock& block : schedule.blocks)
    for (const ScheduleStage& stage : block.stages)
      for (const ScheduleGroup& group : stage.groups)
        for (NodeId n : group.nodes)
          if (n < 0 || n >= static_cast<NodeId>(graph.nodes.size()))
            return InvalidInput("the schedule names op " + std::to_string(n) +
                                ", which the graph lacks");
  DotWriter writer(graph, options);
  std::ostringstream& out = writer.out();
  out << "digraph schedule {\n"
      << "  graph [label=\""
      << Escape(options.title + (options.title.empty() ? "" : "\n") +
                "stages top to bottom; groups side by side run concurrently; "
                "bold red: the group with the most FLOPs (critical path); "
                "orange: merged convs")
      << "\", labelloc=t, fontname=\"Helvetica\", fontsize=16, newrank=true, rankdir=TB];\n"
      << "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", "
         "fontname=\"Helvetica\", fontsize=10];\n"
      << "  edge [color=\"#888888\", arrowsize=0.6];\n";
  int first_stage = 0;
  for (size_t b = 0; b < schedule.blocks.size(); ++b) {
    if (options.block < 0 || options.block == static_cast<int>(b))
      writer.Block(static_cast<int>(b), schedule.blocks[b], first_stage);
    first_stage += static_cast<int>(schedule.blocks[b].stages.size());
  }
  out << "}\n";
  return out.str();
}

Status WriteSchedulePicture(const Graph& graph, const Schedule& schedule,
                            const ScheduleDotOptions& options, const std::string& dot_path,
                            const std::string& svg_path) {
  if (dot_path.empty() && svg_path.empty()) return Status::Ok();
  IOS_ASSIGN_OR_RETURN(std::string dot, ScheduleToDot(graph, schedule, options));
  if (!dot_path.empty()) IOS_RETURN_IF_ERROR(WriteFileAtomically(dot_path, dot));
  if (!svg_path.empty()) IOS_RETURN_IF_ERROR(RenderDotToSvg(dot, svg_path));
  return Status::Ok();
}

}  // namespace ios
