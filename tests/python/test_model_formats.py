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

import onnx
import pytest

from ios_tools.cli import check_run, ort_reference, run

SOURCE = os.path.join("testdata", "models", "residual_blocks_opset17.onnx")
LAYOUTS = {
    "one file in a subfolder": dict(all_tensors_to_one_file=True,
                                    location=os.path.join("weights", "model.bin")),
    "one file per tensor": dict(all_tensors_to_one_file=False),
}


def compile_and_reference(iosc, model, tmp, iosc_flags=(), ref_flags=()):
    """Compiles `model` (greedy) and makes onnxruntime's reference: (plan, reference folder)."""
    plan = str(tmp / "model.iosplan")
    check_run([iosc, model, "-o", plan, "--schedule", "greedy"] + list(iosc_flags), "iosc")
    return plan, ort_reference(model, tmp / "ref", *ref_flags)


@pytest.fixture(scope="module", params=list(LAYOUTS))
def external(request, source_dir, tmp_path_factory):
    """The model saved with its weights external in one layout: (label, folder, path)."""
    folder = tmp_path_factory.mktemp("external")
    os.makedirs(folder / "weights")
    path = str(folder / "model.onnx")
    onnx.save(onnx.load(os.path.join(source_dir, SOURCE)), path, save_as_external_data=True,
              size_threshold=0, **LAYOUTS[request.param])
    return request.param, folder, path


def test_external_data_every_weight_is_external(external):
    saved = onnx.load(external[2], load_external_data=False)
    outside = [t for t in saved.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    assert outside and len(outside) == len(saved.graph.initializer)


def test_external_data_files(external):
    """One data file, or one per tensor."""
    saved = onnx.load(external[2], load_external_data=False)
    outside = [t for t in saved.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    files = {e.value for t in outside for e in t.external_data if e.key == "location"}
    one_file = LAYOUTS[external[0]]["all_tensors_to_one_file"]
    assert len(files) == (1 if one_file else len(outside))


def test_external_data_plan_checks_and_runs_without_the_data_files(external, iosc, iosrun,
                                                                   tmp_path):
    """The plan passes --check, and it is self-contained: the data files are no longer needed."""
    label, folder, path = external
    plan, ref = compile_and_reference(iosc, path, tmp_path)
    result = run([iosrun, plan, "--check", ref])
    assert result.returncode == 0, result.stdout + result.stderr
    for name in os.listdir(folder):
        if name != "model.onnx":
            full = os.path.join(folder, name)
            shutil.rmtree(full) if os.path.isdir(full) else os.remove(full)
    result = run([iosrun, plan, "--check", ref])
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def detection_fcn(source_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("detection_fcn")
    check_run([sys.executable, os.path.join(source_dir, "scripts", "generate_models.py"),
               "--out", out, "--models", "detection_fcn"], "generate_models.py")
    return str(out / "detection_fcn.onnx")


def test_free_h_and_w_without_input_shape_is_refused(detection_fcn, iosc, tmp_path):
    """Exit status 2, a message naming the input, dimension, symbol and flag, no plan."""
    plan = tmp_path / "free.iosplan"
    result = run([iosc, detection_fcn, "-o", plan])
    assert result.returncode == 2, result.stderr
    assert all(s in result.stderr for s in ("input 'input'", "dimension 2", "'height'",
                                            "--input-shape input:")), result.stderr
    assert not plan.exists()


@pytest.mark.parametrize("shape", ["1x3x96x128", "2x3x64x80"])
def test_free_h_and_w_at_a_shape_matches_onnxruntime(detection_fcn, shape, iosc, iosrun,
                                                     tmp_path):
    flags = ["--input-shape", f"input:{shape}"]
    plan, ref = compile_and_reference(iosc, detection_fcn, tmp_path, flags, flags)
    result = run([iosrun, plan, "--check", ref])
    assert result.returncode == 0, result.stdout + result.stderr
