#include "sched/blocks.h"

#include <algorithm>
#include <limits>

#include "sched/dag_width.h"

namespace ios {
namespace {

bool ReadsGraphInput(const Graph& graph, const Unit& unit) {
  for (NodeId n : unit.nodes)
    for (ValueId in : graph.nodes[n].inputs)
      if (in != kNoValue && graph.values[in].is_graph_input) return true;
  return false;
}

bool WritesGraphOutput(const Graph& graph, const Unit& unit) {
  for (ValueId out : unit.outputs)
    if (graph.values[out].is_graph_output) return true;
  return false;
}

// Width of the sub-DAG made of `units` (consecutive ids).
int WidthOf(const UnitGraph& unit_graph, const std::vector<UnitId>& units) {
  if (units.empty()) return 0;
  const UnitId first = units.front();
  std::vector<std::vector<int>> successors(units.size());
  for (size_t i = 0; i < units.size(); ++i)
    for (UnitId s : unit_graph.units[units[i]].successors)
      if (s >= first && s <= units.back()) successors[i].push_back(s - first);
  return DagWidth(successors);
}

// Number of tensors live across the cut before local position k of the block: producers
// before the cut with a reader at or after it, within the block.
std::vector<int> CutWidths(const UnitGraph& unit_graph, const std::vector<UnitId>& units) {
  const int n = static_cast<int>(units.size());
  const UnitId first = units.front();
  // last_reader[p]: the latest local position that reads producer p (which may precede the block).
  std::vector<std::pair<UnitId, int>> producers;  // (producer, latest local reader)
  for (int local = 0; local < n; ++local)
    for (UnitId p : unit_graph.units[units[local]].predecessors) producers.push_back({p, local});
  std::sort(producers.begin(), producers.end());
  std::vector<int> widths(n + 1, 0);
  for (size_t i = 0; i < producers.size(); ++i) {
    if (i + 1 < producers.size() && producers[i + 1].first == producers[i].first) continue;
    const UnitId p = producers[i].first;
    const int latest = producers[i].second;
    const int produced_at = p < first ? 0 : p - first + 1;  // cuts k in (produced_at, latest]
    for (int k = std::max(produced_at, 1); k <= latest && k < n; ++k) ++widths[k];
  }
  return widths;
}

// Splits a block into parts of at most `limit` units. It cuts at every position whose width
// (tensors live across it) is the block's smallest, as the reference cuts NasNet at every cell
// output, and splits any piece still over the limit the same way. Cutting at all the narrowest
// positions, rather than only as often as the limit demands, keeps parts small where the graph
// is wide: the DP's states grow exponentially with a part's width, so a 50-unit part of three
// NasNet cells would cost minutes where three single cells cost milliseconds.
void SplitRange(const UnitGraph& unit_graph, const std::vector<UnitId>& units, int limit,
                std::vector<BlockPart>* parts) {
  const int n = static_cast<int>(units.size());
  if (n <= limit) {
    parts->push_back(BlockPart{units, WidthOf(unit_graph, units)});
    return;
  }
  std::vector<int> widths = CutWidths(unit_graph, units);
  int narrowest = std::numeric_limits<int>::max();
  for (int k = 1; k < n; ++k) narrowest = std::min(narrowest, widths[k]);
  int start = 0;
  for (int k = 1; k <= n; ++k) {
    if (k < n && widths[k] != narrowest) continue;
    std::vector<UnitId> piece(units.begin() + start, units.begin() + k);
    if (static_cast<int>(piece.size()) < n) {
      SplitRange(unit_graph, piece, limit, parts);
    } else {
      // No narrower position inside: fall back to fixed-size pieces.
      for (int i = 0; i < n; i += limit) {
        std::vector<UnitId> chunk(units.begin() + i, units.begin() + std::min(n, i + limit));
        parts->push_back(BlockPart{chunk, WidthOf(unit_graph, chunk)});
      }
    }
    start = k;
  }
}

std::vector<BlockPart> SplitIntoParts(const UnitGraph& unit_graph, const std::vector<UnitId>& units,
                                      int limit) {
  std::vector<BlockPart> parts;
  if (limit <= 0) {
    parts.push_back(BlockPart{units, WidthOf(unit_graph, units)});
    return parts;
  }
  SplitRange(unit_graph, units, limit, &parts);
  // A one-unit piece (a cell's output concat, typically) joins the part before it when that
  // fits: a part of its own would keep it from overlapping with anything.
  std::vector<BlockPart> merged;
  for (BlockPart& part : parts) {
    if (part.units.size() == 1 && !merged.empty() &&
        static_cast<int>(merged.back().units.size()) < limit) {
      merged.back().units.push_back(part.units[0]);
      merged.back().width = WidthOf(unit_graph, merged.back().units);
      continue;
    }
    merged.push_back(std::move(part));
  }
  return merged;
}

// Groups the base units into blocks (see blocks.h). `cuts` are the cut units in order.
// Consecutive cut units form runs; in a run that follows a block, everything up to the run's
// last aggregation belongs to that block (the aggregation is its exit) and the rest is a chain.
std::vector<Block> GroupIntoBlocks(const UnitGraph& units, const std::vector<UnitId>& cuts) {
  std::vector<Block> blocks;
  size_t c = 0;
  UnitId next = 0;  // first unit not yet placed
  while (c < cuts.size()) {
    // The segment up to this cut; when it is more than the cut itself it is a block of its own.
    const UnitId cut = cuts[c];
    if (cut > next || blocks.empty()) {
      Block block;
      for (UnitId u = next; u <= cut; ++u) block.units.push_back(u);
      blocks.push_back(std::move(block));
      next = cut + 1;
      ++c;
    }
    // The run of single-unit segments that follows.
    std::vector<UnitId> run;
    while (c < cuts.size() && cuts[c] == next) {
      run.push_back(next++);
      ++c;
    }
    if (run.empty()) continue;
    size_t exit_end = 0;  // run[0, exit_end) joins the previous block
    for (size_t i = 0; i < run.size(); ++i)
      if (units.units[run[i]].kind == UnitKind::kAggregation) exit_end = i + 1;
    if (blocks.size() == 1 && blocks[0].units.size() == 1 && blocks[0].units[0] == 0 &&
        units.units[0].kind != UnitKind::kAggregation) {
      // The graph starts with a chain: the first "block" is its head.
      blocks[0].chain = true;
    }
    Block& previous = blocks.back();
    if (previous.chain) exit_end = 0;  // a chain has no branches for an aggregation to join
    previous.units.insert(previous.units.end(), run.begin(), run.begin() + exit_end);
    if (exit_end == run.size()) continue;
    if (previous.chain) {
      previous.units.insert(previous.units.end(), run.begin() + exit_end, run.end());
      continue;
    }
    Block chain;
    chain.chain = true;
    chain.units.assign(run.begin() + exit_end, run.end());
    blocks.push_back(std::move(chain));
  }
  return blocks;
}

}  // namespace

std::vector<UnitId> FindCutUnits(const Graph& graph, const UnitGraph& unit_graph) {
  // A unit is a cut when no edge jumps over it in the topological order, counting edges from a
  // virtual source (position 0) to every unit that reads a graph input or has no producer, and
  // edges to a virtual sink (position n + 1) from every unit that writes a graph output or has
  // no reader. Unit i sits at position i + 1.
  const int n = static_cast<int>(unit_graph.units.size());
  std::vector<int> diff(n + 3, 0);
  auto jump = [&](int from, int to) {  // positions strictly between from and to are crossed
    if (to - from < 2) return;
    diff[from + 1] += 1;
    diff[to] -= 1;
  };
  for (const Unit& unit : unit_graph.units) {
    const int pos = unit.id + 1;
    if (unit.predecessors.empty() || ReadsGraphInput(graph, unit)) jump(0, pos);
    if (unit.successors.empty() || WritesGraphOutput(graph, unit)) jump(pos, n + 1);
    for (UnitId s : unit.successors) jump(pos, s + 1);
  }
  std::vector<UnitId> cuts;
  int running = 0;
  for (int pos = 1; pos <= n; ++pos) {
    running += diff[pos];
    if (running == 0) cuts.push_back(pos - 1);
  }
  return cuts;
}

StatusOr<BlockStructure> PartitionIntoBlocks(const Graph& graph, const BlockOptions& options) {
  // 1. Units without aggregation folding, and the blocks they fall into.
  UnitOptions base_options;
  base_options.fold_aggregations = false;
  IOS_ASSIGN_OR_RETURN(UnitGraph base, FormUnits(graph, base_options));
  if (base.units.empty()) return InvalidInput(graph.source_path + ": the graph has no ops");
  std::vector<UnitId> cuts = FindCutUnits(graph, base);
  // With several outputs the last unit need not be a cut; the units after the last cut still
  // form a block.
  const UnitId last = static_cast<UnitId>(base.units.size()) - 1;
  if (cuts.empty() || cuts.back() != last) cuts.push_back(last);
  std::vector<Block> base_blocks = GroupIntoBlocks(base, cuts);

  // 2. The final units: aggregations fold only within their block, and chain blocks keep
  // every op as a unit of its own.
  UnitOptions final_options;
  final_options.node_region.assign(graph.nodes.size(), -1);
  for (size_t b = 0; b < base_blocks.size(); ++b) {
    for (UnitId u : base_blocks[b].units) {
      for (NodeId n : base.units[u].nodes) {
        final_options.node_region[n] = static_cast<int>(b);
        if (base_blocks[b].chain) final_options.single_op_nodes.insert(n);
      }
    }
  }
  BlockStructure result;
  IOS_ASSIGN_OR_RETURN(result.unit_graph, FormUnits(graph, final_options));
  result.blocks.resize(base_blocks.size());
  for (const Unit& unit : result.unit_graph.units) {
    int region = final_options.node_region[unit.nodes.front()];
    result.blocks[region].units.push_back(unit.id);
  }
  for (size_t b = 0; b < result.blocks.size(); ++b) {
    Block& block = result.blocks[b];
    block.chain = base_blocks[b].chain;
    for (size_t i = 1; i < block.units.size(); ++i) {
      if (block.units[i] != block.units[i - 1] + 1)
        return Internal(graph.source_path + ": block " + std::to_string(b) +
                        " is not contiguous in the unit order");
    }
    block.width = WidthOf(result.unit_graph, block.units);
    block.parts = SplitIntoParts(result.unit_graph, block.units, options.part_limit);
  }
  return result;
}

}  // namespace ios
