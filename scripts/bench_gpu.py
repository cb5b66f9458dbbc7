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
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEDULES = ("sequential", "greedy", "ios")
NO_DEVICE_EXIT = 2


def run(cmd):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True)


def tool(build_dir, name):
    path = os.path.join(build_dir, "tools", name)
    if not os.path.exists(path):
        raise SystemExit(f"bench_gpu: {path} not found; build it first (scripts/build.sh)")
    return path


def require_device(iosc, device):
    """Compiles a small committed model for the device; stops with exit 2 if there is none."""
    model = os.path.join(ROOT, "testdata", "models", "residual_blocks_opset17.onnx")
    with tempfile.TemporaryDirectory() as tmp:
        result = run([iosc, model, "--device", device, "--schedule", "sequential", "-o",
                      os.path.join(tmp, "probe.iosplan")])
    if result.returncode == 0:
        return
    message = result.stderr.strip()
    if "no CUDA device" in message:
        print(f"bench_gpu: no CUDA device {device} on this machine, so nothing can be measured.\n"
              f"  iosc said: {message}\n"
              f"  Run this script on a machine with an NVIDIA GPU and a build of ios with the "
              f"CUDA backend.", file=sys.stderr)
        sys.exit(NO_DEVICE_EXIT)
    raise SystemExit(f"bench_gpu: iosc cannot compile for device {device}: {message}")


def generate_models(build_dir, names):
    out = os.path.join(build_dir, "models")
    result = run([sys.executable, os.path.join(ROOT, "scripts", "generate_models.py"), "--out",
                  out, "--models", ",".join(names)])
    if result.returncode != 0:
        raise SystemExit(f"bench_gpu: model generation failed:\n{result.stdout}{result.stderr}")
    return {name: os.path.join(out, name + ".onnx") for name in names}


def compile_plans(iosc, device, model, name, batch, out_dir):
    plans = {}
    for schedule in SCHEDULES:
        plan = os.path.join(out_dir, f"{name}_b{batch}_{schedule}.iosplan")
        cmd = [iosc, model, "--device", device, "--batch", batch, "--schedule", schedule,
               "-o", plan]
        if schedule == "ios":
            cmd += ["--timing-cache", os.path.join(out_dir, f"{name}_b{batch}.timings")]
        print(f"compiling {name} batch {batch} {schedule} ...", flush=True)
        result = run(cmd)
        if result.returncode != 0:
            raise SystemExit(f"bench_gpu: iosc failed for {name} {schedule}:\n{result.stderr}")
        plans[schedule] = plan
    return plans


def bench_once(iosrun, device, plan, duration):
    """One iosrun --bench run: (GPU compute median, host latency median, enqueue median) in ms."""
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "report.json")
        result = run([iosrun, plan, "--device", device, "--bench", "--duration", duration,
                      "--warmup-ms", "500", "--export-json", report_path])
        if result.returncode != 0:
            raise SystemExit(f"bench_gpu: iosrun failed on {plan}:\n{result.stderr}")
        with open(report_path) as f:
            report = json.load(f)
    gpu = report.get("gpu")
    if not gpu:
        raise SystemExit(f"bench_gpu: {plan} did not run on the GPU (no 'gpu' in its report)")
    return (gpu["gpu_compute_ms"]["median"], gpu["host_latency_ms"]["median"],
            gpu["enqueue_ms"]["median"])


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
    models = generate_models(build_dir, names)
    out_dir = os.path.join(build_dir, "bench_gpu", f"device{args.device}")
    os.makedirs(out_dir, exist_ok=True)
    configs = []  # (name, batch, plans)
    for name in names:
        for batch in batches:
            configs.append((name, batch,
                            compile_plans(iosc, args.device, models[name], name, batch, out_dir)))

    samples = {(name, batch, s): [] for name, batch, _ in configs for s in SCHEDULES}
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", flush=True)
        for name, batch, plans in configs:
            order = SCHEDULES[r % 3:] + SCHEDULES[:r % 3]  # rotated each round
            for schedule in order:
                samples[(name, batch, schedule)].append(
                    bench_once(iosrun, args.device, plans[schedule], args.duration))

    summary = []
    header = (f"{'network':<14}{'batch':>6}  " +
              "".join(f"{s + ' ms':>14}" for s in SCHEDULES) +
              f"{'seq/IOS':>9}{'greedy/IOS':>11}  enqueue us (seq/greedy/ios)")
    print()
    print(header)
    for name, batch, _ in configs:
        row = {"network": name, "batch": batch}
        for schedule in SCHEDULES:
            runs = samples[(name, batch, schedule)]
            row[schedule] = {
                "gpu_compute_ms": statistics.median(x[0] for x in runs),
                "host_latency_ms": statistics.median(x[1] for x in runs),
                "enqueue_ms": statistics.median(x[2] for x in runs),
                "rounds": [list(x) for x in runs],
            }
        ios_ms = row["ios"]["gpu_compute_ms"]
        row["speedup_over_sequential"] = row["sequential"]["gpu_compute_ms"] / ios_ms
        row["speedup_over_greedy"] = row["greedy"]["gpu_compute_ms"] / ios_ms
        summary.append(row)
        print(f"{name:<14}{batch:>6}  " +
              "".join(f"{row[s]['gpu_compute_ms']:>14.3f}" for s in SCHEDULES) +
              f"{row['speedup_over_sequential']:>9.2f}{row['speedup_over_greedy']:>11.2f}  " +
              "/".join(f"{row[s]['enqueue_ms'] * 1000:.1f}" for s in SCHEDULES))
    print("\nGPU compute time: median over rounds of each run's median. seq/IOS and greedy/IOS "
          "are speedups of the IOS plan (higher is better).")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": args.device, "rounds": args.rounds, "results": summary}, f,
                      indent=2)


if __name__ == "__main__":
    main()
