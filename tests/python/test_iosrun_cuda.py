"""iosrun on a GPU. Without a device (every machine of this project): `--device 0`, `--device
cuda` and `--device cuda:0` fail cleanly with "no CUDA device", the CUDA error text and exit
status 2, whatever the plan. With one: --check against onnxruntime passes with a CUDA Graph and
with replayed commands, and --bench --export-json reports the GPU figures."""
import json
import os
import sys
import tempfile

from ios_test_util import Tally, cuda_device_count, parse_args, run

MODEL = "residual_blocks_opset17.onnx"


def check_no_device(tally, args, plan):
    for device in ("0", "cuda", "cuda:0"):
        result = run([args.iosrun, plan, "--device", device])
        label = f"--device {device} without a GPU"
        tally.check(f"{label}: exit status 2", result.returncode == 2,
                    f"got {result.returncode}: {result.stdout} {result.stderr}")
        tally.check(f"{label}: says 'no CUDA device'", "no CUDA device" in result.stderr,
                    result.stderr)
        # The CUDA runtime's own words (e.g. cudaErrorNoDevice, "no CUDA-capable device"), or
        # the reason a build without CUDA gives.
        tally.check(f"{label}: gives the CUDA error text",
                    "cuda" in result.stderr.lower().replace("no cuda device", ""), result.stderr)
        tally.check(f"{label}: prints no outputs", result.stdout == "", result.stdout)
    result = run([args.iosrun, plan, "--device", "0", "--bench", "--no-cuda-graph",
                  "--include-transfers"])
    tally.check("GPU flags without a GPU: exit status 2", result.returncode == 2, result.stderr)


def check_on_device(tally, args, model, plan, tmp):
    ref = os.path.join(tmp, "ref")
    result = run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"),
                  model, "--out", ref, "--batch", "1"])
    if not tally.check("onnxruntime reference", result.returncode == 0, result.stderr):
        return
    # With TF32 off the GPU computes in float32 like the reference, and the tight tolerance
    # holds. TF32 (the default, as in onnxruntime's CUDA EP) keeps 10 mantissa bits, about 5e-4
    # relative error per product, so its plan is checked with a tolerance that allows for that
    # over a network, and still catches a wrong kernel or a race (errors of order 1).
    tolerances = {"off": ("1e-4", "1e-3"), "on": ("2e-2", "2e-2")}
    plans = {}
    for tf32, (atol, rtol) in tolerances.items():
        plans[tf32] = os.path.join(tmp, f"gpu_tf32_{tf32}.iosplan")
        result = run([args.iosc, model, "--device", "0", "--tf32", tf32, "-o", plans[tf32]])
        if not tally.check(f"iosc --device 0 --tf32 {tf32}", result.returncode == 0,
                           result.stderr):
            return
        for flags in ([], ["--no-cuda-graph"], ["--max-streams", "1"]):
            result = run([args.iosrun, plans[tf32], "--device", "0", "--check", ref,
                          "--atol", atol, "--rtol", rtol] + flags)
            tally.check(f"--check on the GPU, TF32 {tf32} {' '.join(flags)}: passes",
                        result.returncode == 0, result.stdout + result.stderr)
    gpu_plan = plans["on"]
    report = os.path.join(tmp, "bench.json")
    result = run([args.iosrun, gpu_plan, "--device", "0", "--bench", "--duration", "0.2",
                  "--warmup-ms", "50", "--include-transfers", "--export-json", report])
    if not tally.check("--bench on the GPU", result.returncode == 0, result.stderr):
        return
    for line in ("GPU Compute Time:", "Enqueue Time:", "Latency:", "Throughput:"):
        tally.check(f"--bench prints {line}", line in result.stdout, result.stdout)
    data = json.load(open(report))
    gpu = data.get("gpu", {})
    tally.check("JSON has the GPU figures",
                all(k in gpu for k in ("gpu_compute_ms", "host_latency_ms", "enqueue_ms")), data)
    tally.check("JSON: CUDA Graph and transfers", gpu.get("cuda_graph") is True
                and gpu.get("include_transfers") is True, gpu)
    tally.check("JSON: compute within host latency",
                gpu["gpu_compute_ms"]["median"] <= gpu["host_latency_ms"]["median"] * 1.05, gpu)
    tally.check("JSON: device", data.get("device") == "cuda:0", data)


def main():
    args = parse_args()
    tally = Tally()
    model = os.path.join(args.source_dir, "testdata", "models", MODEL)
    with tempfile.TemporaryDirectory() as tmp:
        plan = os.path.join(tmp, "cpu.iosplan")
        result = run([args.iosc, model, "-o", plan])
        if not tally.check("iosc writes a CPU plan", result.returncode == 0, result.stderr):
            tally.finish()
        if cuda_device_count() == 0:
            check_no_device(tally, args, plan)
            # The CPU path is unchanged by the GPU flags' existence.
            result = run([args.iosrun, plan, "--device", "cpu"])
            tally.check("--device cpu still runs", result.returncode == 0, result.stderr)
        else:
            result = run([args.iosrun, plan, "--device", "0"])
            tally.check("a CPU plan on the GPU is refused without --force",
                        result.returncode == 2 and "--force" in result.stderr, result.stderr)
            check_on_device(tally, args, model, plan, tmp)
    tally.finish()


if __name__ == "__main__":
    main()
