#!/usr/bin/env python3
"""Benchmarks the TorchScript and dynamo exports of the same networks in ios (CPU) and in
onnxruntime, and prints the figures issue 50's target is checked by: both exports of a network
run within 5% of each other in ios.

    python3 scripts/bench_exporters.py DIR [--nets NET,...] [--rounds 5] [--duration 2]
        [--threads N] [--build-dir build] [--iosc-flag=FLAG ...] [--atol 1e-3] [--rtol 1e-3]
        [--no-ort] [--no-check] [--profile] [--json FILE]

DIR holds pairs <net>.torchscript.onnx and <net>.dynamo.onnx (scripts/export_torch_cnns.py
writes them, in a scratch environment with torch; this script needs only onnx and
onnxruntime). For each pair:
  - the ops of each file and of each compiled plan (`iosc --device cpu --schedule sequential`,
    read from `iosrun --info-json`; a fused activation counts as part of its op, e.g.
    Conv+Silu) whose counts differ between the two exports: what canonicalisation has not
    made the same;
  - unless --no-check, each plan against onnxruntime on the same file (scripts/ort_reference.py,
    then `iosrun --check` with --atol/--rtol);
  - the latency of each plan (`iosrun --bench --export-json`, the median of one measurement of
    --duration seconds) and of onnxruntime on each file (sequential executor, --threads
    intra-op threads, full graph optimisation), over --rounds interleaved rounds: each round
    measures the four configurations back to back, odd rounds in the reverse order. The
    latency printed is the median over rounds; the ratio dynamo / TorchScript is paired (the
    two measured in the same round), its median over rounds with its range, which says how
    noisy the machine was;
  - with --profile, per op type, the op time of each plan (`iosrun --export-profile`) where
    the two differ by more than 2% of the TorchScript plan's op time.
"""
import argparse
import collections
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench_cpu import iosrun_median_ms, ort_median_ms, ort_session
from ios_tools.files import write_atomically

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EXPORTERS = ("torchscript", "dynamo")


def find_pairs(folder, wanted):
    nets = []
    for path in sorted(glob.glob(os.path.join(folder, "*.torchscript.onnx"))):
        net = os.path.basename(path)[:-len(".torchscript.onnx")]
        if os.path.exists(os.path.join(folder, net + ".dynamo.onnx")):
            nets.append(net)
    if wanted:
        missing = [n for n in wanted if n not in nets]
        if missing:
            raise SystemExit(f"no pair of exports in {folder} for: {', '.join(missing)}")
        nets = wanted
    if not nets:
        raise SystemExit(f"no <net>.torchscript.onnx / <net>.dynamo.onnx pairs in {folder}")
    return nets


def model_op_counts(model):
    import onnx
    graph = onnx.load(model, load_external_data=False).graph
    return collections.Counter(node.op_type for node in graph.node)


def plan_op_counts(iosrun, plan, tmp):
    path = os.path.join(tmp, "info.json")
    subprocess.run([iosrun, plan, "--info-json", path], check=True, capture_output=True)
    with open(path) as f:
        ops = json.load(f)["ops"]
    counts = collections.Counter()
    for op in ops:
        label = op["op_type"]
        for attr in op.get("attributes", []):
            if attr["name"] == "ios.activation" and attr.get("s", "None") != "None":
                label += "+" + attr["s"]
        counts[label] += 1
    return counts


def count_differences(a, b):
    """'op: a -> b' for every key whose counts differ."""
    return [f"{key}: {a[key]} -> {b[key]}" for key in sorted(set(a) | set(b)) if a[key] != b[key]]


def compile_plan(iosc, model, plan, flags):
    result = subprocess.run([iosc, model, "--device", "cpu", "--schedule", "sequential", "-o",
                             plan, "--progress", "off"] + flags, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"iosc failed on {model}:\n{result.stderr}")


def check_plan(iosrun, model, plan, tmp, atol, rtol, threads):
    ref = os.path.join(tmp, "ref_" + os.path.basename(model))
    made = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "ort_reference.py"),
                           model, "--out", ref, "--batch", "1", "--threads", str(threads)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        return False, "ort_reference.py failed: " + made.stderr.strip()[-300:]
    checked = subprocess.run([iosrun, plan, "--check", ref, "--atol", str(atol), "--rtol",
                              str(rtol), "--threads", str(threads)], capture_output=True,
                             text=True)
    return checked.returncode == 0, (checked.stdout + checked.stderr).strip()[-300:]


def profile_by_op_type(iosrun, plan, threads, tmp):
    path = os.path.join(tmp, "profile.json")
    subprocess.run([iosrun, plan, "--threads", str(threads), "--export-profile", path,
                    "--trace-runs", "20"], check=True, capture_output=True)
    with open(path) as f:
        ops = json.load(f)["ops"]
    totals = collections.Counter()
    for op in ops:
        totals[op["op_type"]] += op["ms"]
    return totals


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("--nets", default="", help="comma-separated; default: every pair")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--duration", type=float, default=2.0, help="seconds per measurement")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--iosc-flag", action="append", default=[],
                        help="an extra iosc flag for both plans (repeatable), e.g. "
                             "--iosc-flag=--passes=fold-constants")
    parser.add_argument("--atol", type=float, default=1e-3)
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--no-ort", action="store_true", help="skip onnxruntime's latencies")
    parser.add_argument("--no-check", action="store_true", help="skip iosrun --check")
    parser.add_argument("--profile", action="store_true", help="op time per op type")
    parser.add_argument("--json", help="also write every figure to this file")
    args = parser.parse_args()
    iosc = os.path.join(args.build_dir, "tools", "iosc")
    iosrun = os.path.join(args.build_dir, "tools", "iosrun")
    nets = find_pairs(args.folder, [n for n in args.nets.split(",") if n])
    import onnxruntime as ort
    print(f"{len(nets)} networks, threads {args.threads}, {args.rounds} interleaved rounds of "
          f"{args.duration} s; onnxruntime {ort.__version__}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for net in nets:
            models = {e: os.path.join(args.folder, f"{net}.{e}.onnx") for e in EXPORTERS}
            plans = {e: os.path.join(tmp, f"{net}.{e}.iosplan") for e in EXPORTERS}
            row = {"net": net}
            for e in EXPORTERS:
                compile_plan(iosc, models[e], plans[e], args.iosc_flag)
            row["model_op_differences"] = count_differences(
                *(model_op_counts(models[e]) for e in EXPORTERS))
            row["plan_op_differences"] = count_differences(
                *(plan_op_counts(iosrun, plans[e], tmp) for e in EXPORTERS))
            print(f"{net}: file ops TorchScript -> dynamo: "
                  f"{'; '.join(row['model_op_differences']) or 'the same'}", flush=True)
            print(f"{net}: plan ops TorchScript -> dynamo: "
                  f"{'; '.join(row['plan_op_differences']) or 'the same'}", flush=True)
            if not args.no_check:
                for e in EXPORTERS:
                    ok, detail = check_plan(iosrun, models[e], plans[e], tmp, args.atol,
                                            args.rtol, args.threads)
                    row[f"check_{e}"] = ok
                    print(f"{net} {e}: iosrun --check against onnxruntime "
                          f"{'passes' if ok else 'FAILS: ' + detail}", flush=True)
            sessions = {} if args.no_ort else {
                f"ort_{e}": ort_session(models[e], args.threads, False) for e in EXPORTERS}
            keys = [f"ios_{e}" for e in EXPORTERS] + list(sessions)
            samples = {key: [] for key in keys}
            for round_index in range(args.rounds):
                order = keys if round_index % 2 == 0 else list(reversed(keys))
                for key in order:
                    if key in sessions:
                        samples[key].append(ort_median_ms(sessions[key], 1, args.duration))
                    else:
                        samples[key].append(iosrun_median_ms(
                            iosrun, plans[key[len("ios_"):]], args.threads, args.duration))
            sessions.clear()
            for key in keys:
                row[key + "_ms"] = statistics.median(samples[key])
            for engine in ("ios", "ort"):
                if f"{engine}_dynamo" not in samples:
                    continue
                ratios = [d / t for d, t in zip(samples[f"{engine}_dynamo"],
                                                samples[f"{engine}_torchscript"])]
                row[f"{engine}_ratio"] = statistics.median(ratios)
                row[f"{engine}_ratio_range"] = [min(ratios), max(ratios)]
            if args.profile:
                totals = {e: profile_by_op_type(iosrun, plans[e], args.threads, tmp)
                          for e in EXPORTERS}
                whole = sum(totals["torchscript"].values())
                row["profile_ms"] = {e: dict(totals[e]) for e in EXPORTERS}
                for op_type in sorted(set(totals["torchscript"]) | set(totals["dynamo"])):
                    ts, dy = totals["torchscript"][op_type], totals["dynamo"][op_type]
                    if abs(dy - ts) > 0.02 * whole:
                        print(f"{net} profile: {op_type} {ts:.3f} ms -> {dy:.3f} ms", flush=True)
            rows.append(row)
            print(f"{net}: ios {row['ios_torchscript_ms']:.2f} / {row['ios_dynamo_ms']:.2f} ms, "
                  f"ratio {row['ios_ratio']:.3f}", flush=True)

    print()
    header = "| network | ios TorchScript ms | ios dynamo ms | ios dynamo/TS (range) |"
    rule = "|---|---|---|---|"
    if not args.no_ort:
        header += " ort TorchScript ms | ort dynamo ms | ort dynamo/TS |"
        rule += "---|---|---|"
    print(header)
    print(rule)
    for row in rows:
        low, high = row["ios_ratio_range"]
        line = (f"| {row['net']} | {row['ios_torchscript_ms']:.2f} | {row['ios_dynamo_ms']:.2f} | "
                f"{row['ios_ratio']:.3f} ({low:.3f}-{high:.3f}) |")
        if not args.no_ort:
            line += (f" {row['ort_torchscript_ms']:.2f} | {row['ort_dynamo_ms']:.2f} | "
                     f"{row['ort_ratio']:.3f} |")
        print(line)
    outside = [r["net"] for r in rows if abs(r["ios_ratio"] - 1) > 0.05]
    print(f"\n{len(rows) - len(outside)} of {len(rows)} networks within 5% in ios"
          + (f"; outside: {', '.join(outside)}" if outside else ""))
    if args.json:
        write_atomically(args.json, json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
