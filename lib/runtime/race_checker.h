// Static checks of a CommandList: that it can always run to the end, and that it orders every
// pair of ops that touch the same memory. The order is happens-before: program order within a
// stream plus (record e -> every wait e). Each command gets a vector clock by simulating the
// list (a stream advances until it reaches a wait whose event is not recorded yet); an op A
// happens before an op B on another stream iff B's clock has seen A's position on A's stream.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "runtime/command_list.h"
#include "util/status.h"

namespace ios {

// Every event id is in [0, num_events) and recorded at most once, every waited event is
// recorded, and no interleaving can get stuck: no stream waits on an event that it records
// itself later, and no set of streams waits on each other in a cycle. Needs no graph; the
// executor runs it before every run so that a bad list is an error, never a hang.
Status CheckCommandListLiveness(const CommandList& commands);

// CheckCommandListLiveness, then: every two op commands on different streams that conflict are
// ordered by happens-before. Two ops conflict when one writes (outputs) a value the other reads
// (inputs) or writes, or when, through memory reuse, the byte ranges of a tensor of each
// intersect and at least one of the two accesses is a write. `byte_ranges` is indexed by ValueId:
// [offset, offset + bytes) in the arena, or {-1, -1} for values that are not in the arena
// (constants); it may be empty (no memory plan: only same-value conflicts are checked).
// The error names both ops, their streams and the tensor(s).
Status CheckCommandListOrdering(const Graph& graph, const CommandList& commands,
                                const std::vector<std::pair<int64_t, int64_t>>& byte_ranges);
// The same with any number of [begin, end) ranges per value (a strided view's one per batch
// item; an empty list: not in the arena), and the operands that an op does not access
// (`untouched(node, is_output, index)`, or null): a Split's outputs that are views of its input
// are read by their readers straight from the input's bytes, and the Split writes nothing.
using ByteSpan = std::pair<int64_t, int64_t>;
using UntouchedOperand = std::function<bool(NodeId node, bool is_output, size_t index)>;
Status CheckCommandListOrderingOverSpans(const Graph& graph, const CommandList& commands,
                                         const std::vector<std::vector<ByteSpan>>& byte_ranges,
                                         const UntouchedOperand& untouched);

}  // namespace ios
