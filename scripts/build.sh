#!/usr/bin/env bash
# Configures and builds ios into ./build (or $IOS_BUILD_DIR). Extra arguments go to cmake.
# The CUDA backend builds whenever nvcc is found (IOS_ENABLE_CUDA=AUTO), for the GPU
# architectures of cmake/Cuda.cmake, or for those of $IOS_CUDA_ARCHITECTURES (a CMake list,
# e.g. "90-real" for an H100 only) when it is set.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${IOS_BUILD_DIR:-$root/build}"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [[ -n "${IOS_CUDA_ARCHITECTURES:-}" ]]; then
  set -- "-DCMAKE_CUDA_ARCHITECTURES=$IOS_CUDA_ARCHITECTURES" "$@"
fi
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
else
  cmake -S "$root" -B "$build" "$@" >/dev/null
fi
cmake --build "$build" --parallel "$(nproc)"
