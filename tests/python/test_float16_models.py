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
from types import SimpleNamespace

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from ios_tools.cli import check_run, run

MODELS = {
    # name: (extra iosc/ort_reference flags, does onnxruntime run it in float16?)
    "squeezenet": ([], True),
    "detection_fcn": (["--input-shape", "input:1x3x96x128"], True),
    "exporter_idioms": ([], False),  # onnxruntime: no float16 ScatterND with reduction 'add'
}


def float32_source(name, source_dir, models, tmp):
    """The float32 model the float16 one is made from."""
    scripts = os.path.join(source_dir, "scripts")
    if name == "squeezenet":
        return models(["squeezenet"])["squeezenet"]
    if name == "detection_fcn":
        check_run([sys.executable, os.path.join(scripts, "generate_models.py"), "--out", tmp,
                   "--models", name], "generate_models.py")
    else:
        check_run([sys.executable, os.path.join(scripts, "models", "exporter_idioms.py"),
                   "--out", tmp], "exporter_idioms.py")
    return os.path.join(tmp, name + ".onnx")


@pytest.fixture(scope="module", params=list(MODELS))
def fp16(request, source_dir, models, iosc, iosrun, tmp_path_factory):
    """One model converted to float16 (scripts/models/to_float16.py), its greedy plan, the plan's
    summary, onnxruntime's attempt at a reference, and a folder for the float64 oracle holding
    the input it runs on."""
    name = request.param
    flags, ort_runs = MODELS[name]
    tmp = tmp_path_factory.mktemp(name)
    model = str(tmp / (name + "_fp16.onnx"))
    check_run([sys.executable, os.path.join(source_dir, "scripts", "models", "to_float16.py"),
               float32_source(name, source_dir, models, str(tmp)), model], "to_float16.py")
    plan = str(tmp / "plan.iosplan")
    compiled = check_run([iosc, model, "-o", plan, "--schedule", "greedy"] + flags, "iosc")
    check_run([iosrun, plan, "--info-json", tmp / "info.json"], "iosrun --info-json")
    ref = str(tmp / "ort")
    made = run([sys.executable, os.path.join(source_dir, "scripts", "ort_reference.py"), model,
                "--out", ref] + flags)
    oracle = tmp / "f64"
    oracle.mkdir()
    if made.returncode == 0:
        shutil.copy(os.path.join(ref, "input_0.pb"), oracle)
    else:
        # Random float16 inputs for the oracle (onnxruntime wrote none).
        m = onnx.load(model)
        dims = [d.dim_value or 1 for d in m.graph.input[0].type.tensor_type.shape.dim]
        x = np.random.default_rng(0).standard_normal(dims).astype(np.float16)
        onnx.save_tensor(numpy_helper.from_array(x, m.graph.input[0].name),
                         str(oracle / "input_0.pb"))
    return SimpleNamespace(name=name, flags=flags, ort_runs=ort_runs, model=model, plan=plan,
                           compiled=compiled, info=json.loads((tmp / "info.json").read_text()),
                           ref=ref, ort=made, oracle=str(oracle))


def test_iosc_says_it_computes_float16_in_float32(fp16):
    assert "float16 values computed in float32" in fp16.compiled.stdout, fp16.compiled.stdout


def test_the_plans_inputs_and_outputs_are_float16(fp16):
    io_types = [fp16.info["tensors"][t]["dtype"] for t in fp16.info["inputs"] +
                fp16.info["outputs"]]
    assert io_types and all(t == "FLOAT16" for t in io_types), io_types


def test_onnxruntime_runs_it_where_it_has_float16_kernels(fp16):
    assert (fp16.ort.returncode == 0) == fp16.ort_runs, fp16.ort.stderr[-400:]


def test_matches_onnxruntime_scaled_1e_2(fp16, iosrun):
    if fp16.ort.returncode != 0:
        pytest.skip("onnxruntime cannot run it")
    checked = run([iosrun, fp16.plan, "--check", fp16.ref, "--check-error-stat", "scaled",
                   "--rtol", "1e-2"])
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_matches_the_float64_oracle_allclose_1e_3(fp16, iosc, iosrun):
    check_run([iosc, fp16.model, "--reference-outputs", fp16.oracle] + fp16.flags,
              "iosc --reference-outputs")
    checked = run([iosrun, fp16.plan, "--check", fp16.oracle, "--atol", "1e-3", "--rtol",
                   "1e-3"])
    assert checked.returncode == 0, checked.stdout + checked.stderr
