"""The activations, heads and upsampling ios took last, end to end against onnxruntime
(scripts/models/cnn_head_ops.py): SpaceToDepth, PRelu, Mish and Softplus (fused into their
convs), Selu (which stays an op), ReduceMax and ReduceSum over H and W (axes as an input),
LogSoftmax, ArgMax (an int64 output) and DepthToSpace (pixel shuffle). For batch 1 and 2, greedy
and the IOS search profiled on this CPU: the plan keeps Selu, PRelu and the head ops (the
ReduceMax over H and W as the GlobalMaxPool canonicalisation makes of it), has fused Mish and
Softplus away, and iosrun --check matches onnxruntime on all three outputs (the largest errors
are printed)."""
import os
import re
import sys
import tempfile

from ios_test_util import Tally, parse_args, plan_ops, run

ATOL, RTOL = "1e-5", "1e-4"


def main():
    args = parse_args()
    tally = Tally()
    scripts = os.path.join(args.source_dir, "scripts")
    with tempfile.TemporaryDirectory() as tmp:
        made = run([sys.executable, os.path.join(scripts, "models", "cnn_head_ops.py"),
                    "--out", tmp])
        if not tally.check("cnn_head_ops.py writes the model", made.returncode == 0,
                           made.stderr):
            tally.finish()
        model = os.path.join(tmp, "cnn_head_ops.onnx")
        for batch in ("1", "2"):
            ref = os.path.join(tmp, f"ref_b{batch}")
            reference = run([sys.executable, os.path.join(scripts, "ort_reference.py"), model,
                             "--out", ref, "--batch", batch])
            if not tally.check(f"b{batch}: onnxruntime reference", reference.returncode == 0,
                               reference.stderr):
                continue
            for schedule in ("greedy", "ios"):
                label = f"b{batch} {schedule}"
                plan = os.path.join(tmp, f"{batch}_{schedule}.iosplan")
                compiled = run([args.iosc, model, "--batch", batch, "--schedule", schedule,
                                "--device", "cpu", "-o", plan])
                if not tally.check(f"{label}: iosc", compiled.returncode == 0, compiled.stderr):
                    continue
                ops = plan_ops(args, plan, tmp)
                tally.check(f"{label}: Mish and Softplus fused into their convs",
                            "Mish" not in ops and "Softplus" not in ops, str(sorted(ops)))
                kept = ["SpaceToDepth", "PRelu", "Selu", "GlobalMaxPool", "ReduceSum",
                        "LogSoftmax", "ArgMax", "DepthToSpace"]
                tally.check(f"{label}: Selu, PRelu and the head ops stay",
                            all(ops.count(op) == 1 for op in kept) and "ReduceMax" not in ops,
                            str(sorted(ops)))
                checked = run([args.iosrun, plan, "--check", ref, "--atol", ATOL, "--rtol", RTOL])
                errors = re.findall(r"'(\w+)': abs error max (\S+)", checked.stdout)
                print(f"  {label}: max abs error " +
                      ", ".join(f"{name} {value}" for name, value in errors))
                tally.check(f"{label}: matches onnxruntime on 3 outputs",
                            checked.returncode == 0 and len(errors) == 3,
                            checked.stdout + checked.stderr)
    tally.finish()


if __name__ == "__main__":
    main()
