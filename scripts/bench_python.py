#!/usr/bin/env python3
"""Measures what the Python package (python/, docs/python.md) costs over what it wraps, side by
side in one process, and prints medians:

  1. ios.Session.run on a one-Add model of 1x8 floats against the C++ API's Session::Run on the
     same session and buffers (timed in C++ by the extension, NativeSession.native_run_times):
     the binding's overhead per call (the target: 20 us at most). Python's timings include one
     perf_counter pair per call; the empty loop's time is printed beside them.
  2. ios.InferenceSession.run against onnxruntime's InferenceSession.run (CPUExecutionProvider,
     default session options, as an onnxruntime script makes it) in a Python loop, on the four
     benchmark networks at batch 1, on the same inputs. The ios session compiles the network
     with its defaults (the IOS search measured on this CPU) into --cache-dir on first use;
     the time a later session takes to load the cached plan is printed too.

Each round measures every configuration once, back to back, in alternating order; a figure is
the median over rounds of each round's median, and an ios/onnxruntime ratio is paired: each
round's ratio of the two measured in it, median and range over rounds (the shared machines this
runs on change speed by up to 2x for minutes at a time).

    python3 scripts/bench_python.py [--build-dir build] [--rounds 5] [--iterations 20000]
        [--models inception_v3,squeezenet,randwire,nasnet] [--duration 2] [--cache-dir DIR]
        [--skip-networks] [--json FILE]

The package is imported from BUILD/python-package (scripts/build_python_package.sh builds it).
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

from ios_tools.files import write_atomically

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def median_us(samples):
    return statistics.median(samples) * 1e6


def add_model(path):
    from onnx import TensorProto, helper, save
    values = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 8]) for n in "xyz"]
    graph = helper.make_graph([helper.make_node("Add", ["x", "y"], ["z"])], "add", values[:2],
                              values[2:])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def python_times(call, iterations):
    times = []
    clock = time.perf_counter
    for _ in range(iterations):
        start = clock()
        call()
        times.append(clock() - start)
    return times


def bench_overhead(ios, rounds, iterations, tmp):
    path = os.path.join(tmp, "add.onnx")
    add_model(path)
    session = ios.Session(ios.compile(path, schedule="sequential"))
    feeds = {"x": np.ones((1, 8), np.float32), "y": np.ones((1, 8), np.float32)}
    into = {"z": np.empty((1, 8), np.float32)}
    configs = {
        "C++ Session::Run": lambda: session._native.native_run_times(feeds, iterations),
        "Session.run": lambda: python_times(lambda: session.run(feeds), iterations),
        "Session.run into arrays": lambda: python_times(lambda: session.run(feeds, into),
                                                        iterations),
        "empty Python loop": lambda: python_times(lambda: None, iterations),
    }
    medians = {name: [] for name in configs}
    for round in range(rounds):
        order = list(configs) if round % 2 == 0 else list(reversed(configs))
        for name in order:
            medians[name].append(median_us(configs[name]()))
    native = medians["C++ Session::Run"]
    result = {"iterations": iterations, "rounds": rounds}
    print(f"one Add of 1x8 floats, {rounds} rounds of {iterations} calls (median us per call):")
    for name, values in medians.items():
        entry = {"median_us": statistics.median(values), "rounds_us": values}
        line = f"  {name:26s} {statistics.median(values):7.2f} us"
        if name.startswith("Session"):
            over = [p - n for p, n in zip(values, native)]
            entry["overhead_us"] = statistics.median(over)
            line += (f"   over C++: {statistics.median(over):.2f} us "
                     f"(rounds {min(over):.2f}..{max(over):.2f})")
        result[name] = entry
        print(line)
    return result


def run_for(call, duration, minimum=5):
    times, start = [], time.perf_counter()
    while len(times) < minimum or time.perf_counter() - start < duration:
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def bench_networks(ios, models, rounds, duration, cache_dir, build_dir):
    import onnxruntime as ort
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "generate_models.py"), "--out",
                    os.path.join(build_dir, "models"), "--models", ",".join(models)], check=True,
                   capture_output=True)
    results = {}
    print(f"\nInferenceSession.run in a Python loop, batch 1, CPU, {rounds} rounds of "
          f"{duration} s (median ms per run):")
    for name in models:
        path = os.path.join(build_dir, "models", name + ".onnx")
        start = time.perf_counter()
        ours = ios.InferenceSession(path, cache_dir=cache_dir)
        first_s = time.perf_counter() - start
        loads = []
        for _ in range(3):
            start = time.perf_counter()
            cached = ios.InferenceSession(path, cache_dir=cache_dir)
            loads.append(time.perf_counter() - start)
            assert not cached.compiled
        del cached
        theirs = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        rng = np.random.default_rng(0)
        feeds = {i.name: rng.standard_normal(i.shape).astype(np.float32)
                 for i in ours.get_inputs()}
        for session in (ours, theirs):  # warm up
            for _ in range(3):
                session.run(None, feeds)
        got, expected = ours.run(None, feeds)[0], theirs.run(None, feeds)[0]
        agree = bool(np.all(np.abs(got - expected) <= 1e-5 + 1e-4 * np.abs(expected)))
        ios_ms, ort_ms, ratios = [], [], []
        for round in range(rounds):
            pair = [("ios", ours), ("ort", theirs)]
            if round % 2:
                pair.reverse()
            measured = {label: run_for(lambda s=session: s.run(None, feeds), duration)
                        for label, session in pair}
            ios_ms.append(measured["ios"])
            ort_ms.append(measured["ort"])
            ratios.append(measured["ios"] / measured["ort"])
        results[name] = {
            "ios_ms": statistics.median(ios_ms), "onnxruntime_ms": statistics.median(ort_ms),
            "ratio_median": statistics.median(ratios), "ratio_range": [min(ratios), max(ratios)],
            "first_session_s": first_s, "cached_load_ms": statistics.median(loads) * 1e3,
            "agrees_with_onnxruntime": agree, "plan": os.path.basename(ours.plan_path)}
        r = results[name]
        print(f"  {name:13s} ios {r['ios_ms']:8.2f}  onnxruntime {r['onnxruntime_ms']:8.2f}  "
              f"ios/ort {r['ratio_median']:.2f} ({min(ratios):.2f}..{max(ratios):.2f})  "
              f"first session {first_s:.1f} s, cached {r['cached_load_ms']:.0f} ms"
              f"{'' if agree else '  OUTPUTS DISAGREE'}")
        del ours, theirs
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=20000)
    parser.add_argument("--models", default="inception_v3,squeezenet,randwire,nasnet")
    parser.add_argument("--duration", type=float, default=2.0)
    parser.add_argument("--cache-dir", help="the plan cache (default BUILD/models/ios-cache)")
    parser.add_argument("--skip-networks", action="store_true")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(os.path.abspath(args.build_dir), "python-package"))
    import ios
    print(f"ios {ios.__version__} from {os.path.dirname(ios.__file__)}; "
          f"GOMP_SPINCOUNT={os.environ.get('GOMP_SPINCOUNT', 'unset')}")
    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        report["overhead"] = bench_overhead(ios, args.rounds, args.iterations, tmp)
    if not args.skip_networks:
        cache = args.cache_dir or os.path.join(args.build_dir, "models", "ios-cache")
        report["networks"] = bench_networks(ios, args.models.split(","), args.rounds,
                                            args.duration, cache, args.build_dir)
    if args.json:
        write_atomically(args.json, json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
