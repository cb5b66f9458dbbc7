#!/usr/bin/env bash
# Benchmarks sequential, greedy and IOS plans of the four benchmark networks on a CUDA GPU and
# prints GPU compute medians, the IOS speedups and the per-inference enqueue time.
# All arguments go to scripts/bench_gpu.py (see its --help); BUILD_DIR picks the build tree.
#   scripts/bench_gpu.sh --device 0 --batches 1,32 --rounds 5
# Without a CUDA device it exits with status 2 and says "no CUDA device".
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build_dir="${BUILD_DIR:-$here/../build}"
exec python3 "$here/bench_gpu.py" --build-dir "$build_dir" "$@"
