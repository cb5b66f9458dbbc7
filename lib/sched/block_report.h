// Human-readable and JSON reports of the block structure (iosc's summary and --dump-blocks).
#pragma once

#include <cstdint>
#include <string>

#include "ir/graph.h"
#include "sched/blocks.h"
#include "util/status.h"

namespace ios {

std::string FormatBlockSummary(const BlockStructure& blocks);
// JSON through protobuf's printer (proto/blocks.proto).
StatusOr<std::string> BlocksToJson(const Graph& graph, const BlockStructure& blocks,
                                   const std::string& model, int64_t batch, int part_limit);

}  // namespace ios
