#!/usr/bin/env python3
"""Benchmarks ios on a CUDA GPU: sequential, greedy and IOS plans of the benchmark networks, side
by side, and the ratios that docs/gpu-performance.md states as targets.

For every network and batch size, iosc compiles three plans on the device (--device N:
sequential, greedy, and the IOS search measured with the CUDA stage profiler, its timings kept
in a timing cache so that a second run of this script does not measure again). Then each round
runs `iosrun PLAN --device N --bench --export-json` once per plan, interleaved and in a rotated
order, so that clock and thermal drift hit every plan alike. The figures are the median over
rounds of each run's median:
  - GPU compute time (CUDA events around one inference on the origin stream),
  - host latency (enqueue to completion),
  - enqueue time: the host time to issue one inference, i.e. the per-inference host overhead
    (one cudaGraphLaunch when the plan runs as a CUDA Graph),
and the speedups sequential/IOS and greedy/IOS of the GPU compute time.

    python3 scripts/bench_gpu.py [--device 0] [--models inception_v3,squeezenet,randwire,nasnet]
                                 [--batches 1[,32]] [--rounds 5] [--duration 3]
                                 [--build-dir build] [--json summary.json]

Without a CUDA device it stops at once with exit status 2 and says so.

The functions below are also the GPU bundle's runner's (scripts/gpu/run_gpu_checks.py): each
takes `run`, the function that runs one command line and returns a subprocess.CompletedProcess
(the runner's adds a time limit, the library path and a log), and raises BenchError when a
command fails.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from ios_tools.files import write_atomically

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEDULES = ("sequential", "greedy", "ios")
NO_DEVICE_EXIT = 2
PROBE_MODEL = os.path.join(ROOT, "testdata", "models", "residual_blocks_opset17.onnx")
BENCH_WARMUP_MS = 500


class BenchError(RuntimeError):
    """A command of the benchmark failed; the message names it and gives its error output."""


def run(cmd):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True)


def tool(build_dir, name):
    path = os.path.join(build_dir, "tools", name)
    if not os.path.exists(path):
        raise SystemExit(f"bench_gpu: {path} not found; build it first (scripts/build.sh)")
    return path


def probe_device(iosc, device, run=run, tmp_dir=None):
    """Compiles a small committed model for the device: (ok, no_device, iosc's error output)."""
    with tempfile.TemporaryDirectory(dir=tmp_dir) as tmp:
        result = run([iosc, PROBE_MODEL, "--device", device, "--schedule", "sequential", "-o",
                      os.path.join(tmp, "probe.iosplan")])
    message = result.stderr.strip()
    return result.returncode == 0, "no CUDA device" in message, message


def require_device(iosc, device):
    """Stops with exit 2 if there is no CUDA device `device`."""
    ok, no_device, message = probe_device(iosc, device)
    if ok:
        return
    if no_device:
        print(f"bench_gpu: no CUDA device {device} on this machine, so nothing can be measured.\n"
              f"  iosc said: {message}\n"
              f"  Run this script on a machine with an NVIDIA GPU and a build of ios with the "
              f"CUDA backend.", file=sys.stderr)
        sys.exit(NO_DEVICE_EXIT)
    raise SystemExit(f"bench_gpu: iosc cannot compile for device {device}: {message}")


def generate_models(models_dir, names, run=run):
    """Writes the benchmark networks into models_dir (the generator skips up-to-date ones)."""
    result = run([sys.executable, os.path.join(ROOT, "scripts", "generate_models.py"), "--out",
                  models_dir, "--models", ",".join(names)])
    if result.returncode != 0:
        raise BenchError(f"model generation failed:\n{result.stdout}{result.stderr}")
    return {name: os.path.join(models_dir, name + ".onnx") for name in names}


def plan_path(out_dir, name, batch, schedule, suffix=""):
    return os.path.join(out_dir, f"{name}_b{batch}_{schedule}{suffix}.iosplan")


def compile_plan(iosc, device, model, name, batch, schedule, out_dir, extra_args=(), suffix="",
                 run=run):
    """`iosc MODEL --device N --batch B --schedule S -o PLAN` (IOS: with a timing cache in
    out_dir): (plan path, iosc's CompletedProcess)."""
    plan = plan_path(out_dir, name, batch, schedule, suffix)
    cmd = [iosc, model, "--device", device, "--batch", batch, "--schedule", schedule, "-o", plan]
    if schedule.startswith("ios"):
        cmd += ["--timing-cache", os.path.join(out_dir, f"{name}_b{batch}.timings")]
    result = run(cmd + list(extra_args))
    if result.returncode != 0:
        raise BenchError(f"iosc failed for {name} batch {batch} {schedule}{suffix} "
                         f"(exit status {result.returncode}):\n{result.stderr}")
    return plan, result


def compile_plans(iosc, device, model, name, batch, out_dir, run=run):
    plans = {}
    for schedule in SCHEDULES:
        print(f"compiling {name} batch {batch} {schedule} ...", flush=True)
        plans[schedule], _ = compile_plan(iosc, device, model, name, batch, schedule, out_dir,
                                          run=run)
    return plans


def bench_once(iosrun, device, plan, duration, extra_args=(), run=run, tmp_dir=None):
    """One iosrun --bench run: (GPU compute median, host latency median, enqueue median) in ms."""
    with tempfile.TemporaryDirectory(dir=tmp_dir) as tmp:
        report_path = os.path.join(tmp, "report.json")
        result = run([iosrun, plan, "--device", device, "--bench", "--duration", duration,
                      "--warmup-ms", BENCH_WARMUP_MS, "--export-json", report_path] +
                     list(extra_args))
        if result.returncode != 0:
            raise BenchError(f"iosrun failed on {plan} (exit status {result.returncode}):\n"
                             f"{result.stderr}")
        with open(report_path) as f:
            report = json.load(f)
    gpu = report.get("gpu")
    if not gpu:
        raise BenchError(f"{plan} did not run on the GPU (no 'gpu' in its report)")
    return (gpu["gpu_compute_ms"]["median"], gpu["host_latency_ms"]["median"],
            gpu["enqueue_ms"]["median"])


def rotation(round_index):
    """The order of the three plans in a round, rotated each round."""
    k = round_index % len(SCHEDULES)
    return SCHEDULES[k:] + SCHEDULES[:k]


def summarize(name, batch, runs):
    """One summary row from runs[schedule] = [bench_once results]; a schedule without runs is
    None, and so are the ratios that need it."""
    row = {"network": name, "batch": batch}
    for schedule in SCHEDULES:
        samples = runs.get(schedule) or []
        row[schedule] = {
            "gpu_compute_ms": statistics.median(x[0] for x in samples),
            "host_latency_ms": statistics.median(x[1] for x in samples),
            "enqueue_ms": statistics.median(x[2] for x in samples),
            "rounds": [list(x) for x in samples],
        } if samples else None
    ms = {s: row[s]["gpu_compute_ms"] if row[s] else None for s in SCHEDULES}
    ok = ms["ios"] is not None and ms["ios"] > 0
    row["speedup_over_sequential"] = (ms["sequential"] / ms["ios"]
                                      if ok and ms["sequential"] is not None else None)
    row["speedup_over_greedy"] = (ms["greedy"] / ms["ios"]
                                  if ok and ms["greedy"] is not None else None)
    return row


def format_table(rows):
    """The summary table (header and one line per row) as text."""
    def number(value, width, digits):
        return f"{value:>{width}.{digits}f}" if value is not None else f"{'-':>{width}}"

    lines = [f"{'network':<14}{'batch':>6}  " + "".join(f"{s + ' ms':>14}" for s in SCHEDULES) +
             f"{'seq/IOS':>9}{'greedy/IOS':>11}  enqueue us (seq/greedy/ios)"]
    for row in rows:
        lines.append(
            f"{row['network']:<14}{row['batch']:>6}  " +
            "".join(number(row[s]["gpu_compute_ms"] if row[s] else None, 14, 3)
                    for s in SCHEDULES) +
            number(row["speedup_over_sequential"], 9, 2) +
            number(row["speedup_over_greedy"], 11, 2) + "  " +
            "/".join(f"{row[s]['enqueue_ms'] * 1000:.1f}" if row[s] else "-" for s in SCHEDULES))
    return "\n".join(lines)


TABLE_NOTE = ("GPU compute time: median over rounds of each run's median. seq/IOS and greedy/IOS "
              "are speedups of the IOS plan (higher is better).")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="0", help="CUDA device ordinal")
    parser.add_argument("--models", default="inception_v3,squeezenet,randwire,nasnet")
    parser.add_argument("--batches", default="1", help="comma-separated batch sizes, e.g. 1,32")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--duration", type=float, default=3.0,
                        help="seconds of timed runs per iosrun --bench")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--json", help="write the summary here as JSON")
    args = parser.parse_args()
    if not args.device.isdigit():
        raise SystemExit("bench_gpu: --device must be a CUDA device ordinal such as 0")
    if args.rounds < 1:
        raise SystemExit("bench_gpu: --rounds must be at least 1")

    build_dir = os.path.abspath(args.build_dir)
    iosc = tool(build_dir, "iosc")
    require_device(iosc, args.device)
    iosrun = tool(build_dir, "iosrun")

    names = [m for m in args.models.split(",") if m]
    batches = [int(b) for b in args.batches.split(",") if b]
    try:
        models = generate_models(os.path.join(build_dir, "models"), names)
        out_dir = os.path.join(build_dir, "bench_gpu", f"device{args.device}")
        os.makedirs(out_dir, exist_ok=True)
        configs = []  # (name, batch, plans)
        for name in names:
            for batch in batches:
                configs.append((name, batch, compile_plans(iosc, args.device, models[name], name,
                                                           batch, out_dir)))

        samples = {(name, batch): {s: [] for s in SCHEDULES} for name, batch, _ in configs}
        for r in range(args.rounds):
            print(f"round {r + 1}/{args.rounds}", flush=True)
            for name, batch, plans in configs:
                for schedule in rotation(r):
                    samples[(name, batch)][schedule].append(
                        bench_once(iosrun, args.device, plans[schedule], args.duration))
    except BenchError as e:
        raise SystemExit(f"bench_gpu: {e}")

    summary = [summarize(name, batch, samples[(name, batch)]) for name, batch, _ in configs]
    print()
    print(format_table(summary))
    print("\n" + TABLE_NOTE)
    if args.json:
        write_atomically(args.json, json.dumps(
            {"device": args.device, "rounds": args.rounds, "results": summary}, indent=2))


if __name__ == "__main__":
    main()
