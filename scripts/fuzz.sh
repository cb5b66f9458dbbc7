#!/usr/bin/env bash
# Runs every fuzz target of a sanitizer build (scripts/sanitize.sh builds one) for a while on
# fresh mutations of its committed corpus, and fails on any finding: a crash, a sanitizer report,
# a timeout (one input over --timeout seconds) or an out-of-memory (over --rss-mb).
#
#   fuzz.sh [--build-dir build-asan] [--seconds 45] [--targets a,b] [--timeout 20] [--rss-mb 2048]
#           [--jobs N]
#
# Targets run --jobs at a time (default: one per core; each fuzzer is single-threaded), each for
# --seconds.
# The committed corpus is only read: new inputs go to a scratch corpus under the build folder.
# A finding leaves its reproducer in BUILD/fuzz-findings/<target>/; add it to
# tests/fuzz/regressions/<target>/ with the fix, where every sanitizer build replays it.
# Prints, per target, the executions, the corpus size and the coverage reached.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-asan"
seconds=45
targets="fuzz_onnx_import,fuzz_plan_load,fuzz_timing_cache,fuzz_text_inputs"
timeout=20
rss_mb=2048
jobs="$(nproc)"
while (($#)); do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --targets) targets="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --rss-mb) rss_mb="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n "2,/^# Prints/p" "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

fuzz_one() {  # target: runs it, leaving its exit status in BUILD/fuzz-TARGET.status
  local target="$1" binary="$build/tests/fuzz/$1" status=0
  local work="$build/fuzz-corpus/$target" findings="$build/fuzz-findings/$target"
  mkdir -p "$work" "$findings"
  local seeds=() folder
  for folder in corpus regressions; do
    [[ -d "$root/tests/fuzz/$folder/$target" ]] && seeds+=("$root/tests/fuzz/$folder/$target")
  done
  "$binary" "$work" "${seeds[@]}" -max_total_time="$seconds" -timeout="$timeout" \
    -rss_limit_mb="$rss_mb" -malloc_limit_mb="$rss_mb" -print_final_stats=1 \
    -artifact_prefix="$findings/" >"$build/fuzz-$target.log" 2>&1 || status=$?
  echo "$status" >"$build/fuzz-$target.status"
}

for target in ${targets//,/ }; do
  [[ -x "$build/tests/fuzz/$target" ]] ||
    { echo "fuzz.sh: no $build/tests/fuzz/$target (build with scripts/sanitize.sh)" >&2; exit 2; }
done
running=0
for target in ${targets//,/ }; do
  rm -f "$build/fuzz-$target.status"
  if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
  fuzz_one "$target" &
  running=$((running + 1))
done
wait

failed=0
printf '%-20s %10s %8s %8s %8s  %s\n' target executions exec/s corpus cov result
for target in ${targets//,/ }; do
  log="$build/fuzz-$target.log"
  status=$(cat "$build/fuzz-$target.status" 2>/dev/null || echo "none")
  # -a: libFuzzer's recommended dictionary puts raw bytes in the log, which grep would otherwise
  # answer with "binary file matches" (the timing-cache target's row read 0 executions).
  runs=$(grep -aoE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  rate=$(grep -aoE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  cov=$(grep -aoE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
  corpus=$(find "$build/fuzz-corpus/$target" -type f | wc -l)
  if [[ "$status" == 0 ]]; then result=clean; else result="FINDING (exit $status)"; failed=1; fi
  printf '%-20s %10s %8s %8s %8s  %s\n' "$target" "$runs" "$rate" "$corpus" "$cov" "$result"
  if [[ "$status" != 0 ]]; then
    grep -aE 'ERROR: |runtime error|SUMMARY|==[0-9]+==|Test unit written' "$log" | head -20 >&2
  fi
done
exit $failed
