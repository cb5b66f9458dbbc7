#include "util/memory_info.h"

#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <cstdio>
#include <fstream>
#include <sstream>

namespace ios {

int64_t AvailableMemoryBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    int64_t kib = -1;
    if (fields >> kib && kib >= 0) return kib * 1024;
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) return static_cast<int64_t>(pages) * page_size;
  return -1;
}

Status CheckFitsInMemory(int64_t needed_bytes, int64_t limit_bytes, const std::string& what,
                         const std::string& raise_hint) {
  if (limit_bytes == 0) return Status::Ok();
  const bool available = limit_bytes < 0;
  const int64_t limit = available ? AvailableMemoryBytes() : limit_bytes;
  if (limit < 0 || needed_bytes <= limit) return Status::Ok();
  char text[160];
  std::snprintf(text, sizeof(text), "%s needs %.1f MiB, more than the %.1f MiB %s", what.c_str(),
                static_cast<double>(needed_bytes) / (1 << 20),
                static_cast<double>(limit) / (1 << 20),
                available ? "this machine has available" : "memory limit allows");
  return InvalidInput(std::string(text) + " (" + raise_hint + ")");
}

void ReleaseFreedMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

}  // namespace ios
