// IOS_VECTOR_CLONES: one copy of a function per x86 vector width (GCC's and Clang's
// target_clones: AVX-512, AVX2 and the baseline), picked once at load by the CPU's features.
// The build targets baseline x86-64, so the own kernels' loops otherwise vectorise to 4-wide
// SSE only. Put it on the function a thread runs over its share of the work (not a per-element
// helper: each call goes through the dispatch), and keep the function non-template.
#pragma once

// Not under ThreadSanitizer: the clones' resolver runs while the program is relocated, before
// TSan's runtime starts, and its instrumentation then crashes the program.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define IOS_NO_VECTOR_CLONES 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define IOS_NO_VECTOR_CLONES 1
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(IOS_NO_VECTOR_CLONES)
#define IOS_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define IOS_VECTOR_CLONES
#endif

// For the helpers such a function calls: inlined, they are compiled for each clone's target.
#if defined(__GNUC__)
#define IOS_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define IOS_ALWAYS_INLINE inline
#endif
