// How much memory a run may take: the machine's available memory, and the check that a plan's
// buffers fit before anything is allocated (so that a plan asking for more is refused with a
// message instead of being killed by the kernel's out-of-memory killer).
#pragma once

#include <cstdint>
#include <string>

#include "util/status.h"

namespace ios {

// MemAvailable from /proc/meminfo (what can be allocated without swapping), else the free
// physical pages; -1 when neither can be read.
int64_t AvailableMemoryBytes();

// `limit_bytes`: -1 checks against AvailableMemoryBytes(), 0 checks nothing, > 0 is the limit.
// InvalidInput naming `what`, both sizes in MiB and `raise_hint` (how to raise the limit) when
// `needed_bytes` exceeds it.
Status CheckFitsInMemory(int64_t needed_bytes, int64_t limit_bytes, const std::string& what,
                         const std::string& raise_hint);

// Hands the heap's free pages back to the system (glibc's malloc_trim; nothing elsewhere).
// glibc keeps freed blocks of a few MiB in the heap once its dynamic mmap threshold has risen
// past them, and blocks of many sizes freed together fragment it: with the CPU profiler's buffer
// pools emptied and refilled with other shapes, NasNet's batch-8 profiling peaked at 2.4 GiB
// without it and 1.05 GiB with it.
void ReleaseFreedMemory();

}  // namespace ios
