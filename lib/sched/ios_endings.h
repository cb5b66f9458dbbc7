// Private to the IOS scheduler (ios_scheduler.cc, ios_dp.cc): a block part as a DAG of at most 64
// units addressed by bit, and the enumerations its dynamic program runs on.
//
// Local unit i is bit i of a uint64 mask; local indices follow the part's topological order, so
// every edge goes from a lower to a higher bit. A state S of the DP is the set of units not yet
// scheduled; every state is a down-set (closed under predecessors), because an ending (below) is
// closed under successors within its state. Conversely every down-set is reachable (remove its
// complement one sink at a time), so the states of a part are exactly its down-sets, the empty
// set included (the paper's Figure 5 counts six states for a -> b, c).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sched/ios_scheduler.h"
#include "sched/units.h"
#include "util/status.h"

namespace ios {

constexpr int kMaxPartUnits = 64;

inline uint64_t Bit(int i) { return uint64_t{1} << i; }
inline int LowestBit(uint64_t mask) { return __builtin_ctzll(mask); }
inline int PopCount(uint64_t mask) { return __builtin_popcountll(mask); }

struct PartDag {
  int n = 0;
  uint64_t all = 0;
  std::vector<UnitId> unit_of_bit;  // local index -> UnitId
  std::vector<uint64_t> succ;       // direct successors within the part
  std::vector<uint64_t> pred;       // direct predecessors within the part
  std::vector<uint64_t> adj;        // succ | pred
  std::vector<uint64_t> desc;       // all descendants within the part (the unit excluded)
  std::vector<uint64_t> anc;        // all ancestors within the part (the unit excluded)
};

// `units` must be in topological order (edges from earlier to later units) and at most 64 long;
// edges to units outside the list are ignored (earlier parts run before, later ones after).
StatusOr<PartDag> BuildPartDag(const UnitGraph& graph, const std::vector<UnitId>& units);

// The connected components of `mask` (undirected edges inside it), ordered by lowest bit, into
// `out` (room for 64) without allocating; returns their number.
int ComponentsInto(const PartDag& dag, uint64_t mask, uint64_t* out);

// Return false to stop an enumeration.
using MaskCallback = std::function<bool(uint64_t)>;

// Every down-set of the part, the empty one included, each once. Returns false if stopped.
bool ForEachDownSet(const PartDag& dag, const MaskCallback& emit);

// The endings of a state under pruning (r = max units per group, s = max groups; 0 = no limit).
//
// kPaper: every non-empty S' ⊆ S closed under successors within S whose components (groups)
// number at most s and have at most r units each. Depth-first growth from the empty set: a unit
// is a candidate once all its successors in S are in S' (so S' stays closed at every step);
// candidates are tried in bit order, and a candidate passed over is forbidden for the rest of
// that branch, so each S' is generated exactly once (each tree node is a distinct S'). Adding a
// unit only grows and merges components, so a branch is cut as soon as the merged component
// exceeds r. While S' has more than s components the branch continues only if a lower bound on
// the final count is at most s: components that can no longer grow (r reached, or no
// predecessor that may still be added) stay as they are, and the others can at best merge per
// connected region of (growable components + units that may still be added).
//
// kReference: the reference implementation's endings: groups G(u) = u plus its descendants in
// S, for a set of roots u whose groups are pairwise disjoint (two sets closed under successors
// that touch by an edge also overlap, so disjoint implies unconnected). Candidate roots are those
// with |G(u)| <= r; sets of disjoint candidates are enumerated in index order, at most s.
class EndingEnumerator {
 public:
  EndingEnumerator(const PartDag& dag, Endings kind, int max_group_units, int max_groups);

  // Calls `emit` once per ending of `state` (a down-set). Returns false if `emit` stopped it.
  bool ForEach(uint64_t state, const MaskCallback& emit);

 private:
  bool PaperVisit(int depth, uint64_t ending, uint64_t avail, uint64_t forbidden, uint64_t blocked,
                  int num_components);
  int PaperLowerBound(const uint64_t* components, const uint8_t* sizes, int num_components,
                      uint64_t ending, uint64_t blocked) const;
  bool ReferenceVisit(int start, uint64_t ending, int num_groups);

  const PartDag& dag_;
  Endings kind_;
  int r_;
  int s_;
  uint64_t state_ = 0;
  const MaskCallback* emit_ = nullptr;
  // kPaper, per recursion depth: up to 64 components, their masks and sizes.
  std::vector<uint64_t> components_;
  std::vector<uint8_t> sizes_;
  std::vector<uint64_t> roots_;  // kReference: candidate groups G(u) of the state
};

}  // namespace ios
