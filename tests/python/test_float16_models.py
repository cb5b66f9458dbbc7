"""Float16 models (as `model.half()` exports them) compile and run, computed in float32 with
float16 inputs and outputs. Made from float32 models by scripts/models/to_float16.py: SqueezeNet
(the benchmark network), the detection-style FCN with free height and width (--input-shape), and
the exporter-idioms model. For each: iosc says it computes the float16 values in float32; the
plan's inputs and outputs are float16; iosrun --check matches the float64 oracle
(iosc --reference-outputs) within float16's output rounding (allclose, atol and rtol 1e-3); and,
where onnxruntime has float16 kernels for every op, matches onnxruntime within 1e-2 of the
output's scale (onnxruntime rounds some intermediates to float16)."""
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

from ios_test_util import Tally, ensure_models, parse_args, run

MODELS = {
    # name: (extra iosc/ort_reference flags, does onnxruntime run it in float16?)
    "squeezenet": ([], True),
    "detection_fcn": (["--input-shape", "input:1x3x96x128"], True),
    "exporter_idioms": ([], False),  # onnxruntime: no float16 ScatterND with reduction 'add'
}


def main():
    args = parse_args()
    tally = Tally()
    scripts = os.path.join(args.source_dir, "scripts")
    with tempfile.TemporaryDirectory() as tmp:
        sources = ensure_models(args, ["squeezenet"])
        for generator, name in (("generate_models.py", "detection_fcn"),
                                ("models/exporter_idioms.py", "exporter_idioms")):
            flags = ["--models", name] if generator == "generate_models.py" else []
            made = run([sys.executable, os.path.join(scripts, generator), "--out", tmp] + flags)
            tally.check(f"{name}: generated", made.returncode == 0, made.stdout + made.stderr)
            sources[name] = os.path.join(tmp, name + ".onnx")
        for name, (flags, ort_runs) in MODELS.items():
            model = os.path.join(tmp, name + "_fp16.onnx")
            converted = run([sys.executable, os.path.join(scripts, "models", "to_float16.py"),
                             sources[name], model])
            if not tally.check(f"{name}: converted to float16", converted.returncode == 0,
                               converted.stderr):
                continue
            plan = os.path.join(tmp, name + ".iosplan")
            compiled = run([args.iosc, model, "-o", plan, "--schedule", "greedy"] + flags)
            if not tally.check(f"{name}: iosc", compiled.returncode == 0, compiled.stderr):
                continue
            tally.check(f"{name}: iosc says it computes float16 in float32",
                        "float16 values computed in float32" in compiled.stdout, compiled.stdout)
            info_path = os.path.join(tmp, name + ".json")
            run([args.iosrun, plan, "--info-json", info_path])
            with open(info_path) as f:
                info = json.load(f)
            io_types = [info["tensors"][t]["dtype"] for t in info["inputs"] + info["outputs"]]
            tally.check(f"{name}: the plan's inputs and outputs are float16",
                        io_types and all(t == "FLOAT16" for t in io_types), str(io_types))

            ref = os.path.join(tmp, name + "_ort")
            made = run([sys.executable, os.path.join(scripts, "ort_reference.py"), model,
                        "--out", ref] + flags)
            tally.check(f"{name}: onnxruntime {'runs' if ort_runs else 'cannot run'} it",
                        (made.returncode == 0) == ort_runs, made.stderr[-400:])
            oracle = os.path.join(tmp, name + "_f64")
            os.makedirs(oracle)
            if made.returncode == 0:
                shutil.copy(os.path.join(ref, "input_0.pb"), oracle)
                checked = run([args.iosrun, plan, "--check", ref, "--check-error-stat", "scaled",
                               "--rtol", "1e-2"])
                tally.check(f"{name}: matches onnxruntime (scaled 1e-2)", checked.returncode == 0,
                            checked.stdout + checked.stderr)
            else:
                # Random float16 inputs for the oracle (onnxruntime wrote none).
                m = onnx.load(model)
                dims = [d.dim_value or 1 for d in m.graph.input[0].type.tensor_type.shape.dim]
                x = np.random.default_rng(0).standard_normal(dims).astype(np.float16)
                onnx.save_tensor(numpy_helper.from_array(x, m.graph.input[0].name),
                                 os.path.join(oracle, "input_0.pb"))
            wrote = run([args.iosc, model, "--reference-outputs", oracle] + flags)
            if tally.check(f"{name}: float64 oracle", wrote.returncode == 0, wrote.stderr):
                checked = run([args.iosrun, plan, "--check", oracle, "--atol", "1e-3",
                               "--rtol", "1e-3"])
                tally.check(f"{name}: matches the float64 oracle (allclose 1e-3)",
                            checked.returncode == 0, checked.stdout + checked.stderr)
    tally.finish()


if __name__ == "__main__":
    main()
