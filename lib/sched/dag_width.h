// Width of a DAG: the size of its largest antichain (units no path connects), by Dilworth's
// theorem n minus a maximum matching in the bipartite graph of the transitive closure.
#pragma once

#include <vector>

namespace ios {

// `successors[i]` lists the direct successors of node i; nodes are numbered in a topological
// order (every successor index is larger).
int DagWidth(const std::vector<std::vector<int>>& successors);

}  // namespace ios
