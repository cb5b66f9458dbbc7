#include "util/openmp_spin.h"

#include <cstdlib>

#include <unistd.h>

namespace ios {

bool ReexecWithShortOpenMpSpin(char** argv) {
  if (argv == nullptr) return false;
  if (std::getenv("GOMP_SPINCOUNT") || std::getenv("OMP_WAIT_POLICY")) return true;
  setenv("GOMP_SPINCOUNT", "2000", 1);
  execv("/proc/self/exe", argv);  // returns only on failure
  return false;
}

}  // namespace ios
