#include "sched/block_report.h"

#include <algorithm>
#include <sstream>


#include "blocks.pb.h"
#include "util/json_print.h"

namespace ios {

std::string FormatBlockSummary(const BlockStructure& blocks) {
  std::ostringstream out;
  size_t largest = 0;
  for (const Block& block : blocks.blocks) largest = std::max(largest, block.units.size());
  out << blocks.blocks.size() << " blocks, " << blocks.unit_graph.units.size() << " units\n";
  out << "block  units  width  parts  part sizes (units/width)\n";
  for (size_t b = 0; b < blocks.blocks.size(); ++b) {
    const Block& block = blocks.blocks[b];
    char line[64];
    std::snprintf(line, sizeof(line), "%5zu  %5zu  %5d  %5zu  ", b, block.units.size(), block.width,
                  block.parts.size());
    out << line;
    for (size_t p = 0; p < block.parts.size(); ++p)
      out << (p ? " " : "") << block.parts[p].units.size() << "/" << block.parts[p].width;
    out << (block.chain ? "  (chain)" : "") << "\n";
  }
  return out.str();
}

StatusOr<std::string> BlocksToJson(const Graph& graph, const BlockStructure& blocks,
                                   const std::string& model, int64_t batch, int part_limit) {
  proto::BlocksDump dump;
  dump.set_model(model);
  dump.set_batch(static_cast<int32_t>(batch));
  dump.set_total_units(static_cast<int32_t>(blocks.unit_graph.units.size()));
  dump.set_part_limit(part_limit);
  for (const Block& block : blocks.blocks) {
    proto::BlockDump* b = dump.add_blocks();
    b->set_units(static_cast<int32_t>(block.units.size()));
    b->set_width(block.width);
    for (const BlockPart& part : block.parts) {
      proto::PartDump* p = b->add_parts();
      p->set_units(static_cast<int32_t>(part.units.size()));
      p->set_width(part.width);
      for (UnitId u : part.units) p->add_unit_ids(u);
    }
    for (UnitId u : block.units) {
      const Unit& unit = blocks.unit_graph.units[u];
      proto::UnitDump* d = b->add_unit_list();
      d->set_id(unit.id);
      d->set_kind(UnitKindName(unit.kind));
      for (NodeId n : unit.nodes) {
        d->add_nodes(graph.nodes[n].name);
        d->add_op_types(graph.nodes[n].op_type);
      }
      for (UnitId s : unit.successors) d->add_successors(s);
      d->set_flops(unit.flops);
      d->set_bytes(unit.bytes);
    }
  }
  return MessageToJson(dump);
}

}  // namespace ios
