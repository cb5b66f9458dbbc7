#!/usr/bin/env python3
"""Benchmarks ios on the CPU against onnxruntime, side by side in one interleaved run, and prints
the figures issue 11's targets are checked by.

For each network and batch:
  - onnxruntime (CPUExecutionProvider, the same thread count) in both modes: ORT_SEQUENTIAL and
    ORT_PARALLEL (inter-op threads = the thread count); "best" is the faster of the two;
  - iosrun on the plans of each --schedules entry: `sequential` (no profiling), `ios` (iosc
    --device cpu, which profiles every distinct stage on this CPU; its wall time and peak memory
    are printed, and the timings are kept in BUILD/models/NAME.bB.cpu.timings so that a rerun
    does not profile again: --fresh-profile deletes them first);
  - the IOS plan's predicted latency against its measured one, and whether it runs the
    sequential plan's own program (`iosplan diff`: only the schedule's kind, the options and
    the predicted latencies differ, as when the block check kept the sequential stages
    everywhere). Such a plan's ratio to the sequential plan is the host's noise, so it is named
    as such and not counted against "IOS plan <= sequential plan";
  - a lower bound for any schedule of the plan's ops on this CPU: max(the critical path of the
    op times measured one at a time with all threads, the sum of the op times measured with one
    thread / the thread count), both from iosrun --export-profile of the sequential plan; the
    IOS plan's latency over it is printed, and the sequential plan's: the most any schedule of
    these ops could gain over the sequential plan on this CPU.

Each round measures every configuration once, back to back (interleaved, so that machine noise
hits them alike; odd rounds in the reverse order, so that a drift within a round favours none);
the latency quoted is the median over rounds of each measurement's median. The ratios the
targets are checked by are paired: each round's ratio of two configurations measured in that
round, median over rounds, with their range. The shared machines this runs on change speed by
up to 2x for minutes at a time, for every process alike; a ratio of two medians taken minutes
apart can be off by that much, a paired ratio cannot.

    python3 scripts/bench_cpu.py [--models inception_v3,squeezenet,randwire,nasnet,CNNS]
        [--batches 1,8] [--threads N] [--rounds 3] [--duration 3] [--build-dir build]
        [--schedules sequential,ios] [--variant LABEL:SCHEDULE:IOSC FLAGS ...] [--no-ort]
        [--no-bound] [--fresh-profile] [--json FILE]

--variant adds a plan compiled with other iosc flags to the same interleaved rounds, with its
paired ratio to the plan of the same schedule: `--variant "seq-cl:sequential:--layout
channels-last"` measures the sequential plan without channel-blocked tensors beside it.

`CNNS` in --models stands for the CNNs of scripts/models (MobileNetV2, MobileNetV3-Large,
EfficientNet-B0, ResNet-50, DenseNet-121, GoogLeNet, ShuffleNetV2).
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

from ios_tools.files import write_atomically

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cnn_names():
    from models import CNNS
    return list(CNNS)


def ort_session(model, threads, parallel):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if parallel:
        options.execution_mode = ort.ExecutionMode.ORT_PARALLEL
        options.inter_op_num_threads = threads
    else:
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.inter_op_num_threads = 1
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def ort_median_ms(session, batch, duration, warmup_s=0.5):
    feed = {}
    for inp in session.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in inp.shape]
        shape[0] = batch
        feed[inp.name] = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
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


def run_with_rusage(command):
    """Runs `command`; returns (wall seconds, peak resident MiB of that process alone).

    The peak comes from GNU time, whose child starts small: the peak resident size that wait4
    reports for a child of this process counts what the child had before its exec, a copy of
    this process with its onnxruntime sessions."""
    with tempfile.NamedTemporaryFile(suffix=".txt") as peak_file:
        timed = (["/usr/bin/time", "-f", "%M", "-o", peak_file.name] + command
                 if os.path.exists("/usr/bin/time") else command)
        started = time.perf_counter()
        result = subprocess.run(timed, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        wall = time.perf_counter() - started
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr}")
        with open(peak_file.name) as f:
            text = f.read().strip().splitlines()
        peak_mib = int(text[-1]) / 1024 if text and text[-1].isdigit() else float("nan")
    return wall, peak_mib


def profile_ops(iosrun, plan, threads, tmp):
    """The ops of iosrun --export-profile: [(name, ms, inputs, outputs)]."""
    path = os.path.join(tmp, f"profile_{threads}.json")
    subprocess.run([iosrun, plan, "--threads", str(threads), "--export-profile", path,
                    "--trace-runs", "5"], check=True, capture_output=True)
    with open(path) as f:
        return json.load(f)["ops"]


def critical_path_ms(ops):
    producer = {}
    for op in ops:
        for value in op["outputs"]:
            producer[value] = op["name"]
    by_name = {op["name"]: op for op in ops}
    finish = {}

    def finish_of(name):
        if name not in finish:
            op = by_name[name]
            start = max((finish_of(producer[v]) for v in op["inputs"] if v in producer),
                        default=0.0)
            finish[name] = start + op["ms"]
        return finish[name]

    sys.setrecursionlimit(max(10000, 4 * len(ops)))
    return max((finish_of(op["name"]) for op in ops), default=0.0)


def lower_bound_ms(iosrun, sequential_plan, threads, tmp):
    """max(critical path of the ops at `threads`, sum of one-thread op times / threads)."""
    full = profile_ops(iosrun, sequential_plan, threads, tmp)
    single = profile_ops(iosrun, sequential_plan, 1, tmp)
    path = critical_path_ms(full)
    work = sum(op["ms"] for op in single) / threads
    return max(path, work), path, work


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="inception_v3,squeezenet,randwire,nasnet,CNNS")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--schedules", default="sequential,ios")
    parser.add_argument("--variant", action="append", default=[],
                        help="LABEL:SCHEDULE:IOSC FLAGS, a plan compiled with other flags")
    parser.add_argument("--no-ort", action="store_true", help="skip onnxruntime")
    parser.add_argument("--no-bound", action="store_true", help="skip the lower bound")
    parser.add_argument("--fresh-profile", action="store_true",
                        help="delete the timing caches first, so that iosc profiles afresh")
    parser.add_argument("--json", help="also write every figure to this file")
    args = parser.parse_args()
    iosc = os.path.join(args.build_dir, "tools", "iosc")
    iosrun = os.path.join(args.build_dir, "tools", "iosrun")
    iosplan = os.path.join(args.build_dir, "tools", "iosplan")
    models_dir = os.path.join(args.build_dir, "models")
    names = []
    for name in args.models.split(","):
        names += cnn_names() if name == "CNNS" else [name]
    batches = [int(b) for b in args.batches.split(",")]
    schedules = args.schedules.split(",")
    variants = {}  # label -> (schedule, extra iosc flags)
    for spec in args.variant:
        label, schedule, flags = (spec.split(":", 2) + ["", ""])[:3]
        if not label or not schedule or label in schedules or label in variants:
            parser.error(f"--variant {spec!r}: want a new LABEL:SCHEDULE:FLAGS")
        variants[label] = (schedule, flags.split())
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "generate_models.py"), "--out",
                    models_dir, "--models", ",".join(names)], check=True, capture_output=True)
    print(f"threads {args.threads}, batches {batches}, {args.rounds} rounds of {args.duration} s; "
          f"onnxruntime {ort.__version__}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            model = os.path.join(models_dir, name + ".onnx")
            for batch in batches:
                row = {"model": name, "batch": batch}
                plans = {}
                for schedule in schedules:
                    plans[schedule] = os.path.join(tmp, f"{name}_b{batch}_{schedule}.iosplan")
                    command = [iosc, model, "--batch", str(batch), "--schedule", schedule,
                               "--max-streams", str(args.threads), "-o", plans[schedule],
                               "--progress", "off"]
                    if schedule.startswith("ios"):
                        stats = os.path.join(tmp, f"{name}_b{batch}_{schedule}.stats.json")
                        cache = os.path.join(models_dir, f"{name}.b{batch}.cpu.timings")
                        if args.fresh_profile and os.path.exists(cache):
                            os.remove(cache)
                        command += ["--device", "cpu", "--stats-json", stats, "--timing-cache",
                                    cache]
                    wall, peak = run_with_rusage(command)
                    if schedule.startswith("ios"):
                        with open(stats) as f:
                            stats_json = json.load(f)
                        row["iosc_s"], row["iosc_peak_mib"] = wall, peak
                        row["predicted_ms"] = stats_json.get("predicted_latency_ms", 0.0)
                        row["stages_measured"] = int(stats_json.get(
                            "distinct_stages_measured", 0))
                        print(f"{name} b{batch}: iosc --device cpu {wall:.1f} s, peak "
                              f"{peak:.0f} MiB, {row['stages_measured']} stages measured "
                              f"(0 when the timing cache had them)", flush=True)
                for label, (schedule, flags) in variants.items():
                    plans[label] = os.path.join(tmp, f"{name}_b{batch}_{label}.iosplan")
                    command = [iosc, model, "--batch", str(batch), "--schedule", schedule,
                               "--max-streams", str(args.threads), "-o", plans[label],
                               "--progress", "off"] + flags
                    if schedule.startswith("ios"):
                        command += ["--device", "cpu", "--timing-cache", os.path.join(
                            models_dir, f"{name}.b{batch}.{label}.cpu.timings")]
                    run_with_rusage(command)
                if "ios" in plans and "sequential" in plans:
                    row["same_schedule"] = runs_the_same_program(
                        iosplan, plans["sequential"], plans["ios"], tmp)
                sessions = {} if args.no_ort else {
                    "ort_seq": ort_session(model, args.threads, False),
                    "ort_par": ort_session(model, args.threads, True)}
                medians = {key: [] for key in list(sessions) + schedules + list(variants)}
                for round_index in range(args.rounds):
                    order = list(sessions) + schedules + list(variants)
                    if round_index % 2 == 1:
                        order.reverse()
                    for key in order:
                        if key in sessions:
                            medians[key].append(ort_median_ms(sessions[key], batch,
                                                              args.duration))
                        else:
                            medians[key].append(iosrun_median_ms(iosrun, plans[key],
                                                                 args.threads, args.duration))
                sessions.clear()
                row.update({key: statistics.median(v) for key, v in medians.items()})
                row.update(paired_ratios(medians))
                for label, (schedule, _) in variants.items():
                    if schedule in medians:
                        row.update(paired_ratios({label: medians[label],
                                                  schedule: medians[schedule]}, (label, schedule)))
                if "sequential" in plans and not args.no_bound:
                    row["bound_ms"], row["critical_path_ms"], row["work_ms"] = lower_bound_ms(
                        iosrun, plans["sequential"], args.threads, tmp)
                rows.append(row)
                print(format_row(row, schedules, variants.items()), flush=True)
    print_targets(rows, schedules)
    if args.json:
        write_atomically(args.json, json.dumps(rows, indent=1))
    return rows


def runs_the_same_program(iosplan, plan_a, plan_b, tmp):
    """True when plan_b runs exactly plan_a's program: `iosplan diff` finds them apart only in
    the options they were compiled with, the schedule's kind and the predicted latencies (an
    IOS plan whose search and block check chose the sequential stages everywhere)."""
    out = os.path.join(tmp, "diff.json")
    subprocess.run([iosplan, "diff", plan_a, plan_b, "--json", out], capture_output=True,
                   check=False)
    with open(out) as f:
        diff = json.load(f)
    for section in diff["sections"]:
        if not section["differs"] or section["section"] in ("options", "predicted latency"):
            continue
        if section["section"] == "schedule" and all(
                detail.startswith("kind:") for detail in section["details"]):
            continue
        return False
    return True


def paired_ratios(medians, variant=None):
    """Per round ratios of configurations measured in that round: median and range; for a
    `variant` (label, schedule), only its ratio to the plan of its schedule."""
    ratios = {}

    def pair(name, numerators, denominators):
        values = [a / b for a, b in zip(numerators, denominators) if b > 0]
        if values:
            ratios[name] = statistics.median(values)
            ratios[name + "_range"] = [min(values), max(values)]

    if variant:
        label, schedule = variant
        pair(f"{label}_over_{schedule}", medians[label], medians[schedule])
        return ratios
    if "ort_seq" in medians:
        best = [min(a, b) for a, b in zip(medians["ort_seq"], medians["ort_par"])]
        for schedule in ("sequential", "ios"):
            if schedule in medians:
                pair(f"{schedule}_over_ort", medians[schedule], best)
    if "ios" in medians and "sequential" in medians:
        pair("seq_over_ios", medians["sequential"], medians["ios"])
    return ratios


def format_ratio(row, name):
    low, high = row[name + "_range"]
    return f"{row[name]:.2f}x [{low:.2f}-{high:.2f}]"


def format_row(row, schedules, variants=()):
    line = f"{row['model']:15s} b{row['batch']:<2d}"
    best = None
    if "ort_seq" in row:
        best = min(row["ort_seq"], row["ort_par"])
        row["ort_best"] = best
        line += f" ort seq {row['ort_seq']:8.2f} par {row['ort_par']:8.2f} ms |"
    for schedule in schedules:
        line += f" {schedule} {row[schedule]:8.2f} ms"
        if f"{schedule}_over_ort" in row:
            line += f" ({format_ratio(row, schedule + '_over_ort')} ort best)"
        line += " |"
    for label, (schedule, _) in variants:
        line += f" {label} {row[label]:8.2f} ms"
        if f"{label}_over_{schedule}" in row:
            line += f" ({format_ratio(row, f'{label}_over_{schedule}')} {schedule})"
        line += " |"
    if "seq_over_ios" in row:
        line += f" seq/ios {format_ratio(row, 'seq_over_ios')}"
        if row.get("same_schedule"):
            line += " (the sequential schedule itself)"
        if row.get("predicted_ms"):
            line += f" | ios predicted {row['predicted_ms']:.2f} measured {row['ios']:.2f}"
    if "bound_ms" in row and "ios" in row:
        line += (f" | bound {row['bound_ms']:.2f} (path {row['critical_path_ms']:.2f}, work "
                 f"{row['work_ms']:.2f}), ios/bound {row['ios'] / row['bound_ms']:.2f}, "
                 f"seq/bound {row['sequential'] / row['bound_ms']:.2f}")
    return line


def print_targets(rows, schedules):
    """Issue 11's targets, each with the rows that miss it."""
    def report(what, misses):
        print(f"{'MET ' if not misses else 'MISS'} {what}" +
              ("" if not misses else ": " + ", ".join(misses)))

    print("targets (paired ratios, median over rounds):")
    if rows and "sequential_over_ort" in rows[0]:
        report("ios sequential <= 1.0x onnxruntime's best mode",
               [f"{r['model']} b{r['batch']} {r['sequential_over_ort']:.2f}x"
                for r in rows if r["sequential_over_ort"] > 1.0])
    if "ios" in schedules and "sequential" in schedules:
        # An IOS plan that runs the sequential plan's own program cannot be slower than it: its
        # ratio is the host's noise (an A/A run of one plan gave single rounds of 0.55-1.46x).
        same = [f"{r['model']} b{r['batch']} {1 / r['seq_over_ios']:.2f}x" for r in rows
                if r.get("same_schedule")]
        report("IOS plan <= sequential plan",
               [f"{r['model']} b{r['batch']} {1 / r['seq_over_ios']:.2f}x"
                for r in rows if r["seq_over_ios"] < 1.0 and not r.get("same_schedule")])
        if same:
            print("     (the sequential schedule itself, measured apart by noise alone: " +
                  ", ".join(same) + ")")
        wide = [r for r in rows if r["model"] in ("nasnet", "randwire")]
        if wide:
            report("IOS plan >= 1.15x faster than sequential on NasNet and RandWire",
                   [f"{r['model']} b{r['batch']} {r['seq_over_ios']:.2f}x"
                    for r in wide if r["seq_over_ios"] < 1.15])
            # No schedule of the plan's ops beats the bound, so sequential / bound is the most
            # that any could gain over the sequential plan on this CPU: where the ops already
            # scale across the cores, the work term is close to the sequential latency.
            bounded = [r for r in wide if "bound_ms" in r]
            if bounded:
                print("     (the most any schedule could gain on this CPU, sequential / bound: " +
                      ", ".join(f"{r['model']} b{r['batch']} "
                                f"{r['sequential'] / r['bound_ms']:.2f}x" for r in bounded) +
                      ")")
    if "ios" in schedules:
        fresh = [r for r in rows if r.get("stages_measured")]
        report("iosc --device cpu <= 60 s and <= 1 GiB (fresh profiles only)",
               [f"{r['model']} b{r['batch']} {r['iosc_s']:.0f} s {r['iosc_peak_mib']:.0f} MiB"
                for r in fresh if r["iosc_s"] > 60 or r["iosc_peak_mib"] > 1024])


if __name__ == "__main__":
    main()
