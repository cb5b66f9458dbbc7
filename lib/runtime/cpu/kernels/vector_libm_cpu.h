// glibc's vector variants of libm (libmvec) for the CPU kernels' loops. GCC vectorises a loop
// that calls expf, logf, log1pf or powf when it is declared with its vector ABI variants, which glibc's math.h does
// only under -ffast-math, and when the call cannot set errno: the CPU backend builds with
// -fno-math-errno (ios never reads errno; lib/CMakeLists.txt) and links libmvec. The variants'
// results are within libm's usual few ulps (oneDNN 2.6's eltwise log, the alternative, was off
// by 3.4e-6 at log(1.04) = 0.039). Clang takes no such declaration: its loops call the scalar
// functions.
#pragma once

#include <cmath>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
extern "C" float expf(float) noexcept __attribute__((simd("notinbranch")));
extern "C" float logf(float) noexcept __attribute__((simd("notinbranch")));
extern "C" float log1pf(float) noexcept __attribute__((simd("notinbranch")));
extern "C" float powf(float, float) noexcept __attribute__((simd("notinbranch")));
#endif
