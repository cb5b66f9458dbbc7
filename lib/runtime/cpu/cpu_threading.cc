#include "runtime/cpu/cpu_threading.h"

#include <cstdlib>
#include <memory>
#include <vector>

namespace ios {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

struct ScratchBuffer {
  std::unique_ptr<void, FreeDeleter> data;
  size_t bytes = 0;
};

}  // namespace

void* ThreadScratch(int slot, size_t bytes) {
  thread_local std::vector<ScratchBuffer> buffers;
  if (slot < 0) return nullptr;
  if (static_cast<size_t>(slot) >= buffers.size()) buffers.resize(static_cast<size_t>(slot) + 1);
  ScratchBuffer& buffer = buffers[static_cast<size_t>(slot)];
  if (buffer.bytes < bytes || !buffer.data) {
    constexpr size_t kAlign = 64;
    const size_t rounded = (std::max<size_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
    buffer.data.reset(std::aligned_alloc(kAlign, rounded));
    buffer.bytes = buffer.data ? rounded : 0;
  }
  return buffer.data.get();
}

}  // namespace ios
