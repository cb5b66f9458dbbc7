#!/usr/bin/env bash
# The sanitizer job (part of scripts/test.sh): builds ios with clang, AddressSanitizer and UBSan
# (no CUDA) into build-asan/ with the libFuzzer targets, then runs, with any report fatal:
#   1. the unit tests (ctest -L unit, which also replays every fuzz reproducer and seed), less
#      the search's timing printout (IosSchedulerPerfTest: 40 s under ASan, and its figures mean
#      nothing there; the scheduler's other tests run its paths);
#   2. the CLI tests on the bundled models (ctest -L python, given --sanitized, with which a
#      few of them check a smaller matrix), less the three whose time goes to
#      float64 reference evaluation, which the unit tests cover, and the installed example (a
#      plain program cannot load an ASan libios.so) (-E below);
#   3. ThreadSanitizer over the CPU session with its real kernels on Inception V3's IOS plan
#      (build-tsan/, tests/tsan/cpu_session_tsan_test.cc; the executor's own TSAN tests run in
#      the main build);
#   4. every fuzz target on a fixed number of mutations from a fixed seed (scripts/fuzz.sh --runs:
#      one commit always gives the same executions and result), or for --fuzz-seconds on fresh
#      random mutations.
# --fuzzers-only configures the same build and builds the fuzz targets alone, then stops (the
# scheduled fuzzing workflow, .github/workflows/fuzz.yml).
#
#   sanitize.sh [--fuzz-seconds S] [--skip-fuzz] [--fuzzers-only] [--build-dir DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-asan"
fuzz_seconds=""
skip_fuzz=0
fuzzers_only=0
while (($#)); do
  case "$1" in
    --fuzz-seconds) fuzz_seconds="$2"; shift 2 ;;
    --skip-fuzz) skip_fuzz=1; shift ;;
    --fuzzers-only) fuzzers_only=1; shift ;;
    --build-dir) build="$2"; shift 2 ;;
    -h|--help) sed -n "2,/^#   sanitize.sh/p" "$0"; exit 0 ;;
    *) echo "sanitize.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v clang++ >/dev/null || { echo "sanitize.sh: clang++ not found (scripts/setup.sh installs it)" >&2; exit 2; }

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
start=$SECONDS
CC=clang CXX=clang++ cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DIOS_ENABLE_CUDA=OFF -DIOS_SANITIZE=address,undefined \
  -DIOS_FUZZ=ON -DIOS_WERROR=ON -DIOS_BUILD_TESTS=ON >/dev/null
if ((fuzzers_only)); then
  cmake --build "$build" --parallel "$(nproc)" --target fuzz_onnx_import fuzz_plan_load \
    fuzz_timing_cache fuzz_text_inputs
  echo "sanitize: the fuzz targets took $((SECONDS - start)) s to build"
  exit 0
fi
cmake --build "$build" --parallel "$(nproc)"
echo "sanitize: build took $((SECONDS - start)) s"

# detect_leaks: the CLIs and tests must not leak either. halt_on_error is implied for UBSan by
# -fno-sanitize-recover; print_stacktrace makes a UBSan report say where.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
start=$SECONDS
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" -L unit
echo "sanitize: unit tests took $((SECONDS - start)) s"
start=$SECONDS
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" -L python --timeout 900 \
  -E 'py\.test_(float16_models|fpn_resize|float64_reference|install_example)$'
echo "sanitize: CLI tests took $((SECONDS - start)) s"
start=$SECONDS
tsan_build="$(dirname "$build")/build-tsan"
# -O0: the test runs for seconds, and the build is most of this step (93 against 121 s at -O1).
# The ASan build keeps -O1, where its tests run 70 s faster than at -O0 and it builds 40 s slower.
CC=clang CXX=clang++ cmake -S "$root" -B "$tsan_build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DIOS_ENABLE_CUDA=OFF -DIOS_SANITIZE=thread -DIOS_WERROR=ON \
  -DIOS_BUILD_TESTS=ON >/dev/null
cmake --build "$tsan_build" --parallel "$(nproc)" --target ios_session_tsan_test
# The benchmark networks were generated into the ASan build by its CLI tests' fixture.
TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/tsan/tsan_suppressions.txt" \
  IOS_TEST_BINARY_DIR="$build" "$tsan_build/tests/ios_session_tsan_test"
echo "sanitize: ThreadSanitizer on the CPU session took $((SECONDS - start)) s"
if ((skip_fuzz == 0)); then
  start=$SECONDS
  if [[ -n "$fuzz_seconds" ]]; then
    bash "$root/scripts/fuzz.sh" --build-dir "$build" --seconds "$fuzz_seconds"
  else
    bash "$root/scripts/fuzz.sh" --build-dir "$build" --runs
  fi
  echo "sanitize: fuzzing took $((SECONDS - start)) s"
fi
echo "sanitize: clean"
