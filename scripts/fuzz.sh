#!/usr/bin/env bash
# Runs every fuzz target of a sanitizer build (scripts/sanitize.sh builds one) on mutations of
# its committed corpus and regressions, and fails on any finding: a crash, a sanitizer report, a
# timeout (one input over --timeout seconds) or an out-of-memory (over --rss-mb).
#
#   fuzz.sh [--build-dir build-asan] [--runs [N] | --seconds S [--executions N]] [--seed 1]
#           [--targets a,b] [--timeout 20] [--rss-mb 2048] [--jobs N]
#
# Two modes:
#   --runs [N]   (the default; scripts/sanitize.sh and CI run it) the committed inputs, then N
#                mutants of them drawn from --seed alone (tests/fuzz/mutation_driver.cc): which
#                inputs run never depends on coverage, timing or addresses, so one commit always
#                runs the same inputs and gives the same result. Without N, each target's own
#                count (below: about 30 s per target on the project's 2-core machine).
#   --seconds S  open-ended, coverage-guided fuzzing with libFuzzer for S seconds per target (0:
#                no limit) or --executions N, whichever comes first, from a random seed (libFuzzer
#                prints it), growing the corpus that earlier open-ended runs left in
#                BUILD/fuzz-corpus/<target>/ (the scheduled workflow .github/workflows/fuzz.yml
#                runs an hour per target).
# Targets run --jobs at a time (default: one per core; each fuzzer is single-threaded).
# The committed inputs are only read. A finding leaves its reproducer in
# BUILD/fuzz-findings/<target>/; add it to tests/fuzz/regressions/<target>/ with the fix, where
# every sanitizer build replays it.
# Prints, per target, the executions, the seconds and the result (and for --seconds the corpus
# size, the coverage reached in edges and libFuzzer's features), and writes them to
# BUILD/fuzz-summary.json.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-asan"
# Each target's executions for the default deterministic run: about 30 s per target on the
# project's 2-core machine, two targets at a time, under ASan and UBSan.
declare -A default_runs=([fuzz_onnx_import]=24000 [fuzz_plan_load]=12000
                         [fuzz_timing_cache]=160000 [fuzz_text_inputs]=2000000)
runs=""
seconds=""
executions_limit=-1
seed=1
targets="fuzz_onnx_import,fuzz_plan_load,fuzz_timing_cache,fuzz_text_inputs"
timeout=20
rss_mb=2048
jobs="$(nproc)"
while (($#)); do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --runs)
      if [[ $# -ge 2 && "$2" =~ ^[0-9]+$ ]]; then runs="$2"; shift 2; else runs=default; shift; fi ;;
    --seconds) seconds="$2"; shift 2 ;;
    --executions) executions_limit="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --targets) targets="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --rss-mb) rss_mb="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n "2,/^# BUILD\/fuzz-summary.json/p" "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [[ -n "$runs" && -n "$seconds" ]]; then
  echo "fuzz.sh: give --runs or --seconds, not both" >&2
  exit 2
fi
[[ -z "$seconds" && "$executions_limit" != -1 ]] && seconds=0
[[ -z "$seconds" && -z "$runs" ]] && runs=default
[[ "$seed" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: --seed must be a non-negative integer" >&2; exit 2; }

fuzz_one() {  # target: runs it, leaving its exit status in BUILD/fuzz-TARGET.status
  local target="$1" status=0 started=$SECONDS
  local work="$build/fuzz-corpus/$target" findings="$build/fuzz-findings/$target"
  local inputs=() folder
  for folder in corpus regressions; do
    if [[ -d "$root/tests/fuzz/$folder/$target" ]]; then
      inputs+=("$root/tests/fuzz/$folder/$target")
    fi
  done
  mkdir -p "$findings"
  if [[ -n "$runs" ]]; then
    local count="$runs"
    [[ "$count" == default ]] && count="${default_runs[$target]:-20000}"
    # The committed inputs, then `count` mutants of them drawn from --seed alone: libFuzzer's
    # own choices follow coverage, timing and addresses, which differ between runs.
    # hard_rss_limit_mb and max_allocation_size_mb stand for libFuzzer's -rss_limit_mb and
    # -malloc_limit_mb.
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=$rss_mb:max_allocation_size_mb=$rss_mb" \
      "$build/tests/fuzz/${target}_mutants" --seed "$seed" --runs "$count" --timeout "$timeout" \
      --findings "$findings" "${inputs[@]}" >"$build/fuzz-$target.log" 2>&1 || status=$?
  else
    mkdir -p "$work"
    "$build/tests/fuzz/$target" "$work" "${inputs[@]}" -max_total_time="$seconds" \
      -runs="$executions_limit" -timeout="$timeout" -rss_limit_mb="$rss_mb" \
      -malloc_limit_mb="$rss_mb" -print_final_stats=1 -artifact_prefix="$findings/" \
      >"$build/fuzz-$target.log" 2>&1 || status=$?
  fi
  echo "$((SECONDS - started))" >"$build/fuzz-$target.seconds"
  echo "$status" >"$build/fuzz-$target.status"
}

binary_suffix=""
[[ -n "$runs" ]] && binary_suffix="_mutants"
for target in ${targets//,/ }; do
  [[ -x "$build/tests/fuzz/$target$binary_suffix" ]] || {
    echo "fuzz.sh: no $build/tests/fuzz/$target$binary_suffix (build with scripts/sanitize.sh)" >&2
    exit 2
  }
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
summary="$build/fuzz-summary.json"
if [[ -n "$runs" ]]; then
  printf '{"mode": "runs", "seed": %s, "targets": [' "$seed" >"$summary.tmp"
  printf '%-20s %10s %8s %8s  %s\n' target executions seconds exec/s result
else
  printf '{"mode": "seconds", "seconds": %s, "targets": [' "$seconds" >"$summary.tmp"
  printf '%-20s %10s %8s %8s %8s %8s %8s  %s\n' target executions seconds exec/s corpus cov \
    features result
fi
separator=""
for target in ${targets//,/ }; do
  log="$build/fuzz-$target.log"
  touch "$log"
  status=$(cat "$build/fuzz-$target.status" 2>/dev/null || echo "none")
  took=$(cat "$build/fuzz-$target.seconds" 2>/dev/null || echo 0)
  if [[ "$status" == 0 ]]; then result=clean; else result="finding (exit $status)"; failed=1; fi
  if [[ -n "$runs" ]]; then
    executions=$(grep -aoE '^executions: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
    rate=$((executions / (took > 0 ? took : 1)))
    printf '%-20s %10s %8s %8s  %s\n' "$target" "$executions" "$took" "$rate" "$result"
    printf '%s{"target": "%s", "executions": %s, "seconds": %s, "result": "%s"}' \
      "$separator" "$target" "$executions" "$took" "$result" >>"$summary.tmp"
  else
    # -a: libFuzzer's recommended dictionary puts raw bytes in the log, which grep would
    # otherwise answer with "binary file matches" (the timing-cache target's row read 0).
    executions=$(grep -aoE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' ||
                 echo 0)
    rate=$(grep -aoE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
    cov=$(grep -aoE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
    features=$(grep -aoE 'ft: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
    corpus=$(find "$build/fuzz-corpus/$target" -type f 2>/dev/null | wc -l)
    printf '%-20s %10s %8s %8s %8s %8s %8s  %s\n' "$target" "$executions" "$took" "$rate" \
      "$corpus" "$cov" "$features" "$result"
    printf '%s{"target": "%s", "executions": %s, "seconds": %s, "corpus": %s, "coverage": %s, "features": %s, "result": "%s"}' \
      "$separator" "$target" "$executions" "$took" "$corpus" "$cov" "$features" "$result" \
      >>"$summary.tmp"
  fi
  separator=", "
  if [[ "$status" != 0 ]]; then
    grep -aE 'ERROR: |runtime error|SUMMARY|==[0-9]+==|Test unit written|mutants: ' "$log" |
      head -20 >&2
  fi
done
printf ']}\n' >>"$summary.tmp"
mv "$summary.tmp" "$summary"
exit $failed
