#include "sched/dag_width.h"

#include <functional>

namespace ios {

int DagWidth(const std::vector<std::vector<int>>& successors) {
  const int n = static_cast<int>(successors.size());
  // Transitive closure, walking backwards so successors are complete before their predecessors.
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (int i = n - 1; i >= 0; --i) {
    for (int s : successors[i]) {
      reach[i][s] = true;
      for (int t = s + 1; t < n; ++t)
        if (reach[s][t]) reach[i][t] = true;
    }
  }
  // Maximum bipartite matching (Kuhn's augmenting paths): left i -> right j when i reaches j.
  std::vector<int> match_right(n, -1);
  std::vector<bool> visited;
  std::function<bool(int)> augment = [&](int i) {
    for (int j = i + 1; j < n; ++j) {
      if (!reach[i][j] || visited[j]) continue;
      visited[j] = true;
      if (match_right[j] < 0 || augment(match_right[j])) {
        match_right[j] = i;
        return true;
      }
    }
    return false;
  };
  int matching = 0;
  for (int i = 0; i < n; ++i) {
    visited.assign(n, false);
    if (augment(i)) ++matching;
  }
  return n - matching;
}

}  // namespace ios
