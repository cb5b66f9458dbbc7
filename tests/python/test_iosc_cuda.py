"""iosc --device N. Without a CUDA device (every machine of this project): exit status 2, a
message starting "no CUDA device", and no plan file (an existing one survives untouched), for
every schedule. With a device: a bundled model compiles, and the plan records the CUDA
fingerprint and --tf32, no conv algorithm by default (cuDNN's heuristic at load), and a measured
algorithm for every Conv op with --conv-algorithms measure."""
import json
import os
import tempfile

from ios_test_util import Tally, cuda_device_count, parse_args, run

MODEL = os.path.join("testdata", "models", "residual_blocks_opset17.onnx")


def check_without_device(args, tally, model, tmp):
    for schedule in ("ios", "greedy", "sequential"):
        plan = os.path.join(tmp, f"{schedule}.iosplan")
        result = run([args.iosc, model, "--device", "0", "--schedule", schedule, "-o", plan])
        tally.check(f"{schedule}: exit status 2", result.returncode == 2,
                    f"got {result.returncode}: {result.stderr}")
        tally.check(f"{schedule}: says 'no CUDA device'", "no CUDA device" in result.stderr,
                    result.stderr)
        tally.check(f"{schedule}: no plan file", not os.path.exists(plan))
    # The other spellings iosrun also takes name the same device.
    for device in ("cuda", "cuda:0"):
        result = run([args.iosc, model, "--device", device, "-o", os.path.join(tmp, "x.iosplan")])
        tally.check(f"--device {device}: exit status 2, 'no CUDA device'",
                    result.returncode == 2 and "no CUDA device" in result.stderr, result.stderr)
    # An ordinal too long to be one is a bad --device value, not a crash.
    result = run([args.iosc, model, "--device", "99999999999", "-o", os.path.join(tmp, "x.iosplan")])
    tally.check("--device 99999999999: exit status 2, names the value",
                result.returncode == 2 and "99999999999" in result.stderr, result.stderr)
    existing = os.path.join(tmp, "existing.iosplan")
    with open(existing, "w") as f:
        f.write("precious")
    result = run([args.iosc, model, "--device", "0", "-o", existing, "--tf32", "off"])
    tally.check("--tf32 off: still exit status 2 without a device", result.returncode == 2,
                result.stderr)
    with open(existing) as f:
        tally.check("existing plan file untouched", f.read() == "precious")


def check_with_device(args, tally, model, tmp):
    for tf32 in ("on", "off"):
        plan = os.path.join(tmp, f"ios_{tf32}.iosplan")
        result = run([args.iosc, model, "--device", "0", "--tf32", tf32, "-o", plan])
        if not tally.check(f"tf32 {tf32}: compiles", result.returncode == 0, result.stderr):
            continue
        info = os.path.join(tmp, f"ios_{tf32}.json")
        result = run([args.iosrun, plan, "--info-json", info])
        if not tally.check(f"tf32 {tf32}: iosrun reads the plan", result.returncode == 0,
                           result.stderr):
            continue
        with open(info) as f:
            p = json.load(f)
        device = p["device"]
        # Protobuf's JSON mapping writes 64-bit integers (cudnn_version) as strings.
        tally.check(f"tf32 {tf32}: CUDA fingerprint", device["kind"] == "cuda" and
                    device["gpu_name"] and device["compute_major"] >= 7 and
                    device["multiprocessors"] > 0 and int(device["cudnn_version"]) > 0,
                    str(device))
        tally.check(f"tf32 {tf32}: stage latencies from the CUDA profiler",
                    p["stage_latencies"] and
                    all(s["source"] == "cuda-profiler" for s in p["stage_latencies"]),
                    str(p["stage_latencies"][:3]))
        cuda = p.get("cuda", {})
        tally.check(f"tf32 {tf32}: allow_tf32 recorded",
                    cuda.get("allow_tf32", False) == (tf32 == "on"), str(cuda)[:200])
        tally.check(f"tf32 {tf32}: no recorded conv algorithm (cuDNN's heuristic at load)",
                    not cuda.get("conv_algorithms"), str(cuda)[:200])
    # --conv-algorithms measure records one measured algorithm per Conv op.
    plan = os.path.join(tmp, "measured.iosplan")
    result = run([args.iosc, model, "--device", "0", "--schedule", "sequential",
                  "--conv-algorithms", "measure", "-o", plan])
    if tally.check("measure: compiles", result.returncode == 0, result.stderr):
        info = os.path.join(tmp, "measured.json")
        result = run([args.iosrun, plan, "--info-json", info])
        if tally.check("measure: iosrun reads the plan", result.returncode == 0, result.stderr):
            with open(info) as f:
                p = json.load(f)
            convs = sorted(i for i, op in enumerate(p["ops"]) if op["op_type"] == "Conv")
            measured = sorted(a["op"] for a in p.get("cuda", {}).get("conv_algorithms", []))
            tally.check("measure: one algorithm per Conv op", convs and measured == convs,
                        f"convs {convs}, measured {measured}")
    plan = os.path.join(tmp, "sequential.iosplan")
    result = run([args.iosc, model, "--device", "0", "--schedule", "sequential", "-o", plan])
    tally.check("sequential: compiles without profiling", result.returncode == 0, result.stderr)


def main():
    args = parse_args()
    tally = Tally()
    model = os.path.join(args.source_dir, MODEL)
    with tempfile.TemporaryDirectory() as tmp:
        result = run([args.iosc, model, "--device", "0", "--tf32", "maybe", "-o",
                      os.path.join(tmp, "x.iosplan")])
        tally.check("--tf32 takes on|off only", result.returncode == 2, result.stderr)
        result = run([args.iosc, model, "--device", "0", "--conv-algorithms", "fastest", "-o",
                      os.path.join(tmp, "x.iosplan")])
        tally.check("--conv-algorithms takes measure|heuristic only",
                    result.returncode == 2 and "--conv-algorithms" in result.stderr,
                    result.stderr)
        if cuda_device_count() > 0:
            check_with_device(args, tally, model, tmp)
        else:
            print("no CUDA device here: checking the clean refusal")
            check_without_device(args, tally, model, tmp)
    tally.finish()


if __name__ == "__main__":
    main()
