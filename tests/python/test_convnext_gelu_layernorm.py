"""Gelu and LayerNormalization end to end, against onnxruntime: a small ConvNeXt-style network
(scripts/models/convnext_block.py) written three ways (the Gelu and LayerNormalization ops at
opset 20, GELU as the Erf subgraph at opset 17, everything decomposed at opset 13). For each, at
batch 1 and 2: iosc compiles it (greedy, and the IOS search profiled on this CPU), the
canonicalised: line reports the fusions the variant should get, the plan holds the fused ops,
and iosrun --check matches onnxruntime on the original file; the same with the two fusions
turned off (the Erf, Tanh, Pow and ReduceMean kernels run instead); and --emit-onnx (the fused
nodes written back for the model's opset) matches onnxruntime too."""
import os
import re
import sys
import tempfile

from ios_test_util import Tally, parse_args, plan_ops, run

ATOL, RTOL = "1e-5", "1e-4"
UNFUSED = "fold-constants,eliminate-identity,fold-batchnorm,fuse-activation"


def fusions(stdout):
    match = re.search(r"(\d+) GELUs fused, (\d+) LayerNorms fused", stdout)
    return (int(match.group(1)), int(match.group(2))) if match else None


def max_abs_errors(stdout):
    return [float(e) for e in re.findall(r"max abs error ([0-9.e+-]+)", stdout)]


def check_plan(tally, args, label, model, ref, batch, flags, tmp, worst):
    plan = os.path.join(tmp, "model.iosplan")
    compiled = run([args.iosc, model, "--batch", batch, "-o", plan] + flags)
    if not tally.check(f"{label}: iosc", compiled.returncode == 0, compiled.stderr):
        return None, None
    checked = run([args.iosrun, plan, "--check", ref, "--atol", ATOL, "--rtol", RTOL])
    tally.check(f"{label}: matches onnxruntime", checked.returncode == 0,
                checked.stdout + checked.stderr)
    errors = max_abs_errors(checked.stdout)
    worst[label] = max(errors) if errors else float("nan")
    return compiled.stdout, plan_ops(args, plan, tmp)


def main():
    args = parse_args()
    sys.path.insert(0, os.path.join(args.source_dir, "scripts"))
    from models import convnext_block  # noqa: E402 (scripts/ is not a package on the path)

    tally = Tally()
    worst = {}
    with tempfile.TemporaryDirectory() as tmp:
        generated = run([sys.executable, os.path.join(args.source_dir, "scripts", "models",
                                                      "convnext_block.py"), "--out", tmp])
        if not tally.check("convnext_block.py writes the models", generated.returncode == 0,
                           generated.stderr):
            tally.finish()
        for variant, (gelus, norms) in convnext_block.EXPECTED_FUSIONS.items():
            model = os.path.join(tmp, f"convnext_{variant}.onnx")
            for batch in ("1", "2"):
                ref = os.path.join(tmp, f"ref_{variant}_b{batch}")
                made = run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"),
                            model, "--out", ref, "--batch", batch])
                if not tally.check(f"{variant} b{batch}: onnxruntime reference", made.returncode == 0,
                                   made.stderr):
                    continue
                for schedule in ("greedy", "ios"):
                    label = f"{variant} b{batch} {schedule}"
                    stdout, ops = check_plan(tally, args, label, model, ref, batch,
                                             ["--schedule", schedule], tmp, worst)
                    if stdout is None:
                        continue
                    tally.check(f"{label}: {gelus} GELUs and {norms} LayerNorms fused",
                                fusions(stdout) == (gelus, norms), stdout)
                    tally.check(f"{label}: the plan runs 2 Gelu and 2 LayerNormalization ops",
                                ops.count("Gelu") == 2 and ops.count("LayerNormalization") == 2,
                                str(sorted(set(ops))))
                label = f"{variant} b{batch} unfused"
                stdout, ops = check_plan(tally, args, label, model, ref, batch,
                                         ["--schedule", "greedy", "--passes", UNFUSED], tmp, worst)
                if stdout is not None:
                    tally.check(f"{label}: no fusion", fusions(stdout) == (0, 0), stdout)
                    if variant != "opset20_ops":
                        tally.check(f"{label}: the plan runs the Erf subgraph", "Erf" in ops,
                                    str(sorted(set(ops))))
            emitted = os.path.join(tmp, f"canonical_{variant}.onnx")
            result = run([args.iosc, model, "--batch", "2", "--emit-onnx", emitted])
            if tally.check(f"{variant}: iosc --emit-onnx", result.returncode == 0, result.stderr):
                compare = run([sys.executable,
                               os.path.join(args.source_dir, "scripts", "compare_onnx_models.py"),
                               model, emitted, "--batch", "2", "--atol", ATOL, "--rtol", RTOL])
                tally.check(f"{variant}: the emitted graph matches onnxruntime", compare.returncode == 0,
                            compare.stdout + compare.stderr)
    print("max abs error against onnxruntime (over both outputs):")
    for label, error in worst.items():
        print(f"    {label}: {error:.3g}")
    tally.finish()


if __name__ == "__main__":
    main()
