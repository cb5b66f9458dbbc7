"""The idioms today's PyTorch exporters write around CNNs, end to end against onnxruntime
(scripts/models/exporter_idioms.py): shape arithmetic with Mod (Swin/ViT padding to a window
multiple), weight standardisation through BatchNormalization in training mode (NFNet, timm's
ScaledStdConv under the legacy exporter), a ScatterND-built attention mask, and ScatterND
(reduction add) and a float Mod on activations. For batch 1 and 2, greedy and the IOS search
profiled on this CPU: iosc folds every constant idiom (the plan holds no BatchNormalization,
Shape or ConstantOfShape, and exactly the two run-time Mod and ScatterND nodes), and iosrun
--check matches onnxruntime on both outputs. Also: an out-of-range constant ScatterND index is
refused at compile time naming the node (exit 2, no plan)."""
import os
import sys
import tempfile

from ios_test_util import Tally, parse_args, plan_ops, run

ATOL, RTOL = "1e-5", "1e-4"


def main():
    args = parse_args()
    tally = Tally()
    scripts = os.path.join(args.source_dir, "scripts")
    with tempfile.TemporaryDirectory() as tmp:
        made = run([sys.executable, os.path.join(scripts, "models", "exporter_idioms.py"),
                    "--out", tmp])
        if not tally.check("exporter_idioms.py writes the model", made.returncode == 0,
                           made.stderr):
            tally.finish()
        model = os.path.join(tmp, "exporter_idioms.onnx")
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
                folded = not {"BatchNormalization", "Shape", "ConstantOfShape"} & set(ops)
                tally.check(f"{label}: the constant idioms fold", folded, str(sorted(ops)))
                tally.check(f"{label}: the run-time Mod and ScatterND remain",
                            ops.count("Mod") == 1 and ops.count("ScatterND") == 1,
                            str(sorted(ops)))
                checked = run([args.iosrun, plan, "--check", ref, "--atol", ATOL, "--rtol", RTOL])
                tally.check(f"{label}: matches onnxruntime", checked.returncode == 0,
                            checked.stdout + checked.stderr)

        import onnx
        from onnx import numpy_helper
        import numpy as np
        bad = onnx.load(model)
        for i, init in enumerate(bad.graph.initializer):
            if init.name == "mask_rows":
                bad.graph.initializer[i].CopyFrom(numpy_helper.from_array(
                    np.array([[0, 0, 14], [0, 0, 99]], np.int64), "mask_rows"))
        bad_path = os.path.join(tmp, "bad_scatter.onnx")
        onnx.save(bad, bad_path)
        bad_plan = os.path.join(tmp, "bad.iosplan")
        refused = run([args.iosc, bad_path, "-o", bad_plan])
        tally.check("an out-of-range ScatterND index: exit 2 naming the file, node and index",
                    refused.returncode == 2 and "bad_scatter.onnx" in refused.stderr
                    and "'mask'" in refused.stderr and "99" in refused.stderr, refused.stderr)
        tally.check("... and no plan written", not os.path.exists(bad_plan))
    tally.finish()


if __name__ == "__main__":
    main()
