#!/usr/bin/env python3
"""Benchmarks the cost of the IOS search itself on the four benchmark networks with the analytic
model (deterministic, so only the search is timed), under both endings: wall time (median of
several runs of iosc), peak memory of iosc, states, transitions and distinct stages measured.

    python3 scripts/bench_search.py [--device sim:V100] [--runs 3] [--r 3 --s 8]

The reference implementation needs about 35 s (RandWire) and 52 s (NasNet) on this kind of
2-core machine with a constant-cost oracle, and makes about 213,000 and 241,000 stage-cost calls.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_search(iosc, model, device, endings, r, s, stats_path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    result = subprocess.run([iosc, model, "--device", device, "--endings", endings,
                             "--max-units-per-group", str(r), "--max-groups-per-stage", str(s),
                             "--stats-json", stats_path], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"iosc failed: {result.stderr}")
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(stats_path) as f:
        return json.load(f), wall, max(peak_kb, before)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="inception_v3,squeezenet,randwire,nasnet")
    parser.add_argument("--device", default="sim:V100")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--r", type=int, default=3)
    parser.add_argument("--s", type=int, default=8)
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    iosc = os.path.join(args.build_dir, "tools", "iosc")
    models_dir = os.path.join(args.build_dir, "models")
    names = args.models.split(",")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "generate_models.py"), "--out",
                    models_dir, "--models", ",".join(names)], check=True, capture_output=True)
    print(f"{args.device}, r={args.r}, s={args.s}, median of {args.runs} runs; search seconds are "
          "iosc's own timer, wall includes import and canonicalisation")
    print(f"{'network':14s} {'endings':9s} {'search s':>9s} {'wall s':>8s} {'peak MB':>8s} "
          f"{'states':>10s} {'transitions':>12s} {'stages':>8s} {'requests':>9s}")
    with tempfile.TemporaryDirectory() as tmp:
        stats_path = os.path.join(tmp, "stats.json")
        for name in names:
            model = os.path.join(models_dir, name + ".onnx")
            for endings in ("paper", "reference"):
                searches, walls, peak = [], [], 0
                for _ in range(args.runs):
                    stats, wall, peak_kb = run_search(iosc, model, args.device, endings, args.r,
                                                      args.s, stats_path)
                    searches.append(stats["search_seconds"])
                    walls.append(wall)
                    peak = max(peak, peak_kb)
                states = sum(int(p["states"]) for p in stats["parts"])
                transitions = sum(int(p["transitions"]) for p in stats["parts"])
                print(f"{name:14s} {endings:9s} {statistics.median(searches):9.3f} "
                      f"{statistics.median(walls):8.2f} {peak / 1024:8.0f} {states:10d} "
                      f"{transitions:12d} {int(stats['distinct_stages_measured']):8d} "
                      f"{int(stats['stage_cost_requests']):9d}", flush=True)


if __name__ == "__main__":
    main()
