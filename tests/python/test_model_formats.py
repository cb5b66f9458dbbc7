"""Models as today's exporters write them, end to end against onnxruntime (CPU backend):
  - external data: weights in one file in a subfolder, and in one file per tensor (what
    onnx.save(..., save_as_external_data=True) and torch.onnx.export(..., dynamo=True) write);
    the plan carries the weights, so it still runs after the .data files are gone;
  - free input size: the detection-style network of scripts/models/detection_fcn.py has
    symbolic height and width; without --input-shape iosc names the free dimension, with it the
    plan matches onnxruntime at two sizes and batch 2.
Each plan passes `iosrun --check` against ort_reference.py's output for the same shapes."""
import os
import shutil
import sys
import tempfile

from ios_test_util import Tally, parse_args, run


def reference(args, model, out, flags):
    return run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"),
                model, "--out", out] + flags)


def compile_and_check(tally, args, label, model, tmp, iosc_flags=(), ref_flags=()):
    """Compiles `model`, checks it against onnxruntime; returns the plan path or None."""
    plan = os.path.join(tmp, label.replace(" ", "_") + ".iosplan")
    result = run([args.iosc, model, "-o", plan, "--schedule", "greedy"] + list(iosc_flags))
    if not tally.check(f"{label}: iosc compiles", result.returncode == 0, result.stderr):
        return None
    ref = os.path.join(tmp, label.replace(" ", "_") + "_ref")
    result = reference(args, model, ref, list(ref_flags))
    if not tally.check(f"{label}: onnxruntime reference", result.returncode == 0, result.stderr):
        return None
    result = run([args.iosrun, plan, "--check", ref])
    tally.check(f"{label}: iosrun --check passes", result.returncode == 0,
                result.stdout + result.stderr)
    return plan, ref


def check_external_data(tally, args, tmp):
    import onnx
    source = os.path.join(args.source_dir, "testdata", "models", "residual_blocks_opset17.onnx")
    layouts = {
        "one file in a subfolder": dict(all_tensors_to_one_file=True,
                                        location=os.path.join("weights", "model.bin")),
        "one file per tensor": dict(all_tensors_to_one_file=False),
    }
    for label, options in layouts.items():
        folder = os.path.join(tmp, label.replace(" ", "_"))
        os.makedirs(os.path.join(folder, "weights"))
        path = os.path.join(folder, "model.onnx")
        onnx.save(onnx.load(source), path, save_as_external_data=True, size_threshold=0,
                  **options)
        saved = onnx.load(path, load_external_data=False)
        external = [t for t in saved.graph.initializer
                    if t.data_location == onnx.TensorProto.EXTERNAL]
        files = {e.value for t in external for e in t.external_data if e.key == "location"}
        tally.check(f"external data, {label}: every weight is external",
                    len(external) == len(saved.graph.initializer) and external, len(external))
        tally.check(f"external data, {label}: {len(files)} data file(s)",
                    len(files) == (1 if options["all_tensors_to_one_file"] else len(external)))
        done = compile_and_check(tally, args, f"external data, {label}", path, tmp)
        if not done:
            continue
        plan, ref = done
        # The plan is self-contained: the data files are no longer needed.
        for name in os.listdir(folder):
            if name != "model.onnx":
                full = os.path.join(folder, name)
                shutil.rmtree(full) if os.path.isdir(full) else os.remove(full)
        result = run([args.iosrun, plan, "--check", ref])
        tally.check(f"external data, {label}: the plan runs without the data files",
                    result.returncode == 0, result.stdout + result.stderr)


def check_free_dims(tally, args, tmp):
    result = run([sys.executable, os.path.join(args.source_dir, "scripts", "generate_models.py"),
                  "--out", tmp, "--models", "detection_fcn"])
    if not tally.check("detection_fcn generated", result.returncode == 0, result.stderr):
        return
    model = os.path.join(tmp, "detection_fcn.onnx")
    result = run([args.iosc, model, "-o", os.path.join(tmp, "free.iosplan")])
    tally.check("free H and W without --input-shape: exit status 2", result.returncode == 2,
                result.stderr)
    tally.check("free H and W: names the input, dimension, symbol and flag",
                all(s in result.stderr for s in ("input 'input'", "dimension 2",
                                                 "'height'", "--input-shape input:")),
                result.stderr)
    tally.check("free H and W: no plan written", not os.path.exists(
        os.path.join(tmp, "free.iosplan")))
    for shape in ("1x3x96x128", "2x3x64x80"):
        compile_and_check(tally, args, f"free H and W at {shape}", model, tmp,
                          ["--input-shape", f"input:{shape}"],
                          ["--input-shape", f"input:{shape}"])


def main():
    args = parse_args()
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        check_external_data(tally, args, tmp)
        check_free_dims(tally, args, tmp)
    tally.finish()


if __name__ == "__main__":
    main()
