"""The float64 oracle (iosc --reference-outputs, scripts/ort_reference.py --float64): its outputs
are float64, an ios CPU plan and onnxruntime's float32 run are both measured against it, and
ios's error stays within a small multiple of onnxruntime's (both are float32 rounding of the
same computation); iosrun --check passes against it with the default element-wise rule. The
onnxruntime engine refuses a CNN it has no float64 Conv for, pointing at --engine ios."""
import os
import sys
from types import SimpleNamespace

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from ios_tools.cli import check_run, ort_reference, run


def outputs(folder):
    found, i = [], 0
    while os.path.exists(os.path.join(folder, f"output_{i}.pb")):
        found.append(numpy_helper.to_array(onnx.load_tensor(
            os.path.join(folder, f"output_{i}.pb"))))
        i += 1
    return found


def max_error(got, want):
    return max(float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64))))
               for g, w in zip(got, want))


def detection_fcn(source_dir, tmp):
    check_run([sys.executable, os.path.join(source_dir, "scripts", "generate_models.py"),
               "--out", tmp, "--models", "detection_fcn"], "generate_models.py")
    return os.path.join(tmp, "detection_fcn.onnx")


@pytest.fixture(scope="module", params=["residual", "detection"])
def case(request, iosc, iosrun, residual_model, source_dir, tmp_path_factory):
    """One model's float32 reference (onnxruntime), float64 oracle (ios), and the outputs of its
    greedy CPU plan on the oracle's inputs."""
    tmp = tmp_path_factory.mktemp(request.param)
    if request.param == "residual":
        model, shape_flags = residual_model, []
    else:
        model, shape_flags = detection_fcn(source_dir, tmp), ["--input-shape", "input:1x3x64x96"]
    f32 = ort_reference(model, tmp / "f32", *shape_flags)
    f64 = ort_reference(model, tmp / "f64", "--float64", "--iosc", iosc, *shape_flags)
    plan = str(tmp / "plan.iosplan")
    check_run([iosc, model, "-o", plan, "--schedule", "greedy"] + shape_flags, "iosc")
    saved = tmp / "ios"
    os.makedirs(saved)
    check_run([iosrun, plan, "--load-inputs", f64, "--save-outputs", saved], "iosrun")
    return SimpleNamespace(label=request.param, f32=f32, f64=f64, plan=plan,
                           oracle=outputs(f64), ort=outputs(f32), ios=outputs(saved))


def test_the_oracle_is_float64(case):
    assert case.oracle and all(o.dtype == np.float64 for o in case.oracle), \
        [o.dtype for o in case.oracle]


def test_both_references_ran_on_the_same_inputs(case):
    assert all(
        np.array_equal(numpy_helper.to_array(onnx.load_tensor(os.path.join(case.f32, name))),
                       numpy_helper.to_array(onnx.load_tensor(os.path.join(case.f64, name))))
        for name in os.listdir(case.f32) if name.startswith("input_"))


def test_ios_error_is_float32_rounding_within_4x_onnxruntimes(case):
    ort_error, ios_error = max_error(case.ort, case.oracle), max_error(case.ios, case.oracle)
    print(f"{case.label}: max abs error against float64: onnxruntime {ort_error:.3g}, "
          f"ios {ios_error:.3g} ({ios_error / max(ort_error, 1e-30):.2f}x)")
    assert ios_error <= 4 * ort_error + 1e-7, f"ios {ios_error}, onnxruntime {ort_error}"


def test_iosrun_check_against_the_float64_oracle_passes(case, iosrun):
    result = run([iosrun, case.plan, "--check", case.f64])
    assert result.returncode == 0, result.stdout[-1500:]


def test_onnxruntime_float64_of_a_cnn_is_refused_pointing_at_engine_ios(residual_model,
                                                                        source_dir, tmp_path):
    result = run([sys.executable, os.path.join(source_dir, "scripts", "ort_reference.py"),
                  residual_model, "--out", tmp_path / "ort64", "--float64", "--engine",
                  "onnxruntime"])
    assert result.returncode != 0 and "--engine ios" in result.stderr, result.stderr
