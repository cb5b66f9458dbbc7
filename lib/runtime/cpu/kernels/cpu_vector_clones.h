// IOS_VECTOR_CLONES: one copy of a function per x86 vector width (GCC's and Clang's
// target_clones: AVX-512, AVX2 and the baseline), picked once at load by the CPU's features.
// The build targets baseline x86-64, so the own kernels' loops otherwise vectorise to 4-wide
// SSE only. Put it on the function a thread runs over its share of the work (not a per-element
// helper: each call goes through the dispatch), and keep the function non-template.
#pragma once

#include <atomic>

// Not under the sanitizers: the clones' resolver runs while the program is relocated, before
// their runtimes start, and its instrumentation then crashes the program (TSan's; libFuzzer's
// coverage calls its comparison hooks through a PLT entry not yet bound). ASan goes with them:
// those builds check the code, not its speed.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) || \
    __has_feature(coverage_sanitizer)
#define IOS_NO_VECTOR_CLONES 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define IOS_NO_VECTOR_CLONES 1
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(IOS_NO_VECTOR_CLONES)
#define IOS_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define IOS_VECTOR_CLONES
#endif

// IOS_TARGET_AVX512 / IOS_TARGET_AVX2 and NativeVectorBytes(): for loops written with GCC's
// vector extension, which need the vector type itself to match the target. A vector wider than
// the target's registers is split for arithmetic, but GCC 12 compares and selects it (a > b ?
// a : b) one element at a time, through the stack: a MaxPool on 64-byte vectors ran at 1 GFLOP/s
// on AVX2. Such a kernel instantiates its loops (always inlined) once per vector type inside an
// entry function per target, and picks one by NativeVectorBytes().
#if defined(__x86_64__) && defined(__GNUC__)
#define IOS_TARGET_AVX512 __attribute__((target("avx512f")))
#define IOS_TARGET_AVX2 __attribute__((target("avx2")))
#define IOS_HAS_VECTOR_TARGETS 1
#else
#define IOS_TARGET_AVX512
#define IOS_TARGET_AVX2
#define IOS_HAS_VECTOR_TARGETS 0
#endif

namespace ios {

// While non-zero, NativeVectorBytes() answers at most this: tests run the narrower instantiations
// on a wider CPU (LimitVectorBytesForTesting).
inline std::atomic<int>& VectorBytesLimit() {
  static std::atomic<int> limit{0};
  return limit;
}

// The widest vector this CPU runs natively (64 with AVX-512F, 32 with AVX2, else 16 bytes).
inline int NativeVectorBytes() {
#if IOS_HAS_VECTOR_TARGETS
  static const int detected = __builtin_cpu_supports("avx512f") ? 64
                              : __builtin_cpu_supports("avx2")  ? 32
                                                                : 16;
#else
  const int detected = 16;
#endif
  const int limit = VectorBytesLimit().load(std::memory_order_relaxed);
  return limit > 0 && limit < detected ? limit : detected;
}

// 0 lifts the limit.
inline void LimitVectorBytesForTesting(int bytes) {
  VectorBytesLimit().store(bytes, std::memory_order_relaxed);
}

}  // namespace ios

// For the helpers such a function calls: inlined, they are compiled for each clone's target.
#if defined(__GNUC__)
#define IOS_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define IOS_ALWAYS_INLINE inline
#endif
