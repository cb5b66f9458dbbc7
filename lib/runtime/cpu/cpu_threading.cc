#include "runtime/cpu/cpu_threading.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
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

void ParallelCopy(void* dst, const void* src, size_t bytes, int threads) {
  if (dst == src || bytes == 0) return;
  constexpr int64_t kBlock = 64 * 1024;
  const int64_t blocks = (static_cast<int64_t>(bytes) + kBlock - 1) / kBlock;
  const int team = ThreadsForWork(threads, static_cast<int64_t>(bytes) / 4);
  ParallelFor(blocks, team, [&](int64_t begin, int64_t end) {
    const size_t from = static_cast<size_t>(begin * kBlock);
    const size_t to = std::min(bytes, static_cast<size_t>(end * kBlock));
    std::memcpy(static_cast<uint8_t*>(dst) + from, static_cast<const uint8_t*>(src) + from,
                to - from);
  });
}

}  // namespace ios
