#!/usr/bin/env python3
"""Checks a model whose weights pass protobuf's 2 GiB limit, end to end, and prints figures.

    python3 scripts/check_large_model.py [--gib 2.5] [--build-dir build] [--work DIR]

Writes a MatMul model (input [1, K] times a [K, N] weight of about --gib GiB, plus a bias)
saved with external data, as exporters save large models, then:
  1. iosc compiles it (--device cpu --schedule sequential: no profiling needed);
  2. iosrun --check runs the plan against a float64 numpy reference;
and prints the plan's size, and each tool's wall time and peak memory (from /proc's VmHWM), so
that "the weights are not held twice" can be read off: the peak should stay near one copy of the
weights. Too slow and large for CI; run it by hand. Needs about 3 x --gib of free disk.
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_model(work, gib, seed=0):
    k = 16384
    n = int(gib * (1 << 30) / (4 * k))
    rng = np.random.default_rng(seed)
    data_path = os.path.join(work, "large.onnx.data")
    weight = np.lib.format.open_memmap(os.path.join(work, "weight.npy"), mode="w+",
                                       dtype=np.float32, shape=(k, n))
    for row in range(0, k, 1024):
        weight[row:row + 1024] = rng.standard_normal((min(1024, k - row), n), dtype=np.float32)
    weight.flush()
    bias = rng.standard_normal(n, dtype=np.float32)
    with open(data_path, "wb") as f:
        f.write(np.ascontiguousarray(weight).tobytes(order="C"))
        bias_offset = f.tell()
        f.write(bias.tobytes())
    tensors = []
    for name, dims, offset, length in (("w", [k, n], 0, k * n * 4),
                                       ("b", [n], bias_offset, n * 4)):
        t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims,
                        data_location=TensorProto.EXTERNAL)
        for key, value in (("location", "large.onnx.data"), ("offset", str(offset)),
                           ("length", str(length))):
            t.external_data.add(key=key, value=value)
        tensors.append(t)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["xw"], name="matmul"),
         helper.make_node("Add", ["xw", "b"], ["y"], name="bias")], "large",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])], tensors)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = os.path.join(work, "large.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    x = rng.standard_normal((1, k), dtype=np.float32)
    y = (x.astype(np.float64) @ weight.astype(np.float64) + bias).astype(np.float64)
    ref = os.path.join(work, "ref")
    os.makedirs(ref, exist_ok=True)
    with open(os.path.join(ref, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    with open(os.path.join(ref, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())
    del weight
    os.remove(os.path.join(work, "weight.npy"))
    return path, ref, k * n * 4 + n * 4


def run_measured(cmd):
    """Runs cmd; returns (exit status, seconds, peak RSS in bytes, output)."""
    start = time.time()
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    peak = 0
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]) * 1024)
        except OSError:
            pass
        time.sleep(0.05)
    out = proc.stdout.read()
    return proc.returncode, time.time() - start, peak, out


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gib", type=float, default=2.5)
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default="/tmp/ios_large_model")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    model, ref, weight_bytes = build_model(args.work, args.gib)
    print(f"model: {model} (+ large.onnx.data, {weight_bytes / 2**30:.2f} GiB of weights)")
    plan = os.path.join(args.work, "large.iosplan")
    status, seconds, peak, out = run_measured(
        [os.path.join(args.build_dir, "tools", "iosc"), model, "--device", "cpu", "--schedule",
         "sequential", "-o", plan])
    print(f"iosc: exit {status}, {seconds:.1f} s, peak memory {peak / 2**30:.2f} GiB")
    if status != 0:
        print(out)
        return 1
    print(f"plan: {os.path.getsize(plan) / 2**30:.2f} GiB")
    status, seconds, peak, out = run_measured(
        [os.path.join(args.build_dir, "tools", "iosrun"), plan, "--check", ref, "--rtol", "1e-5",
         "--atol", "1e-3"])
    print(f"iosrun --check: exit {status}, {seconds:.1f} s, peak memory {peak / 2**30:.2f} GiB")
    print("\n".join(line for line in out.splitlines() if "check" in line or "output 0" in line))
    return status


if __name__ == "__main__":
    sys.exit(main())
