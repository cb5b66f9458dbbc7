#!/usr/bin/env bash
# Sets up, builds with warnings as errors, and runs the whole test suite (what CI runs), then the
# sanitizer and fuzzing job (scripts/sanitize.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" -DIOS_WERROR=ON -DIOS_BUILD_TESTS=ON
build="${IOS_BUILD_DIR:-$root/build}"
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" -LE perf "$@"
# AddressSanitizer and UBSan over the unit and CLI tests, and every fuzz target for a while.
bash "$root/scripts/sanitize.sh"
