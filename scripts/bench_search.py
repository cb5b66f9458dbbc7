#!/usr/bin/env python3
"""Benchmarks the cost of the IOS search itself on the four benchmark networks with the analytic
model (deterministic, so only the search is timed), under both endings: search time (iosc's own
timer, median of several runs), peak memory of iosc, states, transitions, distinct stages
measured and stage-cost requests.

    python3 scripts/bench_search.py [--build-dir BUILD] [--models-dir DIR] [--runs 5]
                                    [--device sim:V100] [--r 3 --s 8]

The reference implementation needs about 35 s (RandWire) and 52 s (NasNet) on this kind of
2-core machine with a constant-cost oracle, and makes about 213,000 and 241,000 stage-cost calls.
Search times are wall-clock: on a shared machine quote the medians and the load.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_search(iosc, model, device, endings, r, s, tmp):
    """One iosc run: its statistics and the peak RSS of that process alone (KB)."""
    stats_path = os.path.join(tmp, "stats.json")
    out_path = os.path.join(tmp, "out.txt")
    with open(out_path, "w+") as out:
        process = subprocess.Popen([iosc, model, "--device", device, "--schedule", "ios",
                                    "--endings", endings, "--max-units-per-group", str(r),
                                    "--max-groups-per-stage", str(s), "--stats-json", stats_path],
                                   stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read()
    if process.returncode != 0:
        raise SystemExit(f"iosc failed on {model} ({endings} endings):\n{output}")
    with open(stats_path) as f:
        return json.load(f), usage.ru_maxrss


def load_average():
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="inception_v3,squeezenet,randwire,nasnet")
    parser.add_argument("--device", default="sim:V100")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--r", type=int, default=3)
    parser.add_argument("--s", type=int, default=8)
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                        help="the build directory whose tools/iosc is measured")
    parser.add_argument("--models-dir", default=None,
                        help="where the networks are (generated there if missing; "
                             "default BUILD/models)")
    args = parser.parse_args()
    iosc = os.path.join(args.build_dir, "tools", "iosc")
    if not os.path.exists(iosc):
        raise SystemExit(f"no iosc at {iosc}; pass --build-dir")
    models_dir = args.models_dir or os.path.join(args.build_dir, "models")
    names = args.models.split(",")
    generated = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "generate_models.py"),
                                "--out", models_dir, "--models", ",".join(names)],
                               capture_output=True, text=True)
    if generated.returncode != 0:
        raise SystemExit("model generation failed:\n" + generated.stdout + generated.stderr)
    print(f"{iosc}: {args.device}, r={args.r}, s={args.s}; search s = median of {args.runs} runs "
          f"(min-max); peak MB = largest RSS of iosc (the whole compile, model import included); "
          f"load average at start {load_average():.1f}")
    print(f"{'network':13s} {'endings':9s} {'search s':>8s} {'(min-max)':>13s} {'peak MB':>7s} "
          f"{'states':>7s} {'transitions':>11s} {'stages':>7s} {'requests':>8s} {'parts':>5s} "
          f"{'fallbacks':>9s}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            model = os.path.join(models_dir, name + ".onnx")
            for endings in ("paper", "reference"):
                searches, peak_kb = [], 0
                for _ in range(args.runs):
                    stats, rss_kb = run_search(iosc, model, args.device, endings, args.r, args.s,
                                               tmp)
                    searches.append(stats["search_seconds"])
                    peak_kb = max(peak_kb, rss_kb)
                parts = stats["parts"]
                states = sum(int(p["states"]) for p in parts)
                transitions = sum(int(p["transitions"]) for p in parts)
                fallbacks = sum(1 for p in parts if p.get("fallback"))
                spread = f"({min(searches):.3f}-{max(searches):.3f})"
                print(f"{name:13s} {endings:9s} {statistics.median(searches):8.3f} {spread:>13s} "
                      f"{peak_kb / 1024:7.0f} {states:7d} {transitions:11d} "
                      f"{int(stats['distinct_stages_measured']):7d} "
                      f"{int(stats['stage_cost_requests']):8d} {len(parts):5d} {fallbacks:9d}",
                      flush=True)
    print(f"load average at end {load_average():.1f}")


if __name__ == "__main__":
    main()
