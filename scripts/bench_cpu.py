#!/usr/bin/env python3
"""Benchmarks iosrun on the CPU (sequential, greedy and IOS plans) against onnxruntime (CPU, the
same thread count) on the benchmark networks at batch 1, side by side in one run.

IOS plans (`--schedules ...,ios`) are compiled with `iosc --device cpu`, which profiles every
distinct stage on this CPU; the profiling time is printed, and the timings are kept in
BUILD/models/NAME.cpu.timings so that a rerun does not profile again (delete it to re-measure).

Each round measures every configuration once (interleaved, so that machine noise hits all of
them alike); the figure quoted is the median over rounds of each round's median latency.

    python3 scripts/bench_cpu.py [--models inception_v3,squeezenet,randwire,nasnet]
                                 [--threads 2] [--rounds 3] [--duration 3] [--build-dir build]
                                 [--schedules sequential,greedy,ios] [--no-ort]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ort_median_ms(model, batch, threads, duration, warmup_s=0.5):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    inp = session.get_inputs()[0]
    shape = [batch if not isinstance(d, int) else d for d in inp.shape]
    shape[0] = batch
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    feed = {inp.name: x}
    start = time.perf_counter()
    while time.perf_counter() - start < warmup_s:
        session.run(None, feed)
    samples = []
    start = time.perf_counter()
    while time.perf_counter() - start < duration or len(samples) < 10:
        t0 = time.perf_counter()
        session.run(None, feed)
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def iosrun_median_ms(iosrun, plan, threads, duration):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        result = subprocess.run([iosrun, plan, "--bench", "--threads", str(threads), "--duration",
                                 str(duration), "--warmup-ms", "500", "--export-json", report.name],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"iosrun failed: {result.stderr}")
        return json.load(open(report.name))["latency_ms"]["median"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="inception_v3,squeezenet,randwire,nasnet")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--schedules", default="sequential,greedy")
    parser.add_argument("--no-ort", action="store_true", help="skip onnxruntime")
    args = parser.parse_args()
    iosc = os.path.join(args.build_dir, "tools", "iosc")
    iosrun = os.path.join(args.build_dir, "tools", "iosrun")
    models_dir = os.path.join(args.build_dir, "models")
    names = args.models.split(",")
    schedules = args.schedules.split(",")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "generate_models.py"), "--out",
                    models_dir, "--models", ",".join(names)], check=True, capture_output=True)
    print(f"threads {args.threads}, batch {args.batch}, {args.rounds} rounds of {args.duration} s; "
          f"onnxruntime {ort.__version__}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            model = os.path.join(models_dir, name + ".onnx")
            plans = {}
            for schedule in schedules:
                plans[schedule] = os.path.join(tmp, f"{name}_{schedule}.iosplan")
                command = [iosc, model, "--batch", str(args.batch), "--schedule", schedule,
                           "--max-streams", str(args.threads), "-o", plans[schedule]]
                stats = os.path.join(tmp, f"{name}_{schedule}.stats.json")
                if schedule.startswith("ios"):
                    command += ["--device", "cpu", "--stats-json", stats, "--timing-cache",
                                os.path.join(models_dir, f"{name}.cpu.timings")]
                started = time.perf_counter()
                subprocess.run(command, check=True, capture_output=True)
                if schedule.startswith("ios"):
                    with open(stats) as f:
                        search = json.load(f).get("search_seconds", 0.0)
                    print(f"{name}: iosc --schedule {schedule} --device cpu took "
                          f"{time.perf_counter() - started:.1f} s (search {search:.1f} s, "
                          f"profiling on this CPU unless the timing cache had the stages)",
                          flush=True)
            references = [] if args.no_ort else ["onnxruntime"]
            medians = {key: [] for key in references + schedules}
            for _ in range(args.rounds):
                if not args.no_ort:
                    medians["onnxruntime"].append(ort_median_ms(model, args.batch, args.threads,
                                                                args.duration))
                for schedule in schedules:
                    medians[schedule].append(iosrun_median_ms(iosrun, plans[schedule], args.threads,
                                                              args.duration))
            figures = {key: statistics.median(values) for key, values in medians.items()}
            rows.append((name, figures))
            line = f"{name:14s}"
            if not args.no_ort:
                line += f" onnxruntime {figures['onnxruntime']:8.2f} ms"
            for schedule in schedules:
                line += f" | {schedule} {figures[schedule]:8.2f} ms"
                if not args.no_ort:
                    line += f" ({figures[schedule] / figures['onnxruntime']:.2f}x ort)"
            for ios in [s for s in schedules if s.startswith("ios")]:
                for other in [s for s in schedules if not s.startswith("ios")]:
                    line += f" | {other}/{ios} {figures[other] / figures[ios]:.2f}"
            print(line, flush=True)
    return rows


if __name__ == "__main__":
    main()
