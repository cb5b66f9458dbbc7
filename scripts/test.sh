#!/usr/bin/env bash
# Sets up, builds with warnings as errors, and runs the whole test suite (what CI runs).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" -DIOS_WERROR=ON -DIOS_BUILD_TESTS=ON
build="${IOS_BUILD_DIR:-$root/build}"
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" "$@"
