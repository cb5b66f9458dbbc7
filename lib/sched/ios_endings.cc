#include "sched/ios_endings.h"

#include <string>

namespace ios {

StatusOr<PartDag> BuildPartDag(const UnitGraph& graph, const std::vector<UnitId>& units) {
  if (units.size() > static_cast<size_t>(kMaxPartUnits))
    return Internal("a part of " + std::to_string(units.size()) + " units exceeds 64");
  PartDag dag;
  dag.n = static_cast<int>(units.size());
  dag.all = dag.n == kMaxPartUnits ? ~uint64_t{0} : Bit(dag.n) - 1;
  dag.unit_of_bit = units;
  dag.succ.assign(dag.n, 0);
  dag.pred.assign(dag.n, 0);
  std::vector<int> local(graph.units.size(), -1);
  for (int i = 0; i < dag.n; ++i) {
    UnitId u = units[i];
    if (u < 0 || u >= static_cast<UnitId>(graph.units.size()))
      return Internal("part names unit " + std::to_string(u) + ", which does not exist");
    if (local[u] >= 0) return Internal("part lists unit " + std::to_string(u) + " twice");
    local[u] = i;
  }
  for (int i = 0; i < dag.n; ++i) {
    for (UnitId v : graph.units[units[i]].successors) {
      if (v < 0 || v >= static_cast<UnitId>(local.size()) || local[v] < 0) continue;
      int j = local[v];
      if (j <= i) {
        return Internal("part is not in topological order: unit " + std::to_string(units[i]) +
                        " feeds unit " + std::to_string(v) + " listed before it");
      }
      dag.succ[i] |= Bit(j);
      dag.pred[j] |= Bit(i);
    }
  }
  dag.adj.resize(dag.n);
  dag.desc.assign(dag.n, 0);
  dag.anc.assign(dag.n, 0);
  for (int i = 0; i < dag.n; ++i) dag.adj[i] = dag.succ[i] | dag.pred[i];
  for (int i = dag.n - 1; i >= 0; --i) {
    for (uint64_t m = dag.succ[i]; m; m &= m - 1) {
      int j = LowestBit(m);
      dag.desc[i] |= Bit(j) | dag.desc[j];
    }
  }
  for (int i = 0; i < dag.n; ++i) {
    for (uint64_t m = dag.pred[i]; m; m &= m - 1) {
      int j = LowestBit(m);
      dag.anc[i] |= Bit(j) | dag.anc[j];
    }
  }
  return dag;
}

namespace {

// The connected component of `mask` that contains `seed` (a subset of mask).
uint64_t FloodFill(const PartDag& dag, uint64_t mask, uint64_t seed) {
  uint64_t component = seed;
  uint64_t frontier = seed;
  while (frontier) {
    uint64_t grown = 0;
    for (uint64_t m = frontier; m; m &= m - 1) grown |= dag.adj[LowestBit(m)];
    frontier = grown & mask & ~component;
    component |= frontier;
  }
  return component;
}

bool DownSetVisit(const PartDag& dag, uint64_t set, uint64_t avail, uint64_t forbidden,
                  const MaskCallback& emit) {
  if (!emit(set)) return false;
  for (uint64_t candidates = avail & ~forbidden; candidates; candidates &= candidates - 1) {
    int u = LowestBit(candidates);
    uint64_t grown = set | Bit(u);
    uint64_t next_avail = avail & ~Bit(u);
    for (uint64_t m = dag.succ[u]; m; m &= m - 1) {
      int v = LowestBit(m);
      if ((dag.pred[v] & ~grown) == 0) next_avail |= Bit(v);
    }
    if (!DownSetVisit(dag, grown, next_avail, forbidden, emit)) return false;
    forbidden |= Bit(u);
  }
  return true;
}

}  // namespace

int ComponentsInto(const PartDag& dag, uint64_t mask, uint64_t* out) {
  int count = 0;
  while (mask) {
    uint64_t component = FloodFill(dag, mask, mask & (~mask + 1));
    out[count++] = component;
    mask &= ~component;
  }
  return count;
}

bool ForEachDownSet(const PartDag& dag, const MaskCallback& emit) {
  uint64_t sources = 0;
  for (int i = 0; i < dag.n; ++i)
    if (dag.pred[i] == 0) sources |= Bit(i);
  return DownSetVisit(dag, 0, sources, 0, emit);
}

EndingEnumerator::EndingEnumerator(const PartDag& dag, Endings kind, int max_group_units,
                                   int max_groups)
    : dag_(dag), kind_(kind), r_(max_group_units), s_(max_groups) {
  if (kind_ == Endings::kPaper) {
    // Depth d holds the components of an ending of d units (d <= n), and writes its children's
    // at d + 1.
    components_.assign(static_cast<size_t>(dag.n + 2) * kMaxPartUnits, 0);
    sizes_.assign(components_.size(), 0);
  } else {
    roots_.reserve(kMaxPartUnits);
  }
}

bool EndingEnumerator::ForEach(uint64_t state, const MaskCallback& emit) {
  state_ = state;
  emit_ = &emit;
  if (kind_ == Endings::kPaper) {
    uint64_t sinks = 0;
    for (uint64_t m = state; m; m &= m - 1) {
      int u = LowestBit(m);
      if ((dag_.succ[u] & state) == 0) sinks |= Bit(u);
    }
    return PaperVisit(0, 0, sinks, 0, 0, 0);
  }
  roots_.clear();
  for (uint64_t m = state; m; m &= m - 1) {
    int u = LowestBit(m);
    uint64_t group = (dag_.desc[u] | Bit(u)) & state;
    if (r_ == 0 || PopCount(group) <= r_) roots_.push_back(group);
  }
  return ReferenceVisit(0, 0, 0);
}

int EndingEnumerator::PaperLowerBound(const uint64_t* components, const uint8_t* sizes,
                                      int num_components, uint64_t ending, uint64_t blocked) const {
  // Units that may still join the ending: in the state, not in it, not forbidden and not above a
  // forbidden unit (such a unit could never have all its successors in the ending).
  uint64_t addable = state_ & ~ending & ~blocked;
  int bound = 0;
  uint64_t growable = 0;
  for (int i = 0; i < num_components; ++i) {
    if (r_ > 0 && sizes[i] >= r_) {
      ++bound;  // full: it can neither grow nor merge
    } else {
      growable |= components[i];
    }
  }
  uint64_t region = growable | addable;
  while (growable) {
    uint64_t reach = FloodFill(dag_, region, growable & (~growable + 1));
    growable &= ~reach;
    ++bound;
  }
  return bound;
}

bool EndingEnumerator::PaperVisit(int depth, uint64_t ending, uint64_t avail, uint64_t forbidden,
                                  uint64_t blocked, int num_components) {
  const size_t level = static_cast<size_t>(depth) * kMaxPartUnits;
  const uint64_t* components = &components_[level];
  const uint8_t* sizes = &sizes_[level];
  if (ending != 0) {
    if (s_ == 0 || num_components <= s_) {
      if (!(*emit_)(ending)) return false;
    } else if (PaperLowerBound(components, sizes, num_components, ending, blocked) > s_) {
      return true;
    }
  }
  uint64_t* child = &components_[level + kMaxPartUnits];
  uint8_t* child_sizes = &sizes_[level + kMaxPartUnits];
  for (uint64_t candidates = avail & ~forbidden; candidates; candidates &= candidates - 1) {
    int u = LowestBit(candidates);
    uint64_t touched = dag_.succ[u] & state_;  // all inside `ending` by construction
    uint64_t merged = Bit(u);
    int merged_size = 1;
    int child_count = 0;
    for (int i = 0; i < num_components; ++i) {
      if (components[i] & touched) {
        merged |= components[i];
        merged_size += sizes[i];
      } else {
        child_sizes[child_count] = sizes[i];
        child[child_count++] = components[i];
      }
    }
    if (r_ == 0 || merged_size <= r_) {
      child_sizes[child_count] = static_cast<uint8_t>(merged_size);
      child[child_count++] = merged;
      uint64_t grown = ending | Bit(u);
      uint64_t next_avail = avail & ~Bit(u);
      for (uint64_t m = dag_.pred[u] & state_; m; m &= m - 1) {
        int p = LowestBit(m);
        if ((dag_.succ[p] & state_ & ~grown) == 0) next_avail |= Bit(p);
      }
      if (!PaperVisit(depth + 1, grown, next_avail, forbidden, blocked, child_count)) return false;
    }
    forbidden |= Bit(u);
    blocked |= Bit(u) | dag_.anc[u];
  }
  return true;
}

bool EndingEnumerator::ReferenceVisit(int start, uint64_t ending, int num_groups) {
  for (int j = start; j < static_cast<int>(roots_.size()); ++j) {
    uint64_t group = roots_[j];
    if (group & ending) continue;
    uint64_t grown = ending | group;
    if (!(*emit_)(grown)) return false;
    if (s_ == 0 || num_groups + 1 < s_) {
      if (!ReferenceVisit(j + 1, grown, num_groups + 1)) return false;
    }
  }
  return true;
}

}  // namespace ios
