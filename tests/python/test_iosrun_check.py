"""End to end against something no one here wrote: onnxruntime runs the original ONNX file,
iosc compiles it, and iosrun --check compares, for the four benchmark networks at batch 1 and 2
under every schedule."""
import os
import sys
import tempfile

from ios_test_util import Tally, ensure_models, parse_args, run

NETWORKS = ["inception_v3", "squeezenet", "randwire", "nasnet"]
SCHEDULES = ["sequential", "greedy"]
BATCHES = ["1", "2"]
# fp32 throughout. oneDNN's convolutions sum in a different order than onnxruntime's MLAS, and
# the networks are 50-100 convolutions deep, so errors of a few ulps per layer accumulate:
# 1e-4 relative (plus 1e-5 absolute for values near zero) holds with a margin on all four.
ATOL, RTOL = "1e-5", "1e-4"


def main():
    args = parse_args()
    tally = Tally()
    models = ensure_models(args, NETWORKS)
    with tempfile.TemporaryDirectory() as tmp:
        for name in NETWORKS:
            for batch in BATCHES:
                ref = os.path.join(tmp, f"{name}_b{batch}")
                result = run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"),
                              models[name], "--out", ref, "--batch", batch])
                if not tally.check(f"{name} b{batch}: onnxruntime reference", result.returncode == 0,
                                   result.stderr):
                    continue
                for schedule in SCHEDULES:
                    plan = os.path.join(tmp, "model.iosplan")
                    label = f"{name} b{batch} {schedule}"
                    result = run([args.iosc, models[name], "--batch", batch, "--schedule", schedule,
                                  "-o", plan])
                    if not tally.check(f"{label}: iosc", result.returncode == 0, result.stderr):
                        continue
                    result = run([args.iosrun, plan, "--check", ref, "--atol", ATOL, "--rtol", RTOL])
                    tally.check(f"{label}: matches onnxruntime", result.returncode == 0,
                                result.stdout + result.stderr)
                    print("   ", result.stdout.strip().splitlines()[0] if result.stdout else "")
                    os.remove(plan)
    tally.finish()


if __name__ == "__main__":
    main()
